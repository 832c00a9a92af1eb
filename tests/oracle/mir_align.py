"""mir_align.py -- pairs LLVM's MIR instructions with treg's rows, for mir_live.py.

Both lists are in address order: the MIR's instructions that emit code, in
block layout order, and treg's rows.  They are walked side by side; a pair
is accepted when the MIR opcode and the row's mnemonic name the same
instruction (mnemonic_agrees).  Where they do not:

  - a row treg marks unreachable that is s_nop or s_code_end, met while the
    MIR instruction is reachable, is alignment padding (.p2align) that the
    MIR does not list: the row is skipped;
  - if the next RESYNC pairs agree, the two are the same instruction under
    names this module does not know: paired, counted as a mnemonic mismatch;
  - else the nearest (skip MIR, skip rows) offset after which RESYNC pairs
    agree is taken, and what it jumps over is reported, not forced.
"""
import re
from functools import lru_cache

RESYNC = 3
MAX_SKIP = 16
ROW_UNREACHABLE = 16              # treg_row_flags (analyzer/include/treg/report.h)

# MIR-only name parts: encodings (e32, sdwa), subtargets (gfx9), operand
# forms (SADDR, _ST, OFFEN, IMM), register-class variants of one instruction
# (vgprcd, t16, twoaddr).  Only dropped after the instruction's own name.
_VARIANTS = {"e32", "e64", "sdwa", "dpp", "dpp8", "vi", "si", "ci", "gfx9", "gfx10", "gfx11", "gfx12",
             "gfx90a", "gfx940", "gfx950", "t16", "fake16", "mac", "vgprcd", "twoaddr", "threeaddr",
             "w32", "w64", "nosdst", "imm", "ec", "sgpr", "saddr", "st", "sv", "svs", "offset",
             "offen", "idxen", "bothen", "addr64", "exact", "soft"}
_ENCODINGS = {"e32", "e64", "sdwa", "dpp", "dpp8"}
# GFX10/11 names -> the GFX9 names MIR opcodes keep (token sequences).
_RENAMES = [
    (("ds", "load", "2addr", "stride64"), ("ds", "read2st64")),
    (("ds", "load", "2addr"), ("ds", "read2")),
    (("ds", "store", "2addr", "stride64"), ("ds", "write2st64")),
    (("ds", "store", "2addr"), ("ds", "write2")),
    (("ds", "load"), ("ds", "read")),
    (("ds", "store"), ("ds", "write")),
    (("add", "nc"), ("add",)), (("sub", "nc"), ("sub",)), (("subrev", "nc"), ("subrev",)),
    (("addc", "co"), ("addc",)), (("add", "co", "ci"), ("addc",)),
    (("subb", "co"), ("subb",)), (("sub", "co", "ci"), ("subb",)),
    (("subbrev", "co"), ("subbrev",)), (("subrev", "co", "ci"), ("subbrev",)),
    (("and", "not1"), ("andn2",)), (("or", "not1"), ("orn2",)),
    (("and", "not0"), ("andn1",)), (("or", "not0"), ("orn1",)),
]
# Memory operand sizes, GFX11 spelling -> GFX9 spelling (not for ds_*, which
# spells sizes as b32 everywhere).
_SIZES = {"b32": "dword", "b64": "dwordx2", "b96": "dwordx3", "b128": "dwordx4", "b256": "dwordx8",
          "b512": "dwordx16", "u16": "ushort", "i16": "sshort", "u8": "ubyte", "i8": "sbyte",
          "b16": "short", "b8": "byte"}
_MEMORY = {"global", "scratch", "flat", "buffer"}


def _tokens(name, is_mir):
    t = name.lower().split("_")
    if is_mir and t[:2] == ["v", "dual"] and "x" in t[3:]:
        t = t[:t.index("x", 3)]                 # VOPD: treg's mnemonic is the X half
    drop = _VARIANTS if is_mir else _ENCODINGS
    return t[:2] + [x for x in t[2:] if x not in drop]


def _canonical(t):
    for old, new in _RENAMES:
        for k in range(len(t) - len(old) + 1):
            if tuple(t[k:k + len(old)]) == old:
                t = t[:k] + list(new) + t[k + len(old):]
                break
    if t[0] in _MEMORY or t[:2] == ["s", "load"] or t[:3] == ["s", "buffer", "load"]:
        t = [_SIZES.get(x, x) for x in t]
    # d16 (and its _hi) last: GFX11 writes global_load_d16_hi_b16
    return [x for x in t if x not in ("d16", "hi")] + [x for x in t if x in ("d16", "hi")]


@lru_cache(maxsize=None)
def mnemonic_agrees(opcode, mnemonic):
    """Whether MIR opcode (V_ADD_CO_U32_e64) is the instruction treg's
    mnemonic (v_add_co_u32_e64) names."""
    mir, asm = _canonical(_tokens(opcode, True)), _canonical(_tokens(mnemonic, False))
    if "t16" in opcode.lower().split("_") and mir[0] in _MEMORY | {"ds"}:
        # true16 memory: the operand's half picks the _d16/_d16_hi form
        mir, asm = ([x for x in s if x not in ("d16", "hi")] for s in (mir, asm))
    return "".join(mir) == "".join(asm)


def _mnemonic(row):
    return row["text"].split(" ", 1)[0]


def _is_padding(row):
    return row["flags"] & ROW_UNREACHABLE and _mnemonic(row) in ("s_nop", "s_code_end")


def align(opcodes, reachable, rows):
    """Pair emitted MIR instructions (their opcodes, and whether each is
    reachable) with treg's rows.  Returns (row index per instruction or None,
    mnemonic agreement per instruction, counters)."""
    row_of, agrees, stats = [None] * len(opcodes), [False] * len(opcodes), {}

    def count(key, n=1):
        stats[key] = stats.get(key, 0) + n

    def agree(i, j):
        return mnemonic_agrees(opcodes[i], _mnemonic(rows[j]))

    def in_step(i, j):
        return all(agree(i + k, j + k) for k in range(RESYNC)
                   if i + k < len(opcodes) and j + k < len(rows))

    i = j = 0
    while i < len(opcodes) and j < len(rows):
        if agree(i, j):
            row_of[i], agrees[i] = j, True
            i, j = i + 1, j + 1
        elif reachable[i] and _is_padding(rows[j]):
            count("treg_padding_skipped")
            j += 1
        elif in_step(i + 1, j + 1):
            row_of[i] = j
            count(f"mm:{opcodes[i]}~{_mnemonic(rows[j])}")
            i, j = i + 1, j + 1
        else:
            skip = _resync(i, j, len(opcodes), len(rows), in_step)
            if skip is None:
                row_of[i] = j
                count(f"mm:{opcodes[i]}~{_mnemonic(rows[j])}")
                i, j = i + 1, j + 1
            else:
                count("mir_skipped", skip[0])
                count("treg_rows_skipped", skip[1])
                i, j = i + skip[0], j + skip[1]
    count("mir_unaligned_at_end", len(opcodes) - i)
    tail = rows[j:]
    count("treg_padding_skipped", sum(1 for r in tail if _is_padding(r)))
    count("treg_rows_left_at_end", sum(1 for r in tail if not _is_padding(r)))
    return row_of, agrees, {k: v for k, v in stats.items() if v}


def _resync(i, j, n_mir, n_rows, in_step):
    """The smallest (MIR skipped, rows skipped) after which RESYNC pairs agree."""
    for total in range(1, MAX_SKIP + 1):
        for di in range(total + 1):
            dj = total - di
            if i + di < n_mir and j + dj < n_rows and in_step(i + di, j + dj):
                return di, dj
    return None


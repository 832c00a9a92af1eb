#!/usr/bin/env python3
"""mir_live.py -- LLVM's own post-register-allocation liveness, row by row
against treg-analyze's per-instruction VGPR/AGPR/SGPR counts.

WHAT: for a kernel's LLVM IR (a Triton cache entry's NAME.llir), the number of
VGPRs, AGPRs and SGPRs each machine instruction occupies -- live before it,
live after it, or written by it, a register counting when either 16-bit half
is -- computed from llc's final MIR, paired with the row of
`treg-analyze --format json` at the same address, and compared.

WHY: an independent source.  The MIR lists every operand of every instruction
with LLVM's own flags (implicit, undef, dead, tuples such as $vgpr0_vgpr1,
halves such as $vgpr0_hi16), so liveness computed from it uses LLVM's
instruction semantics, not treg's mnemonic table.  tests/cli/test_mir_live.sh
runs it over the corpus.

HOW:
  1. Build with llc (LLC, default llc-22) three times from the same IR, with
     any "target-cpu"/"target-features" attribute removed so that -mcpu
     decides: `-O3 -mtriple=amdgcn-amd-amdhsa -mcpu=ARCH` and
     -stop-after=amdgpu-resource-usage (the last machine pass before the asm
     printer: after scheduling, pseudo expansion, waitcnt/nop insertion,
     branch relaxation and the kernarg preload prolog, so the MIR's order is
     the code's), -filetype=asm (.s) and -filetype=obj, linked with LLD
     (default ld.lld-22) -shared into a .hsaco.  treg-analyze reads the
     .hsaco; its JSON is kept as WORK/NAME-ARCH.treg-json.
  2. Read the MIR (mir_model.py): blocks, successors, live-ins, and every
     register operand as 16-bit units, so that a write of $vgpr0_hi16 leaves
     the low half alone and a tuple covers all its members.  vcc counts among
     the SGPRs (vcc_lo, vcc_hi), as treg counts it; exec, scc, m0 and the
     other special registers are not counted.
  3. Pair the instructions that emit code with treg's rows (mir_align.py).
  4. Per mode, backward liveness over the MIR's control flow (mir_flow.py),
     and per instruction the occupied counts.  Modes:
       llvm  the operands exactly as LLVM prints them, KILL and
             IMPLICIT_DEF included: LLVM's own model.
       hw    what the machine does.  Instructions that emit no code have no
             effect.  Implicit VGPR/AGPR/SGPR operands are dropped (calls,
             returns and indexed moves keep theirs): in LLVM 22's output they
             are bookkeeping on expanded tuple copies, spills and VOPD
             (`$vgpr0 = V_MOV_B32_e32 $vgpr2, implicit-def $vgpr0_vgpr1,
             implicit $vgpr2_vgpr3`), which the machine neither reads nor
             writes.  An implicit VCC is the machine's (VOPC, V_CNDMASK_B32_e32)
             and stays, unless an explicit operand names part of it: then it
             is the same bookkeeping ($vgpr251 = V_WRITELANE_B32 $vcc_hi, 0,
             $vgpr251, implicit $vcc: the spill of a wave32 kernel's vcc_hi).  A non-true16 d16 load writes the half it
             names and leaves the other alone (see "d16" below).  A read of a
             unit that no path from the entry has written reads no value and
             is dropped, as if marked undef ("unreached uses": the entry's
             live-ins and the kernel's ABI inputs count as written; LLVM
             marks most such reads undef, not all, e.g. the spill of a
             half-defined pair, SCRATCH_STORE_DWORDX2_ST $vgpr24_vgpr25 with
             v25 never written).
       hwpe  hw plus treg's partial-EXEC rule: a vector write at an
             instruction treg flags "EXEC may be partial" (row flag 64) does
             not end a value needed in every lane, which a later full-EXEC
             read still needs.  This is the mode treg must agree with; the gap
             from hw is that rule's effect alone.
  5. Compare per aligned row: per class rows equal, greater, smaller, the
     peak; rows where all three classes agree; the worst rows with the
     registers only one side holds.

d16: a d16 load writes 16 bits of its destination and leaves the other 16
alone (ds_read_u16_d16_hi v5: v5[31:16] := mem, v5[15:0] kept).  LLVM 22 has
two MIR forms of the same machine instruction.  The true16 one says exactly
that:
    renamable $vgpr65_hi16 = DS_READ_U16_t16 renamable $vgpr254, 256, 0, implicit $exec
The other one (every gfx9 target, and gfx11 where instruction selection took
the non-true16 pattern) keeps the untouched half by tying the whole register:
    renamable $vgpr217 = DS_READ_U16_D16_HI renamable $vgpr139, 8672, 0, killed renamable $vgpr217
(Constraints = "$vdst = $vdst_in" in LLVM's DS/FLAT/BUFInstructions.td).  Read
literally, that tied use keeps the *overwritten* half's old value alive too,
back to its previous definition, across loops and from the entry when it was
never needed (one gfx1100 matmul: 200 VGPRs live where the machine needs 78).
The binary is the same for both forms, so no analyser of machine code can
tell them apart; the ISA's meaning is the true16 one.  So in hw and hwpe such
a load (opcode with _D16 or _D16_HI, not _t16) writes only its half (_HI:
high, else low) and its tied input is no read; another operand naming the
same register (an address) still is.  Mode llvm keeps LLVM's form, so the
difference shows between [llvm] and [hw].

Narrow stores: BUFFER_STORE_SHORT, DS_WRITE_B16, GLOBAL/FLAT/SCRATCH_STORE_
SHORT and the BYTE forms store 16 (8) bits of vdata: the low half (_D16_HI:
the high one).  Their non-true16 MIR names the whole register
(BUFFER_STORE_SHORT_OFFEN killed $vgpr157, ... after $vgpr157_lo16 =
V_CVT_F16_F32_t16), which read literally keeps the other half live back to
its last write: on gfx1100, where true16 writes single halves, 47 VGPRs too
many on a persistent matmul (issue 34; gfx9 writes both halves together, so
it never showed there).  In hw and hwpe the data operand of such a store
reads only its half (mir_model.py's _NARROW_STORE, the operand's place by
LLVM's ins lists).

usage:
  mir_live.py compare LLIR ARCH TREG_ANALYZE [--work DIR] [--mode hwpe|hw|llvm]
                      [--worst N] [--json OUT.json] [--rows OUT.tsv] [--quiet]
Prints per kernel the alignment, per mode the agreement, and (unless --quiet)
the worst rows of --mode.  --json writes a list with one object per kernel:
kernel, arch, llir, work (the path stem of WORK/NAME-ARCH.{mir,s,hsaco,
treg-json}), mir_instrs, treg_rows, aligned, aligned_mnemonic_ok, align_stats
(counters; "mm:OPCODE~mnemonic" = a pair aligned with names that differ),
unreached_uses, one object per mode (per class equal / oracle_gt / oracle_lt /
max_abs, all_equal_rows, peak per class {oracle, treg}) and worst (--mode's
rows with the largest differences); or kernel and error.  --rows writes one
line per aligned row with treg's and each mode's counts.  Exit status 0 when
every kernel was compared (whatever the agreement), 2 when the build, treg or
the alignment failed ("FAILED: ..." on stderr).
"""
import argparse
import json
import os
import re
import subprocess
import sys
import tempfile

import mir_align
import mir_flow
import mir_model as mm

MODES = ("hwpe", "hw", "llvm")
ROW_PARTIAL_EXEC = 64             # treg_row_flags (analyzer/include/treg/report.h)


class Failed(Exception):
    """A build step or treg failed; the message says which and why."""


# --------------------------------------------------------------------------- build

def _run(what, cmd, stdout=None):
    p = subprocess.run(cmd, stdout=stdout, stderr=subprocess.PIPE, text=True)
    if p.stderr:
        sys.stderr.write(p.stderr[-2000:])
    if p.returncode != 0:
        raise Failed(f"{what} (exit {p.returncode}): {' '.join(cmd)}")


def build(llir, arch, work):
    """The MIR, .s, .hsaco and treg's JSON of llir at arch; returns the stem."""
    llc, lld = os.environ.get("LLC", "llc-22"), os.environ.get("LLD", "ld.lld-22")
    name = os.path.splitext(os.path.basename(llir))[0]
    stem = os.path.join(os.path.abspath(work), f"{name}-{arch}")
    with open(llir, errors="replace") as f:
        ir = re.sub(r'"target-(?:cpu|features)"="[^"]*"', "", f.read())
    with open(stem + ".ll", "w") as f:
        f.write(ir)
    base = [llc, "-O3", "-mtriple=amdgcn-amd-amdhsa", f"-mcpu={arch}", "-x", "ir", stem + ".ll"]
    _run("llc -stop-after", base + ["-stop-after=amdgpu-resource-usage", "-o", stem + ".mir"])
    _run("llc -filetype=asm", base + ["-filetype=asm", "-o", stem + ".s"])
    _run("llc -filetype=obj", base + ["-filetype=obj", "-o", stem + ".o"])
    _run("ld.lld", [lld, "-shared", stem + ".o", "-o", stem + ".hsaco"])
    return stem


def run_treg(treg, stem):
    with open(stem + ".treg-json", "w") as out:
        _run("treg-analyze", [treg, "--format", "json", stem + ".hsaco"], stdout=out)
    try:
        with open(stem + ".treg-json") as f:
            doc = json.load(f)
    except ValueError as e:
        raise Failed(f"treg-analyze wrote no JSON ({e})") from e
    return {k["name"]: k for rep in doc.get("reports", []) for k in rep.get("kernels", [])}


# --------------------------------------------------------------------------- one kernel

def _reachable(nodes):
    seen, work = {0} if nodes else set(), [0] if nodes else []
    while work:
        for s in nodes[work.pop()].succs:
            if s not in seen:
                seen.add(s)
                work.append(s)
    return seen


def mode_occupancy(fn, nodes, partial):
    """Per mode, per instruction: occupied units; and the unreached uses."""
    instrs = [ins for b in fn.blocks for ins in b.instrs]
    llvm = [mm.effects(ins, "llvm") for ins in instrs]
    hw = [mm.effects(ins, "hw") for ins in instrs]
    writes_hw = [w for _, w in hw]
    defined = mir_flow.maybe_defined(nodes, writes_hw, fn.entry_units)
    reads_hw, unreached = [], {"instrs": 0, "regs": 0, "by_opcode": {}}
    for ins, (r, _), have in zip(instrs, hw, defined):
        lost = r & ~have
        if lost:
            unreached["instrs"] += 1
            unreached["regs"] += len(mm.reg_names(lost))
            unreached["by_opcode"][ins.opcode] = unreached["by_opcode"].get(ins.opcode, 0) + 1
        reads_hw.append(r & have)
    none = [False] * len(instrs)
    occupied = {
        "llvm": mir_flow.occupancy(nodes, [r for r, _ in llvm], [w for _, w in llvm], none),
        "hw": mir_flow.occupancy(nodes, reads_hw, writes_hw, none),
        "hwpe": mir_flow.occupancy(nodes, reads_hw, writes_hw, partial),
    }
    return occupied, unreached


def _summary(pairs):
    """pairs: (oracle counts, treg counts) per aligned row."""
    out, all_equal = {}, sum(1 for o, t in pairs if o == t)
    for c, (name, _, _) in enumerate(mm.CLASSES):
        d = [o[c] - t[c] for o, t in pairs]
        out[name] = {"equal": d.count(0), "oracle_gt": sum(x > 0 for x in d),
                     "oracle_lt": sum(x < 0 for x in d), "max_abs": max(map(abs, d), default=0)}
    out["all_equal_rows"] = all_equal
    out["peak"] = {name: {"oracle": max((o[c] for o, _ in pairs), default=0),
                          "treg": max((t[c] for _, t in pairs), default=0)}
                   for c, (name, _, _) in enumerate(mm.CLASSES)}
    return out


def _treg_units(kernel, row):
    """The registers treg holds at a row, from its live_ranges ([start, end) rows)."""
    units = 0
    for lr in kernel.get("live_ranges", []):
        if any(a <= row < b for a, b in lr["runs"]):
            units |= mm.units_of(_mir_name(lr["reg"]))
    return units


def _mir_name(treg_name):
    """v12 -> vgpr12, a3 -> agpr3, s7 -> sgpr7, vcc_lo as is."""
    m = re.fullmatch(r"([vas])(\d+)", treg_name)
    return {"v": "vgpr", "a": "agpr", "s": "sgpr"}[m.group(1)] + m.group(2) if m else treg_name


def analyse(fn, kernel, mode, n_worst):
    """The comparison of one function with treg's kernel, as a JSON object,
    plus its rows for --rows."""
    instrs = [ins for b in fn.blocks for ins in b.instrs]
    nodes = mir_flow.build_graph(fn)
    reachable_nodes = _reachable(nodes)
    node_of = {i: n for n, node in enumerate(nodes) for i in node.instrs}
    emitted = [i for i, ins in enumerate(instrs) if not mm.is_meta(ins.opcode)]
    rows = kernel["rows"]
    row_of, agrees, stats = mir_align.align([instrs[i].opcode for i in emitted],
                                            [node_of[i] in reachable_nodes for i in emitted], rows)
    partial = [False] * len(instrs)
    for i, j in zip(emitted, row_of):
        if j is not None:
            partial[i] = bool(rows[j]["flags"] & ROW_PARTIAL_EXEC)
    occupied, unreached = mode_occupancy(fn, nodes, partial)
    paired = [(i, j) for i, j in zip(emitted, row_of) if j is not None]
    counts = {m: [(mm.class_counts(occupied[m][i]), _treg_counts(rows[j])) for i, j in paired]
              for m in MODES}
    result = {"kernel": fn.name, "mir_instrs": len(emitted), "treg_rows": len(rows),
              "aligned": len(paired), "aligned_mnemonic_ok": sum(agrees), "align_stats": stats,
              "unreached_uses": unreached}
    result.update({m: _summary(counts[m]) for m in MODES})
    result["worst"] = _worst(paired, counts[mode], occupied[mode], instrs, kernel, n_worst)
    table = [(rows[j]["address"], rows[j]["text"], instrs[i].opcode, counts["hwpe"][k][1],
              [counts[m][k][0] for m in MODES]) for k, (i, j) in enumerate(paired)]
    return result, table


def _treg_counts(row):
    return row["vgpr"], row["agpr"], row["sgpr"]


def _worst(paired, counts, occupied, instrs, kernel, n):
    ranked = sorted(range(len(paired)), key=lambda k: -sum(abs(o - t) for o, t in zip(*counts[k])))
    worst = []
    for k in ranked[:n]:
        oracle, treg = counts[k]
        if oracle == treg:
            break
        i, j = paired[k]
        mine, theirs = occupied[i], _treg_units(kernel, j)
        row = kernel["rows"][j]
        worst.append({"address": row["address"], "treg_text": row["text"],
                      "mir": instrs[i].text.strip(), "oracle": list(oracle), "treg": list(treg),
                      "oracle_only": " ".join(mm.reg_names(mine & ~_whole(theirs))),
                      "treg_only": " ".join(mm.reg_names(theirs & ~_whole(mine)))})
    return worst


def _whole(units):
    """Both halves of every register with a unit in units."""
    low = (units | units >> 1) & mm.LOW_HALVES
    return low | low << 1


# --------------------------------------------------------------------------- output

def _mode_line(mode, s, aligned):
    parts = [f"[{mode}] rows all-equal {s['all_equal_rows']}/{aligned}"]
    for name, _, _ in mm.CLASSES:
        c, p = s[name], s["peak"][name]
        parts.append(f"{name} eq {c['equal']} max|d| {c['max_abs']} (>:{c['oracle_gt']} "
                     f"<:{c['oracle_lt']}) peak o/t {p['oracle']}/{p['treg']}")
    return "; ".join(parts)


def report(r, mode, quiet):
    print(f"== {r['kernel']}  {r['arch']}  ({r['llir']})")
    if "error" in r:
        print(f"   error: {r['error']}")
        return
    print(f"   MIR instructions {r['mir_instrs']}, treg rows {r['treg_rows']}, aligned {r['aligned']} "
          f"(mnemonic ok {r['aligned_mnemonic_ok']}), align: {json.dumps(r['align_stats'])}")
    u = r["unreached_uses"]
    print(f"   unreached uses dropped (hw, hwpe): {u['instrs']} instructions, {u['regs']} registers")
    for m in MODES:
        print("   " + _mode_line(m, r[m], r["aligned"]))
    if quiet:
        return
    for w in r["worst"]:
        print(f"   worst [{mode}] 0x{w['address']:x} {w['treg_text']} | {w['mir']}\n"
              f"       oracle {tuple(w['oracle'])} treg {tuple(w['treg'])}; "
              f"oracle only: {w['oracle_only'] or '-'}; treg only: {w['treg_only'] or '-'}")


def write_rows(path, tables):
    with open(path, "w") as f:
        f.write("kernel\taddress\ttreg_text\tmir_opcode\ttreg_v\ttreg_a\ttreg_s\t" +
                "\t".join(f"{m}_{c}" for m in MODES for c in "vas") + "\n")
        for kernel, table in tables:
            for address, text, opcode, treg, oracle in table:
                f.write("\t".join([kernel, f"0x{address:x}", text, opcode, *map(str, treg),
                                   *(str(x) for o in oracle for x in o)]) + "\n")


# --------------------------------------------------------------------------- main

def compare(args):
    work = args.work or tempfile.mkdtemp(prefix="mir-live.")
    os.makedirs(work, exist_ok=True)
    try:
        stem = build(args.llir, args.arch, work)
        kernels = run_treg(args.treg, stem)
        with open(stem + ".mir", errors="replace") as f:
            # kernels, and the device functions they call (treg reports each
            # as kind "function", analyzed with its arguments live at entry)
            functions = [fn for fn in mm.parse_mir(f.read()) if fn.blocks]
    except (Failed, OSError, ValueError) as e:
        print(f"FAILED: {e}", file=sys.stderr)
        return 2
    results, tables = [], []
    for fn in functions:
        base = {"kernel": fn.name, "arch": args.arch, "llir": args.llir, "work": stem}
        if fn.name not in kernels:
            what = "kernel" if fn.is_kernel else "function"
            results.append({**base, "error": f"treg-analyze reports no such {what}"})
            continue
        kind = kernels[fn.name].get("kind") or "kernel"
        if kind != ("kernel" if fn.is_kernel else "function"):
            results.append({**base, "error": f"treg-analyze reports it as a {kind}"})
            continue
        r, table = analyse(fn, kernels[fn.name], args.mode, args.worst)
        if r["aligned"] < r["mir_instrs"] // 2:
            r["error"] = f"alignment failed: {r['aligned']} of {r['mir_instrs']} instructions"
        results.append({**base, **r})
        tables.append((fn.name, table))
    if not functions:
        results.append({"kernel": "?", "arch": args.arch, "llir": args.llir, "work": stem,
                        "error": "the MIR has no kernel"})
    for r in results:
        report(r, args.mode, args.quiet)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(results, f, indent=1)
    if args.rows:
        write_rows(args.rows, tables)
    failed = [r for r in results if "error" in r]
    for r in failed:
        print(f"FAILED: {r['kernel']}: {r['error']}", file=sys.stderr)
    return 2 if failed else 0


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n", 1)[0])
    sub = ap.add_subparsers(dest="command", required=True)
    c = sub.add_parser("compare", help="build LLIR for ARCH, run treg, compare row by row")
    c.add_argument("llir")
    c.add_argument("arch")
    c.add_argument("treg", metavar="TREG_ANALYZE")
    c.add_argument("--work", help="folder for the build outputs (default: a new temporary one)")
    c.add_argument("--mode", choices=MODES, default="hwpe", help="the mode of the worst rows")
    c.add_argument("--worst", type=int, default=5, help="worst rows to report (default 5)")
    c.add_argument("--json", help="write the per-kernel results here")
    c.add_argument("--rows", help="write every aligned row's counts here (TSV)")
    c.add_argument("--quiet", action="store_true", help="no worst rows on stdout")
    args = ap.parse_args(argv)
    return compare(args)


if __name__ == "__main__":
    sys.exit(main())

"""mir_model.py -- LLVM's post-register-allocation MIR as data, for mir_live.py.

Reads the text llc writes with -stop-after: per function its blocks in layout
order (= address order), each block's successors and live-ins, and its
instructions (a BUNDLE's contents inline, the BUNDLE line itself dropped, as
the machine code has no bundles), every register operand reduced to a set of
16-bit register units.  Then says what an instruction reads and writes in a
given mode (see mir_live.py's docstring for the modes):

  llvm  every operand as LLVM prints it, KILL and IMPLICIT_DEF included;
  hw    what the machine does: instructions that emit no code have no effect,
        implicit VGPR/AGPR/SGPR operands are liveness bookkeeping and go (an
        implicit VCC stays unless an explicit operand names part of it), and
        a tied d16 load writes one half and reads nothing of its destination.

Units: register r (vN = N, aN = 1024 + N, sN = 2048 + N, vcc_lo and vcc_hi
after the SGPRs, all named as treg names them) is the two bits 2r (low half)
and 2r + 1 (high half) of a Python int.  exec, scc, m0, mode, flat_scr,
null and the other special registers have no units: neither side counts them.
"""
import re
from functools import lru_cache

A0, S0 = 1024, 2048
VCC_LO, VCC_HI = S0 + 128, S0 + 129
N_REGS = S0 + 130
CLASSES = (("vgpr", 0, A0), ("agpr", A0, S0), ("sgpr", S0, N_REGS))
LOW_HALVES = int("01" * N_REGS, 2)          # bit 2r of every register
HIGH_HALVES = LOW_HALVES << 1


def _span(first, end):
    """The units of registers first .. end-1."""
    return ((1 << (2 * (end - first))) - 1) << (2 * first)


CLASS_UNITS = {name: _span(first, end) for name, first, end in CLASSES}
VECTOR_UNITS = CLASS_UNITS["vgpr"] | CLASS_UNITS["agpr"]
VCC_UNITS = _span(VCC_LO, VCC_HI + 1)
_BASE = {"vgpr": 0, "agpr": A0, "sgpr": S0}
_SINGLE = re.compile(r"(vgpr|agpr|sgpr)(\d+)")


@lru_cache(maxsize=None)
def units_of(name):
    """The units of a physical register as MIR spells it without the '$':
    vgpr7, vgpr7_hi16, sgpr4_sgpr5, agpr0_agpr1_agpr2_agpr3, vcc, vcc_lo."""
    if name == "vcc":
        return VCC_UNITS
    half = None
    if name.endswith(("_lo16", "_hi16")):
        name, half = name[:-5], name[-4:]
    if name in ("vcc_lo", "vcc_hi"):
        regs = [VCC_LO if name == "vcc_lo" else VCC_HI]
    else:
        parts = [_SINGLE.fullmatch(p) for p in name.split("_")]
        if not all(parts):
            return 0                         # a special register
        regs = [_BASE[m.group(1)] + int(m.group(2)) for m in parts]
    mask = 0
    for r in regs:
        mask |= {None: 3, "lo16": 1, "hi16": 2}[half] << (2 * r)
    return mask


def reg_name(r):
    """treg's name of register r."""
    if r >= VCC_LO:
        return "vcc_lo" if r == VCC_LO else "vcc_hi"
    for name, first, end in CLASSES:
        if r < end:
            return f"{name[0]}{r - first}"
    raise ValueError(r)


def reg_names(units):
    """treg's names of the registers that have a unit in units."""
    whole = (units | units >> 1) & LOW_HALVES
    names = []
    while whole:
        low = whole & -whole
        names.append(reg_name(low.bit_length() // 2))
        whole ^= low
    return names


def class_counts(units):
    """(vgpr, agpr, sgpr): registers with at least one unit in units."""
    whole = (units | units >> 1) & LOW_HALVES
    return tuple((whole & CLASS_UNITS[name]).bit_count() for name, _, _ in CLASSES)


# --------------------------------------------------------------------------- instructions

class Operand:
    __slots__ = ("units", "is_def", "implicit", "undef")

    def __init__(self, units, is_def, implicit, undef):
        self.units, self.is_def, self.implicit, self.undef = units, is_def, implicit, undef


class Instr:
    """One machine instruction: opcode, register operands in MIR order, the
    blocks it may branch to, and its MIR line (for reports)."""
    __slots__ = ("opcode", "ops", "targets", "text")

    def __init__(self, opcode, ops, targets, text):
        self.opcode, self.ops, self.targets, self.text = opcode, ops, targets, text


# Instructions that emit no machine code (LLVM's isMetaInstruction, plus the
# AMDGPU pseudos marked isMeta); the BUNDLE header is never an Instr.
META = {"KILL", "IMPLICIT_DEF", "SCHED_BARRIER", "SCHED_GROUP_BARRIER", "IGLP_OPT", "WAVE_BARRIER",
        "SI_MASKED_UNREACHABLE", "ATOMIC_FENCE", "MEMBARRIER", "CFI_INSTRUCTION", "EH_LABEL",
        "GC_LABEL", "ANNOTATION_LABEL", "LIFETIME_START", "LIFETIME_END", "PSEUDO_PROBE",
        "FAKE_USE", "ARITH_FENCE", "JUMP_TABLE_DEBUG_INFO", "SI_RETURN_TO_EPILOG"}


def is_meta(opcode):
    return opcode in META or opcode.startswith("DBG_")


def is_branch(ins):
    return ins.opcode == "S_BRANCH" or ins.opcode.startswith("S_CBRANCH_")


_FLAG_WORDS = ("implicit-def", "implicit", "def", "dead", "killed", "undef", "internal",
               "early-clobber", "renamable", "debug-use")
_OPERAND = re.compile(r"((?:(?:%s) )*)\$(\w+)|%%bb\.(\d+)" % "|".join(_FLAG_WORDS))
_DEFS = re.compile(r"(?:(?:[a-z-]+ )*\$\w+)(?:, (?:[a-z-]+ )*\$\w+)*")
_QUOTED = re.compile(r'"(?:[^"\\]|\\.)*"')
# A call's register mask (CustomRegMask($sgpr32, ...) or a named one): the
# registers the callee preserves, neither read nor written by the call.
_REGMASK = re.compile(r"CustomRegMask\([^)]*\)|\bcsr_[a-z0-9_]+")
_OPCODE = re.compile(r"[A-Z][A-Za-z0-9_]*")


def parse_instr(line):
    """An Instr from one MIR body line ('$v1, dead $vcc = V_ADD_CO_U32_e64 ...')."""
    text = _REGMASK.sub("", _QUOTED.sub('""', line)).split(" :: ", 1)[0]
    lhs, eq, rhs = text.partition(" = ")
    if not eq or not _DEFS.fullmatch(lhs):
        lhs, rhs = "", text
    words = rhs.split(" ", 1)
    while words and not _OPCODE.fullmatch(words[0]):   # nofpexcept, nnan, frame-setup ...
        words = words[1].split(" ", 1) if len(words) > 1 else []
    if not words:
        raise ValueError(f"no opcode in MIR line: {line}")
    opcode, rest = words[0], words[1] if len(words) > 1 else ""
    ops, targets = [], []
    for side, is_lhs in ((lhs, True), (rest, False)):
        for m in _OPERAND.finditer(side):
            if m.group(3):
                targets.append("bb." + m.group(3))
                continue
            flags = m.group(1).split()
            ops.append(Operand(units_of(m.group(2)),
                               is_lhs or "def" in flags or "implicit-def" in flags,
                               "implicit" in flags or "implicit-def" in flags, "undef" in flags))
    return Instr(opcode, ops, targets, line)


# --------------------------------------------------------------------------- effects

# Whose implicit GPR operands are real: calls and returns (arguments, return
# values), movrel and GPR-index moves (the register tuple they index).
_KEEPS_IMPLICIT = re.compile(r"MOVREL|_indirect_|SWAPPC|SETPC_B64_return|^SI_CALL|^SI_TCRETURN|"
                             r"^SI_RETURN")
# Non-true16 d16 loads: "$vdst = $vdst_in" ties the whole destination.
_TIED_D16 = re.compile(r"_D16(_HI)?(?:_|$)")


# Narrow stores (16 or 8 bits of vdata): the machine reads one half of the
# data register (_D16_HI: the high one, else the low one), while LLVM's
# non-true16 form names the whole register ($vgpr157 for v157[15:0]).  The
# data operand's place among the explicit uses, by LLVM's ins lists
# (BUFInstructions.td: vdata first; DSInstructions.td: addr, data0;
# FLATInstructions.td: flat and global vaddr, vdata; scratch vdata first).
_NARROW_STORE = re.compile(r"^(BUFFER|TBUFFER|DS|GLOBAL|FLAT|SCRATCH)_(?:STORE|WRITE)_"
                           r"(?:SHORT|BYTE|B16|B8)(_D16_HI)?(?:_|$)")


def _narrow_store_data(opcode):
    """(index of vdata among the explicit uses, its half mask) of a non-true16
    narrow store, or None."""
    m = _NARROW_STORE.match(opcode)
    if not m or "_t16" in opcode:
        return None
    index = 1 if m.group(1) in ("DS", "GLOBAL", "FLAT") else 0
    return index, HIGH_HALVES if m.group(2) else LOW_HALVES


def effects(ins, mode):
    """(reads, writes) of ins in mode "llvm" or "hw", as unit masks; reads
    marked undef are no reads."""
    if ins.opcode.startswith("DBG_") or (mode == "hw" and is_meta(ins.opcode)):
        return 0, 0
    ops = ins.ops
    if mode == "hw" and not _KEEPS_IMPLICIT.search(ins.opcode):
        # An implicit VCC is the machine's (V_CNDMASK_B32_e32, VOPC) unless an
        # explicit operand names part of it: then it is the tuple bookkeeping
        # of a spill ($vgpr251 = V_WRITELANE_B32 $vcc_hi, 0, ..., implicit $vcc).
        vcc = 0 if any(o.units & VCC_UNITS for o in ops if not o.implicit) else VCC_UNITS
        ops = [o if not o.implicit else Operand(o.units & vcc, o.is_def, True, o.undef)
               for o in ops]
    written_half = None
    if mode == "hw":
        d16 = _TIED_D16.search(ins.opcode)
        if d16 and "_t16" not in ins.opcode:
            written_half = HIGH_HALVES if d16.group(1) else LOW_HALVES
    narrow = _narrow_store_data(ins.opcode) if mode == "hw" else None
    data = None
    if narrow:
        uses = [o for o in ops if not o.is_def and not o.implicit]
        data = id(uses[narrow[0]]) if narrow[0] < len(uses) else None
    reads = writes = 0
    dropped = _tied_inputs(ops) if written_half is not None else {}
    for o in ops:
        if o.is_def:
            writes |= o.units & written_half if id(o) in dropped.values() else o.units
        elif not o.undef and id(o) not in dropped:
            reads |= o.units & narrow[1] if id(o) == data else o.units
    return reads, writes


def _tied_inputs(ops):
    """For a d16 load: {id(tied input): id(its destination)}: per explicit
    destination, the last explicit read of the same register ("$vdst_in")."""
    tied = {}
    for d in ops:
        if d.is_def and not d.implicit and d.units:
            same = [o for o in ops if not o.is_def and not o.implicit and o.units == d.units]
            if same:
                tied[id(same[-1])] = id(d)
    return tied


# --------------------------------------------------------------------------- functions

class Block:
    __slots__ = ("name", "successors", "liveins", "instrs")

    def __init__(self, name):
        self.name, self.successors, self.liveins, self.instrs = name, [], 0, []


class Function:
    """A machine function: blocks in layout order and the registers that hold
    a value at its entry (function live-ins, the entry block's live-ins and
    the kernel's ABI inputs from machineFunctionInfo.argumentInfo)."""

    def __init__(self, name):
        self.name, self.blocks, self.entry_units, self.is_kernel = name, [], 0, False


_BLOCK = re.compile(r"  (bb\.\d+)[^ :]*(?: \(.*\))?:$")
_REG_IN_HEADER = re.compile(r"reg: +'\$(\w+)'")


def parse_mir(text):
    """Every function of a MIR file, in file order."""
    functions = []
    for doc in re.split(r"^---.*$", text, flags=re.M)[1:]:
        head, sep, body = doc.partition("\nbody:")
        name = re.search(r"^name: +'?([^'\n]+?)'?$", head, re.M)
        if not sep or not name:
            continue                         # the IR module, or not a function
        fn = Function(name.group(1))
        fn.is_kernel = re.search(r"^ +isEntryFunction: +true$", head, re.M) is not None
        _read_header(fn, head)
        _read_body(fn, body.split("\n...", 1)[0])
        if fn.blocks:
            fn.entry_units |= fn.blocks[0].liveins
        functions.append(fn)
    return functions


def _read_header(fn, head):
    """Function live-ins and argumentInfo registers."""
    section = None
    for line in head.splitlines():
        indent = len(line) - len(line.lstrip())
        if indent == 0 and line:
            section = line.split(":", 1)[0]
        elif line.strip() == "argumentInfo:":
            section, args_indent = "argumentInfo", indent
        elif section == "argumentInfo" and indent <= args_indent:
            section = None
        if section in ("liveins", "argumentInfo"):
            for m in _REG_IN_HEADER.finditer(line):
                fn.entry_units |= units_of(m.group(1))


def _read_body(fn, body):
    block = None
    for line in body.splitlines():
        m = _BLOCK.match(line)
        if m:
            block = Block(m.group(1))
            fn.blocks.append(block)
            continue
        s = line.strip()
        if not s or s.startswith(";") or s == "}" or block is None:
            continue
        if s.startswith("successors:"):
            block.successors = re.findall(r"%(bb\.\d+)", s)
        elif s.startswith("liveins:"):
            for reg in re.findall(r"\$(\w+)", s):
                block.liveins |= units_of(reg)
        elif not (s.startswith("BUNDLE") and s.endswith("{")):
            block.instrs.append(parse_instr(s))

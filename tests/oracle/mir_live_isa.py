#!/usr/bin/env python3
"""shared/tools/mir-live.py, with one correction: d16 loads read as the ISA defines them.

WHY: a d16 load writes 16 bits of its destination and leaves the other 16 alone
(ds_read_u16_d16_hi v5: v5[31:16] := mem, v5[15:0] kept).  LLVM 22 has two MIR forms for
the same machine instruction.  The true16 one says exactly that:
    renamable $vgpr65_hi16 = DS_READ_U16_t16 renamable $vgpr254, 256, 0, implicit $exec
The other one (every gfx9 target, and gfx11 where instruction selection took the
non-true16 pattern) keeps the untouched half by tying the whole 32-bit register:
    renamable $vgpr217 = DS_READ_U16_D16_HI renamable $vgpr139, 8672, 0, killed renamable $vgpr217
(Constraints = "$vdst = $vdst_in" in DSInstructions.td / FLATInstructions.td /
BUFInstructions.td).  Read literally, that use keeps the *overwritten* half's old value
alive too, back to its previous definition, across loops and from the kernel's entry
when that value was never needed (measured: one gfx1100 matmul shows 200 VGPRs live where
the machine needs 78).  The binary is the same in both cases, so no analyzer of machine
code can tell the forms apart; the ISA's meaning is the true16 one.

WHAT: for those opcodes (an LLVM name containing _D16 or _D16_HI, not _t16), modes hw and
hwpe narrow the destination to the half written (_HI: high, else low) and drop the tied
use of the destination register.  Mode llvm is left exactly as LLVM prints it, so the
effect of the correction is visible: compare [llvm] with [hw] in mir-live's output.

Everything else (arguments, output, environment) is mir-live.py's.  Its path is
$TREG_MIR_LIVE, else ../shared/tools/mir-live.py beside this repository.
"""
import importlib.util
import os
import re
import sys

_here = os.path.dirname(os.path.abspath(__file__))
_path = os.environ.get("TREG_MIR_LIVE") or os.path.join(_here, "..", "..", "..", "shared", "tools",
                                                         "mir-live.py")
if not os.path.isfile(_path):
    sys.exit("mir_live_isa.py: %s not found (set TREG_MIR_LIVE)" % _path)
_spec = importlib.util.spec_from_file_location("mir_live", _path)
ml = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(ml)

_TIED_D16 = re.compile(r"_D16(_HI)?(?:_|$)")
_LOW_UNITS = ml.REGS                       # bit r: low half of register r
_HIGH_UNITS = ml.REGS << ml.REG_END        # bit REG_END + r: its high half
_llvm_effects = ml.effects


def effects(ins, mode):
    use, dfn = _llvm_effects(ins, mode)
    m = _TIED_D16.search(ins.opcode)
    if mode == "llvm" or not m or "_t16" in ins.opcode:
        return use, dfn
    written = _HIGH_UNITS if m.group(1) else _LOW_UNITS
    dsts = [o for o in ins.ops if o.is_def and not o.implicit and o.units]
    for d in dsts:
        tied = [o for o in ins.ops if not o.is_def and not o.implicit and o.units == d.units]
        if not tied:
            continue
        dfn &= ~(d.units & ~written)       # the half the load does not write is not defined
        # ... and not read: it is simply left alone.  Only the tied operand goes; another
        # operand naming the same register (an address) is still read.
        others = 0
        for o in ins.ops:
            if o is not tied[-1] and not o.is_def and not o.implicit and "undef" not in o.flags:
                others |= o.units
        use = (use & ~d.units) | (use & d.units & others)
    return use, dfn


ml.effects = effects

if __name__ == "__main__":
    sys.exit(ml.main())

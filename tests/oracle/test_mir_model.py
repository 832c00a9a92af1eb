"""The oracle's reading of the MIR operands the ISA reads otherwise
(mir_model.effects, mode "hw"): d16 loads, whose tied input is no read, and
narrow stores, whose data operand reads one half.  Each case is an
instruction as LLVM 22 prints it in the post-RA MIR of a real kernel
(tests/data/realworld-handover, the shared corpus's gfx1100 builds).
Run by CTest (oracle_mir_model); exits 1 on the first wrong mask."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from mir_model import HIGH_HALVES, LOW_HALVES, effects, parse_instr, units_of  # noqa: E402

V = lambda n: units_of("vgpr%d" % n)  # noqa: E731  both halves
LO = lambda n: V(n) & LOW_HALVES  # noqa: E731
HI = lambda n: V(n) & HIGH_HALVES  # noqa: E731
S = lambda *ns: sum(units_of("sgpr%d" % n) for n in ns)  # noqa: E731

CASES = [
    # (MIR line, reads in hw, writes in hw, reads in llvm)
    ("BUFFER_STORE_SHORT_OFFEN_exact killed renamable $vgpr157, killed renamable $vgpr73, "
     "renamable $sgpr24_sgpr25_sgpr26_sgpr27, 0, 0, 0, 0, implicit $exec",
     LO(157) | V(73) | S(24, 25, 26, 27), 0, V(157) | V(73) | S(24, 25, 26, 27)),
    ("DS_WRITE_B16_gfx9 renamable $vgpr241, killed renamable $vgpr54, -22528, 0, implicit $exec",
     V(241) | LO(54), 0, V(241) | V(54)),
    ("DS_WRITE_B8_D16_HI renamable $vgpr2, killed renamable $vgpr5, 0, 0, implicit $exec",
     V(2) | HI(5), 0, V(2) | V(5)),
    ("GLOBAL_STORE_SHORT_SADDR killed $vgpr1, killed $vgpr7, killed $sgpr4_sgpr5, 0, 0, implicit $exec",
     V(1) | LO(7) | S(4, 5), 0, V(1) | V(7) | S(4, 5)),
    ("SCRATCH_STORE_BYTE_ST killed $vgpr2, 1400, 0, implicit $exec, implicit $flat_scr",
     LO(2), 0, V(2)),
    # a whole-register store reads the whole register
    ("SCRATCH_STORE_DWORD_ST killed $vgpr2, 1400, 0, implicit $exec, implicit $flat_scr",
     V(2), 0, V(2)),
    # a true16 store names its half itself
    ("DS_WRITE_B16_t16 $vgpr80, $vgpr79_lo16, 0, 0, implicit $exec",
     V(80) | LO(79), 0, V(80) | LO(79)),
    # d16 load: writes its half; the tied input is no read (the address is)
    ("renamable $vgpr54 = DS_READ_U16_D16_HI renamable $vgpr252, 5632, 0, killed renamable $vgpr54, "
     "implicit $exec", V(252), HI(54), V(252) | V(54)),
]


def main():
    bad = 0
    for line, hw_reads, hw_writes, llvm_reads in CASES:
        ins = parse_instr(line)
        r, w = effects(ins, "hw")
        lr, _ = effects(ins, "llvm")
        if (r, lr) != (hw_reads, llvm_reads) or (hw_writes and w != hw_writes):
            print("test_mir_model: FAIL: %s\n  hw reads %x (want %x), writes %x (want %x), "
                  "llvm reads %x (want %x)" % (line[:80], r, hw_reads, w, hw_writes, lr, llvm_reads))
            bad += 1
    print("test_mir_model: %s: %d cases" % ("FAIL" if bad else "ok", len(CASES)))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""Writes analyzer/text/asm_vop32.def: the VALU mnemonics that have a 32-bit
(VOP1, VOP2 or VOPC) encoding on some target treg reads, as LLVM's own
disassembler names them.  Every opcode value of the three formats is
disassembled (llvm-mc --disassemble) for each target; the names printed with
_e32 are the ones a bare mnemonic in hand-written text may assemble to in 4
bytes (text/asm_size.c picks the shortest legal encoding, as the assembler
does).  A maintainer's tool: run it again when a target is added.

usage: scripts/gen-vop32.py [LLVM_MC] > analyzer/text/asm_vop32.def
"""
import re
import struct
import subprocess
import sys

mc = sys.argv[1] if len(sys.argv) > 1 else "llvm-mc-22"
targets = ["gfx906", "gfx908", "gfx90a", "gfx942", "gfx950", "gfx1100"]
words = []
for op in range(64):  # VOP2: op[30:25], vdst v2, vsrc1 v1, src0 v0
    words.append((op << 25) | (2 << 17) | (1 << 9) | 256)
for op in range(256):  # VOP1: 0x3f[31:25], vdst v2, op[16:9], src0 v0
    words.append((0x3F << 25) | (2 << 17) | (op << 9) | 256)
for op in range(256):  # VOPC: 0x3e[31:25], op[24:17], vsrc1 v1, src0 v0
    words.append((0x3E << 25) | (op << 17) | (1 << 9) | 256)
data = " ".join("0x%02x" % b for w in words for b in struct.pack("<I", w))
names = {}  # name -> generations: 1 GFX9 (and Hygon's), 2 GFX10+
for cpu in targets:
    out = subprocess.run([mc, "--disassemble", "-triple=amdgcn-amd-amdhsa", "-mcpu=" + cpu],
                         input=data, capture_output=True, text=True, check=True).stdout
    gen = 2 if len(cpu) >= 7 else 1  # gfx1100: four digits
    for m in re.finditer(r"^\s*(v_\w+)_e32\b", out, re.M):
        names[m.group(1)] = names.get(m.group(1), 0) | gen
print("/* VALU mnemonics with a 32-bit encoding (VOP1/VOP2/VOPC), sorted by strcmp, with")
print(" * the generations that have it (1: GFX9, 2: GFX10+): written by")
print(" * scripts/gen-vop32.py from %s on %s. */" % (mc, ", ".join(targets)))
for n in sorted(names):
    print('VOP32("%s", %d)' % (n, names[n]))

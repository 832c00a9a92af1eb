#!/usr/bin/env bash
# A gfx928 Triton-HCU kernel that uses the matrix cores, end to end: its code
# object holds v_mmac_* and ds_read_m32x16_b16 words that Debian's LLVM cannot
# decode, and its .amdgcn lies beside it, as in a Hygon Triton cache entry.
#
# The code object is made the way AMDGPU-NOTES.md describes ("Hygon code as
# DTK and Triton-HCU produce it"), with upstream tools only: the loop in
# data/hygon_mmac_loop.standin.s is assembled for gfx906 with 8-byte
# stand-ins in the places of the Hygon instructions (v_pk_fma_f16 for
# v_mmac_f32_16x16x16_f16, ds_read_b128 for ds_read_m32x16_b16), then each
# stand-in's opcode field is set to one gfx906 has no instruction for (VOP3P
# 0x40, DS 0xfd), EF_AMDGPU_MACH to 0 and the note's target to gfx928.  Its
# .amdgcn is the same text with the Hygon mnemonics, as DTK prints them.
#
# The expected VGPR peak, by hand: in the loop, before the mmacs, live are
# the accumulators v[0:7] (8), the B fragments v[16:19] (4), the A fragment
# v[20:23] the ds_read_m32x16_b16 writes (4), and the LDS addresses v40, v41
# (2): 18.  (The second mmac's A is v[22:23]; the third reads v[20:21] and
# v[18:19], so all of v[16:23] stay live through the second mmac.)
#
# Checked: with the .amdgcn beside it, and through tregc/tregd, the peak is
# 18, the instructions are "code object + assembly" with 4 from the text and
# no word left undecoded; the text alone gives the same report; the code
# object alone is marked a lower bound in text and JSON, with 4 undecodable
# words and the first one's offset, and no bogus instruction decoded from a
# Hygon word's second dword.
set -uo pipefail
prog=test_hygon_assembly.sh
# shellcheck source=tests/cli/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
require_analyzer
MC=${MC:-llvm-mc-22}
LLD=${LLD:-ld.lld-22}
command -v "$MC" >/dev/null || skip "$MC not found (Debian's llvm-22)"
command -v "$LLD" >/dev/null || skip "$LLD not found (Debian's lld-22)"
command -v python3 >/dev/null || skip "python3 not found"
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
out=${TREG_TEST_OUTPUT:-${TMPDIR:-/tmp}}/hygon_assembly
rm -rf "$out"
mkdir -p "$out/entry"
standin=$here/data/hygon_mmac_loop.standin.s

"$MC" -triple=amdgcn-amd-amdhsa -mcpu=gfx906 -filetype=obj "$standin" -o "$out/k.o" 2>"$out/mc.err" ||
  fail "$MC: $(head -c 300 "$out/mc.err")"
"$LLD" -shared "$out/k.o" -o "$out/standin.hsaco" || fail "$LLD failed"

# The code object: stand-ins become words gfx906 cannot decode.
python3 - "$out/standin.hsaco" "$out/entry/k.hsaco" <<'PY' || fail "patching the stand-ins failed"
import struct, sys
b = bytearray(open(sys.argv[1], "rb").read())
def swap(old, new, count):
    n = 0
    i = b.find(old)
    while i >= 0:
        b[i:i + len(new)] = new
        n += 1
        i = b.find(old, i + len(new))
    assert n == count, (old.hex(), n)
w = lambda *ws: b"".join(struct.pack("<I", x) for x in ws)
# v_pk_fma_f16 vD, vA, vB, vC (VOP3P op 0x0e) -> VOP3P op 0x40
swap(w(0xd38e4000, 0x1c022114), w(0xd3c04000, 0x1c022114), 1)  # v0, v20, v16, v0
swap(w(0xd38e4004, 0x1c122116), w(0xd3c04004, 0x1c122116), 1)  # v4, v22, v16, v4
swap(w(0xd38e4000, 0x1c022514), w(0xd3c04000, 0x1c022514), 1)  # v0, v20, v18, v0
# ds_read_b128 v[20:23], v40 (DS op 0xff) -> DS op 0xfd
swap(w(0xd9fe0000, 0x14000028), w(0xd9fa0000, 0x14000028), 1)
assert b[48] == 0x2f, hex(b[48])  # EF_AMDGPU_MACH gfx906
b[48] = 0
swap(b"amdgcn-amd-amdhsa--gfx906", b"amdgcn-amd-amdhsa--gfx928", 1)
open(sys.argv[2], "wb").write(b)
PY

# Its assembly, as DTK prints it.
sed -e 's/--gfx906"/--gfx928"/' \
  -e 's/v_pk_fma_f16 v0, v20, v16, v0/v_mmac_f32_16x16x16_f16 v[0:3], v[20:21], v[16:17], v[0:3]/' \
  -e 's/v_pk_fma_f16 v4, v22, v16, v4/v_mmac_f32_16x16x16_f16 v[4:7], v[22:23], v[16:17], v[4:7]/' \
  -e 's/v_pk_fma_f16 v0, v20, v18, v0/v_mmac_f32_16x16x16_f16 v[0:3], v[20:21], v[18:19], v[0:3]/' \
  -e 's/ds_read_b128 v\[20:23\], v40/ds_read_m32x16_b16 v[20:23], v40/' \
  -e 's/amdhsa.target:   amdgcn-amd-amdhsa--gfx906/amdhsa.target:   amdgcn-amd-amdhsa--gfx928/' \
  "$standin" >"$out/entry/k.amdgcn"
[[ $(grep -c 'v_mmac\|ds_read_m32' "$out/entry/k.amdgcn") -eq 4 ]] || fail "the Hygon text lacks its 4 instructions"

# json FILE: the first kernel's fields, as "key=value" lines.
fields() {
  python3 - "$1" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
r = d["reports"][0]
k = r["kernels"][0]
print("target=%s" % r["target"])
print("peak=%d" % k["vgpr"]["peak_live"])
print("source=%s" % k.get("instruction_source", ""))
print("text=%d" % k["text_instructions"])
print("undecodable=%d" % k["undecodable_words"])
print("first=%d" % k.get("first_undecodable", -1))
print("unknown=%d" % k["unknown_instructions"])
print("undefined=%d" % k["undefined_reads"])
print("bogus=%d" % sum(1 for row in k["rows"] if row["text"].startswith("v_min_")))
print("lower_bound=%s" % k["lower_bound"])
PY
}
expect() { # FIELDS-FILE KEY VALUE LABEL
  local got
  got=$(sed -n "s/^$2=//p" "$1")
  [[ $got == "$3" ]] || fail "$4: $2 is '$got', expected '$3'"
}

# With the .amdgcn beside it: every word supplied.
"$TREG_ANALYZE" --format json "$out/entry/k.hsaco" >"$out/mixed.json" 2>"$out/mixed.err" ||
  fail "code object + assembly: $(cat "$out/mixed.err")"
fields "$out/mixed.json" >"$out/mixed.f"
expect "$out/mixed.f" target gfx928 "code object + assembly"
expect "$out/mixed.f" peak 18 "code object + assembly"
expect "$out/mixed.f" source "code object + assembly" "code object + assembly"
expect "$out/mixed.f" text 4 "code object + assembly"
expect "$out/mixed.f" undecodable 0 "code object + assembly"
expect "$out/mixed.f" unknown 0 "code object + assembly"
expect "$out/mixed.f" undefined 0 "code object + assembly"
expect "$out/mixed.f" lower_bound False "code object + assembly"
"$TREG_ANALYZE" "$out/entry/k.hsaco" >"$out/mixed.txt" 2>&1
grep -q "4 instructions from the assembly text" "$out/mixed.txt" ||
  fail "code object + assembly: the text view does not say 4 instructions came from the text: $(cat "$out/mixed.txt")"
grep -q "lower bound" "$out/mixed.txt" && fail "code object + assembly: marked a lower bound"
echo "$prog: ok: code object + assembly: VGPR peak 18, 4 instructions from the text"

# The text alone: the same report.
"$TREG_ANALYZE" --format json "$out/entry/k.amdgcn" >"$out/text.json" 2>"$out/text.err" ||
  fail "assembly alone: $(cat "$out/text.err")"
fields "$out/text.json" >"$out/text.f"
expect "$out/text.f" peak 18 "assembly alone"
expect "$out/text.f" source assembly "assembly alone"
diff=$(python3 "$here/compare_reports.py" "$out/mixed.json" "$out/text.json") ||
  fail "assembly alone and code object + assembly differ: $diff"
echo "$prog: ok: the assembly alone gives the same report"

# The code object alone: a lower bound, said everywhere.
"$TREG_ANALYZE" --no-assembly --format json "$out/entry/k.hsaco" >"$out/binary.json" 2>"$out/binary.err" ||
  fail "code object alone: $(cat "$out/binary.err")"
fields "$out/binary.json" >"$out/binary.f"
expect "$out/binary.f" undecodable 4 "code object alone"
expect "$out/binary.f" first 68 "code object alone" # ds_read_m32x16_b16: 8 + 2*4 + 8*4 + 4 + 8 + 8
expect "$out/binary.f" bogus 0 "code object alone"
expect "$out/binary.f" text 0 "code object alone"
expect "$out/binary.f" lower_bound True "code object alone"
peak=$(sed -n 's/^peak=//p' "$out/binary.f")
((peak < 18)) || fail "code object alone: VGPR peak $peak, expected below the true 18 (widths unknown)"
"$TREG_ANALYZE" --no-assembly "$out/entry/k.hsaco" >"$out/binary.txt" 2>&1
grep -q "WARNING: lower bound: 4 words could not be decoded as gfx906, the first at +0x44" "$out/binary.txt" ||
  fail "code object alone: no lower-bound warning: $(cat "$out/binary.txt")"
grep -Eq "VGPR peak live +[0-9]+ \(at least\)" "$out/binary.txt" ||
  fail "code object alone: the VGPR peak is not marked 'at least': $(cat "$out/binary.txt")"
echo "$prog: ok: the code object alone: a lower bound (VGPR $peak of 18), 4 words, the first at +0x44"

# A gfx928 note on a MACH upstream gives gfx940 (0x40): the name wins, said.
mkdir -p "$out/mach"
python3 -c 'import sys; b = bytearray(open(sys.argv[1], "rb").read()); b[48] = 0x40
open(sys.argv[2], "wb").write(b)' "$out/entry/k.hsaco" "$out/mach/k.hsaco"
cp "$out/entry/k.amdgcn" "$out/mach/k.amdgcn"
"$TREG_ANALYZE" "$out/mach/k.hsaco" >"$out/mach.txt" 2>&1 || fail "MACH 0x40: $(cat "$out/mach.txt")"
head -n1 "$out/mach.txt" | grep -q ": gfx928 (decoded as gfx906)" ||
  fail "MACH 0x40 with a gfx928 note did not stay gfx928: $(head -n1 "$out/mach.txt")"
tr '\n' ' ' <"$out/mach.txt" | grep -q "EF_AMDGPU_MACH 0x40 is gfx940 upstream, but the metadata names *gfx928: analyzed as gfx928" ||
  fail "MACH 0x40 with a gfx928 note: the disagreement is not reported: $(head -n5 "$out/mach.txt")"
echo "$prog: ok: a gfx928 note on MACH 0x40 (gfx940 upstream) stays gfx928, and the report says so"

# The compiler's own count where it differs from treg's: DTK's clang counts no
# XNACK_MASK pair (AMDGPU-NOTES.md); both are shown.  And the trailer's
# occupancy, when it disagrees.
mkdir -p "$out/dtk"
sed -e 's/\.sgpr_count:     15/.sgpr_count:     13/' "$out/entry/k.amdgcn" >"$out/dtk/k.amdgcn"
printf '\t.text\n; Kernel info:\n; Occupancy: 7\n' >>"$out/dtk/k.amdgcn"
"$TREG_ANALYZE" "$out/dtk/k.amdgcn" >"$out/dtk.txt" 2>&1 || fail "the DTK-count variant: $(cat "$out/dtk.txt")"
# no .amdhsa_reserve_* directive: the assembler's defaults reserve VCC and
# FLAT_SCRATCH (6 with the XNACK_MASK between them) above s0..s10
grep -q "SGPRs: the compiler's metadata says 13 (.sgpr_count), treg counts 17 = 11" "$out/dtk.txt" ||
  fail "the compiler's .sgpr_count is not shown beside treg's: $(cat "$out/dtk.txt")"
# the explanation fits 100 columns by wrapping, every word of it kept
awk 'length($0) > 100 { bad = bad NR ": " $0 "\n" } END { if (bad) { printf "%s", bad; exit 1 } }' \
  "$out/dtk.txt" || fail "a line of the summary is wider than 100 columns"
tr '\n' ' ' <"$out/dtk.txt" | tr -s ' ' |
  grep -q "6 reserved (VCC, XNACK_MASK, FLAT_SCRATCH): the compiler counts 2 extra SGPRs where treg counts 6 (VCC, XNACK_MASK and FLAT_SCRATCH by the assembler's defaults (no .amdhsa_reserve_\* directive))" ||
  fail "the SGPR explanation is cut or wrong: $(grep -A3 'SGPRs:' "$out/dtk.txt")"
grep -q "WARNING: the assembly's trailer says occupancy 7, treg computes" "$out/dtk.txt" ||
  fail "the trailer's occupancy is not cross-checked: $(cat "$out/dtk.txt")"
echo "$prog: ok: the compiler's .sgpr_count beside treg's, the trailer's occupancy checked"

# DTK's own shape (issue 25): a kernel numbering s0..s5 that reserves no VCC
# and no FLAT_SCRATCH but the XNACK mask, DTK's .sgpr_count 6.  The
# descriptor reserves 4 above s5, not 2: VCC lies below XNACK_MASK in one
# block at the file's top, so reserving the mask covers it
# (getNumExtraSGPRs); llvm-mc encodes that descriptor with 10 SGPRs, i.e.
# GRANULATED_WAVEFRONT_SGPR_COUNT 1 (9..16), where 8 would give 0.
mkdir -p "$out/reserve"
reserve_kernel() { # TARGET-ID
  sed -e "s/@TARGET@/$1/" <<'EOF'
	.amdgcn_target "amdgcn-amd-amdhsa--@TARGET@"
	.amdhsa_code_object_version 5
	.text
	.globl	r
	.p2align	8
	.type	r,@function
r:
	s_load_dwordx2 s[2:3], s[0:1], 0x0
	s_mov_b32 s5, s4
	s_waitcnt lgkmcnt(0)
	v_mov_b32_e32 v1, s5
	global_store_dword v0, v1, s[2:3]
	s_endpgm
.Lfunc_end0:
	.size	r, .Lfunc_end0-r

	.rodata
	.p2align	6
	.amdhsa_kernel r
		.amdhsa_user_sgpr_kernarg_segment_ptr 1
		.amdhsa_system_sgpr_workgroup_id_x 1
		.amdhsa_next_free_vgpr 2
		.amdhsa_next_free_sgpr 6
		.amdhsa_reserve_vcc 0
		.amdhsa_reserve_flat_scratch 0
		.amdhsa_reserve_xnack_mask 1
	.end_amdhsa_kernel

	.amdgpu_metadata
---
amdhsa.kernels:
  - .name:           r
    .symbol:         r.kd
    .kernarg_segment_size: 8
    .max_flat_workgroup_size: 256
    .sgpr_count:     6
    .vgpr_count:     2
    .wavefront_size: 64
amdhsa.target:   amdgcn-amd-amdhsa--@TARGET@
amdhsa.version:
  - 1
  - 2
...
	.end_amdgpu_metadata
EOF
}
reserve_kernel gfx928:xnack+ >"$out/reserve/r.amdgcn"
"$TREG_ANALYZE" "$out/reserve/r.amdgcn" >"$out/reserve.txt" 2>&1 || fail "reserve_vcc 0: $(cat "$out/reserve.txt")"
tr '\n' ' ' <"$out/reserve.txt" | tr -s ' ' |
  grep -q "SGPRs: the compiler's metadata says 6 (.sgpr_count), treg counts 10 = 6 numbered + 4 reserved (VCC, XNACK_MASK): the compiler counts the 6 numbered SGPRs only; the descriptor also reserves 4 at the top of the file: VCC and XNACK_MASK as its .amdhsa_reserve_\* directives ask (VCC because it lies below the ones reserved)" ||
  fail "reserve_vcc 0 + reserve_xnack_mask 1: $(grep -A3 'SGPRs' "$out/reserve.txt")"
"$TREG_ANALYZE" --format json "$out/reserve/r.amdgcn" | python3 -c '
import json, sys
k = json.load(sys.stdin)["reports"][0]["kernels"][0]
got = (k["sgpr"]["allocated"], k["sgpr_numbered"], k["sgpr_reserved"], k["sgpr_reserved_by"], k["metadata"]["sgpr_count"])
assert got == (10, 6, ["VCC", "XNACK_MASK"], "directives", 6), got
' || fail "reserve_vcc 0: the JSON's SGPR parts"
# the same descriptor, as upstream's assembler encodes it (gfx906, xnack on)
reserve_kernel gfx906:xnack+ | sed "/^\t.amdgpu_metadata/,/^\t.end_amdgpu_metadata/d" >"$out/reserve/r906.s"
"$MC" -triple=amdgcn-amd-amdhsa -mcpu=gfx906 -mattr=+xnack -filetype=obj "$out/reserve/r906.s" \
  -o "$out/reserve/r906.o" 2>"$out/reserve/mc.err" || fail "$MC: $(head -c 300 "$out/reserve/mc.err")"
python3 - "$out/reserve/r906.o" <<'PY' || fail "llvm-mc's descriptor does not reserve 9..16 SGPRs"
import struct, sys
b = open(sys.argv[1], "rb").read()
# .rodata holds the 64-byte descriptor; COMPUTE_PGM_RSRC1 at byte 48, SGPR blocks in [9:6]
shoff, = struct.unpack_from("<Q", b, 0x28)
shentsize, shnum, shstrndx = struct.unpack_from("<HHH", b, 0x3a)
secs = [struct.unpack_from("<IIQQQQIIQQ", b, shoff + i * shentsize) for i in range(shnum)]
strtab = secs[shstrndx]
def name(s):
    at = strtab[4] + s[0]
    return b[at:b.index(b"\0", at)].decode()
ro = next(s for s in secs if name(s) == ".rodata")
rsrc1, = struct.unpack_from("<I", b, ro[4] + 48)
blocks = (rsrc1 >> 6) & 0xf
assert blocks == 1, f"GRANULATED_WAVEFRONT_SGPR_COUNT {blocks}: up to {(blocks + 1) * 8} SGPRs"
PY
echo "$prog: ok: reserve_vcc 0 + reserve_xnack_mask 1: treg 10 = 6 + VCC and XNACK_MASK, as llvm-mc encodes it; DTK's 6 explained"

# Through tregc and tregd: the upload carries the .amdgcn, the server's
# worker reads it as treg-analyze does.
build=$(cd "$(dirname "$TREG_ANALYZE")/.." && pwd)
TREGD=${TREGD:-$build/server/tregd}
TREGC=${TREGC:-$build/client/tregc}
if [[ -x $TREGD && -x $TREGC ]] && command -v openssl >/dev/null && command -v setsid >/dev/null; then
  start_tregd "$out" --workers 1
  tregc_to --format json upload "$out/entry/k.hsaco" >"$out/served.json" 2>"$out/tregc.err" ||
    fail "tregc upload: $(cat "$out/tregc.err"; tail -n3 "$out/tregd.log")"
  fields "$out/served.json" >"$out/served.f"
  expect "$out/served.f" peak 18 "tregc/tregd"
  expect "$out/served.f" source "code object + assembly" "tregc/tregd"
  expect "$out/served.f" undecodable 0 "tregc/tregd"
  stop_tregd
  echo "$prog: ok: tregc upload to tregd: VGPR peak 18, code object + assembly"
else
  echo "$prog: note: tregd/tregc or openssl not available; the served case skipped"
fi
echo "$prog: PASS"

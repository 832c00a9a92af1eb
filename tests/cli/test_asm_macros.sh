#!/usr/bin/env bash
# A gfx936 kernel written with the assembler's macros, as Hygon's hand-written
# (Tensile-style) kernels are, end to end: data/hygon_mmac_macros.s names its
# registers with .set symbols, makes its four v_mmac_f32_16x16x16_f16 with a
# macro inside a .rept counting with .set, zeroes its accumulators with
# another, stores with an .irp and keeps a debug block behind .if;
# data/hygon_mmac_macros.expanded.s is the same kernel written out by hand.
#
# The expected VGPR peak, by hand: in the loop, after the three LDS reads,
# live are the 16 accumulators v[0:15] (carried round the loop), the A
# fragments v[16:19] and B fragments v[20:23] the reads wrote (8), and the
# LDS addresses v24, v25 (read again next time round): 26.  (After the
# second v_mmac v[16:17] is dead; the debug block, which would make v40
# live, is not assembled.)
#
# Checked: both give that peak and the same report, row for row
# (compare_reports.py, as text and code object are compared); LLVM's own
# assembler expands the macro text into the hand-written instructions too
# (llvm-mc-22, with gfx90a's v_mfma in the v_mmac's place, where it is
# installed); an error inside an expansion names the line that made it; LLVM's
# own output read through the macro layer gives the report it gives without
# (tests/data's Triton .amdgcn texts); a bound passed is one line naming the
# file, the line and the bound.
set -uo pipefail
prog=test_asm_macros.sh
# shellcheck source=tests/cli/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
require_analyzer
command -v python3 >/dev/null || skip "python3 not found"
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
out=${TREG_TEST_OUTPUT:-${TMPDIR:-/tmp}}/asm_macros
rm -rf "$out"
mkdir -p "$out"
macros=$here/data/hygon_mmac_macros.s
written=$here/data/hygon_mmac_macros.expanded.s

# fields FILE: the first kernel's figures, as "key=value" lines.
fields() {
  python3 - "$1" <<'PY'
import json, sys
k = json.load(open(sys.argv[1]))["reports"][0]["kernels"][0]
print("peak=%d" % k["vgpr"]["peak_live"])
print("allocated=%d" % k["vgpr"]["allocated"])
print("rows=%d" % len(k["rows"]))
print("mmac=%d" % sum(1 for r in k["rows"] if r["text"].startswith("v_mmac_f32_16x16x16_f16 ")))
print("unknown=%d" % k["unknown_instructions"])
print("undefined=%d" % k["undefined_reads"])
print("source=%s" % k.get("instruction_source", ""))
PY
}
expect() { # FIELDS-FILE KEY VALUE LABEL
  local got
  got=$(sed -n "s/^$2=//p" "$1")
  [[ $got == "$3" ]] || fail "$4: $2 is '$got', expected '$3'"
}

for side in macros written; do
  file=$macros
  [[ $side == written ]] && file=$written
  "$TREG_ANALYZE" --format json "$file" >"$out/$side.json" 2>"$out/$side.err" ||
    fail "$side: $(head -c 400 "$out/$side.err")"
  fields "$out/$side.json" >"$out/$side.f" || fail "$side: the JSON report could not be read"
  expect "$out/$side.f" peak 26 "$side"
  expect "$out/$side.f" rows 37 "$side"
  expect "$out/$side.f" mmac 4 "$side"
  expect "$out/$side.f" unknown 0 "$side"
  expect "$out/$side.f" undefined 0 "$side"
  expect "$out/$side.f" source assembly "$side"
done
diff=$(python3 "$here/compare_reports.py" "$out/written.json" "$out/macros.json") ||
  fail "the macro kernel and the kernel written out differ: $diff"
echo "$prog: ok: macros and the kernel written out: one report, VGPR peak 26 (allocated $(sed -n 's/^allocated=//p' "$out/macros.f")), 37 rows, 4 v_mmac"

# LLVM's assembler on the same text: the instructions it assembles from the
# macros are the ones written out (the code only; gfx90a's v_mfma stands in
# for the v_mmac upstream does not know).
MC=${MC:-llvm-mc-22}
if command -v "$MC" >/dev/null; then
  for side in macros written; do
    file=$macros
    [[ $side == written ]] && file=$written
    sed -e '/^\.Lfunc_end0:/,$d' -e 's/--gfx936"/--gfx90a"/' \
      -e 's/v_mmac_f32_16x16x16_f16/v_mfma_f32_16x16x16f16/' "$file" >"$out/$side.mc.s"
    "$MC" -triple=amdgcn-amd-amdhsa -mcpu=gfx90a "$out/$side.mc.s" >"$out/$side.mc.out" 2>"$out/$side.mc.err" ||
      fail "$MC on the $side text: $(head -c 300 "$out/$side.mc.err")"
    grep -E '^[[:space:]]+[a-z][a-z0-9_]*([[:space:]]|$)' "$out/$side.mc.out" | grep -Ev '^[[:space:]]+\.' >"$out/$side.mc.insns"
  done
  [[ $(wc -l <"$out/written.mc.insns") -eq 37 ]] || fail "$MC assembled $(wc -l <"$out/written.mc.insns") instructions of the written-out kernel, not 37"
  cmp -s "$out/macros.mc.insns" "$out/written.mc.insns" ||
    fail "$MC expands the macros otherwise: $(diff "$out/written.mc.insns" "$out/macros.mc.insns" | head -5)"
  echo "$prog: ok: $MC assembles the same 37 instructions from the macros"
else
  echo "$prog: note: $MC not found; LLVM's own expansion not compared"
fi

# An error inside an expansion names the line that made it: the .rept of the
# v_mmac tile (the macro is invoked from inside it).
rept_line=$(grep -n '^	\.rept 4$' "$macros" | cut -d: -f1)
[[ -n $rept_line ]] || fail "no '.rept 4' line in $macros"
sed 's/^	v_mmac_f32_16x16x16_f16 v\[\\acc/	xyzzy_b32 v[\\acc/' "$macros" >"$out/bad.s"
"$TREG_ANALYZE" "$out/bad.s" >"$out/bad.txt" 2>&1 && fail "an unknown mnemonic in a macro was accepted"
grep -q "bad.s:$rept_line: unknown mnemonic 'xyzzy_b32'" "$out/bad.txt" ||
  fail "an error in an expansion does not name line $rept_line: $(cat "$out/bad.txt")"
# ... and one after the expansions, its own line
last_line=$(grep -n '^	s_endpgm$' "$macros" | cut -d: -f1)
sed "${last_line}s/s_endpgm/xyzzy_s/" "$macros" >"$out/bad2.s"
"$TREG_ANALYZE" "$out/bad2.s" >"$out/bad2.txt" 2>&1 && fail "an unknown mnemonic was accepted"
grep -q "bad2.s:$last_line: unknown mnemonic 'xyzzy_s'" "$out/bad2.txt" ||
  fail "an error after the expansions does not name line $last_line: $(cat "$out/bad2.txt")"
echo "$prog: ok: errors name the lines as written (line $rept_line for the expanded tile, $last_line after it)"

# LLVM's own output through the macro layer: tests/data's Triton .amdgcn
# texts (their .loc lines, inlined-call comments, trailers, metadata) with
# an empty .if appended, which makes them go through it, give the reports
# they give on the direct path (each beside its entry's other files, the
# .ttgir the report also reads).
texts=0
for f in "$TREG_SOURCE_ROOT"/tests/data/triton-cache/*/*.amdgcn; do
  [[ -f $f ]] || continue
  texts=$((texts + 1))
  entry=$out/llvm/$(basename "$(dirname "$f")")
  mkdir -p "$entry"
  cp "$(dirname "$f")"/* "$entry/"
  chmod u+w "$entry"/*
  printf '.if 1\n.endif\n' >>"$entry/$(basename "$f")"
  "$TREG_ANALYZE" --format json "$f" >"$out/direct.json" 2>"$out/direct.err" ||
    fail "$f: $(head -c 300 "$out/direct.err")"
  "$TREG_ANALYZE" --format json "$entry/$(basename "$f")" >"$out/expanded.json" 2>"$out/expanded.err" ||
    fail "$f through the macro layer: $(head -c 300 "$out/expanded.err")"
  diff=$(python3 "$here/compare_reports.py" "$out/direct.json" "$out/expanded.json" --max 5) ||
    fail "$f: the macro layer changes its report: $diff"
done
((texts > 0)) || fail "no .amdgcn under $TREG_SOURCE_ROOT/tests/data/triton-cache"
echo "$prog: ok: $texts Triton .amdgcn texts give the same report through the macro layer"

# A bound: a macro that calls itself stops at 20 levels, in one line.
printf '.macro again\n\tagain\n.endm\n\tagain\n' | cat "$macros" - >"$out/deep.s"
deep_line=$(wc -l <"$out/deep.s")
"$TREG_ANALYZE" "$out/deep.s" >"$out/deep.txt" 2>&1 && fail "a macro calling itself was accepted"
grep -q "deep.s:$deep_line: macro, .rept and .irp expansions nested more than 20 levels deep" "$out/deep.txt" ||
  fail "a macro calling itself: $(cat "$out/deep.txt")"
[[ $(wc -l <"$out/deep.txt") -eq 1 ]] || fail "the bound's message is not one line: $(cat "$out/deep.txt")"
echo "$prog: ok: a macro calling itself stops at 20 levels, in one line"
echo "$prog: PASS"

#!/usr/bin/env bash
# The assembly text front end against the code object, kernel by kernel:
# treg-analyze on a kernel's assembly alone and on its code object alone must
# give the same report — every row (address, live counts, flags, reads,
# writes, source line), the peaks, the attribution, the loops, allocation and
# occupancy — except which source it names and the printed forms of one
# encoding (tests/cli/compare_reports.py says which).
#   - the shared corpus: each Triton cache entry's .amdgcn against its own
#     .hsaco (Triton's LLVM emitted both); all targets;
#   - the fixtures: each .s/.amdgcn against the code object llvm-mc-22 and
#     ld.lld-22 assemble from it, as Hygon's Triton assembles its .hsaco from
#     the .amdgcn.  (llc's own objects differ in one place text cannot tell:
#     the line of alignment padding after a branch, which codegen gives the
#     .loc before the padding and the assembler the one after.)
# Then bad text: one line naming the file and line, a non-zero exit.
set -uo pipefail
prog=test_text_front_end.sh
# shellcheck source=tests/cli/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
require_analyzer
compare=$TREG_SOURCE_ROOT/tests/cli/compare_reports.py
out=${TREG_TEST_OUTPUT:-${TMPDIR:-/tmp}}/text_front_end
rm -rf "$out"
mkdir -p "$out"
command -v python3 >/dev/null || skip "python3 not found"

failures=0
compared=0
newer=0 # code objects the linked LLVM cannot decode: the text alone is checked
# same TEXT BINARY LABEL: the two reports must match.
same() {
  local binary_ok=1
  if ! "$TREG_ANALYZE" --no-assembly --format json "$2" >"$out/binary.json" 2>"$out/binary.err"; then
    if needs_newer_llvm "$out/binary.err" >/dev/null; then
      binary_ok=0
      newer=$((newer + 1))
    else
      echo "$prog: FAIL: $3: treg-analyze on the code object: $(head -c 300 "$out/binary.err")"
      failures=$((failures + 1))
      return
    fi
  fi
  "$TREG_ANALYZE" --format json "$1" >"$out/text.json" 2>"$out/text.err" ||
    { echo "$prog: FAIL: $3: treg-analyze on the text: $(head -c 300 "$out/text.err")"; failures=$((failures + 1)); return; }
  grep -Eq '"instruction_source": ?"assembly"' "$out/text.json" ||
    { echo "$prog: FAIL: $3: the text's report does not say its instructions came from the assembly"; failures=$((failures + 1)); return; }
  local diff
  ((binary_ok)) || return 0
  if ! diff=$(python3 "$compare" "$out/binary.json" "$out/text.json" --max 5); then
    echo "$prog: FAIL: $3: text and code object differ:"
    echo "$diff"
    failures=$((failures + 1))
  fi
  compared=$((compared + 1))
}

# --- the corpus -------------------------------------------------------------
corpus_kernels=0
if [[ -d $TREG_CORPUS ]]; then
  while IFS= read -r h; do
    [[ -f ${h%.hsaco}.amdgcn ]] || continue
    same "${h%.hsaco}.amdgcn" "$h" "corpus ${h#"$TREG_CORPUS"/}"
    corpus_kernels=$((corpus_kernels + 1))
  done < <(find "$TREG_CORPUS" -name '*.hsaco' | sort)
else
  echo "$prog: note: no corpus at $TREG_CORPUS; fixtures only"
fi

# --- the fixtures, assembled from their text --------------------------------
fx=${TREG_FIXTURES:-}
[[ -d $fx ]] || skip "no fixtures at ${fx:-(TREG_FIXTURES unset)}"
MC=${MC:-llvm-mc-22}
LLD=${LLD:-ld.lld-22}
command -v "$MC" >/dev/null || skip "$MC not found (Debian's llvm-22)"
command -v "$LLD" >/dev/null || skip "$LLD not found (Debian's lld-22)"
fixture_kernels=0
while IFS= read -r s; do
  rel=${s#"$fx"/}
  arch=$(sed -n 's/^[[:space:]]*\.amdgcn_target "amdgcn-amd-amdhsa--\(gfx[0-9a-f]*\).*/\1/p' "$s" | head -1)
  [[ -n $arch ]] || continue
  base=$out/$(tr / _ <<<"${rel%.*}")
  if ! "$MC" -triple=amdgcn-amd-amdhsa -mcpu="$arch" -filetype=obj "$s" -o "$base.o" 2>"$out/mc.err" ||
    ! "$LLD" -shared "$base.o" -o "$base.hsaco" 2>>"$out/mc.err"; then
    fail "$rel: $MC/$LLD could not assemble it: $(head -c 300 "$out/mc.err")"
  fi
  if [[ -f ${s%.*}.json ]]; then cp "${s%.*}.json" "$base.json"; fi # Triton's metadata, for both
  same "$s" "$base.hsaco" "fixture $rel"
  fixture_kernels=$((fixture_kernels + 1))
done < <(find "$fx" \( -name '*.s' -o -name '*.amdgcn' \) -not -path '*/bad/*' | sort)
((fixture_kernels > 0)) || fail "no fixture text found under $fx"

# --- hand-written text: bare VALU mnemonics ---------------------------------
# v_mov_b32 with no _e32: the assembler picks the shortest legal encoding
# (4 bytes where VOP1/VOP2/VOPC can hold the operands, 8 where a modifier, an
# SGPR in vsrc1 or a non-VCC carry needs VOP3); the text's rows must name and
# place every instruction as the assembled code object does.
bare=$TREG_SOURCE_ROOT/tests/cli/data/bare_mnemonics.s
mkdir -p "$out/bare"
if ! "$MC" -triple=amdgcn-amd-amdhsa -mcpu=gfx906 -mattr=-xnack -filetype=obj "$bare" -o "$out/bare/b.o" 2>"$out/mc.err" ||
  ! "$LLD" -shared "$out/bare/b.o" -o "$out/bare/b.hsaco" 2>>"$out/mc.err"; then
  fail "bare_mnemonics.s: $MC/$LLD could not assemble it: $(head -c 300 "$out/mc.err")"
fi
cp "$bare" "$out/bare/b.s"
before=$failures
same "$out/bare/b.s" "$out/bare/b.hsaco" "hand-written bare mnemonics"
((failures == before)) || fail "bare mnemonics: the text's layout is not the assembler's (see above)"
python3 - "$out/text.json" <<'PY' || fail "bare mnemonics: unknown instructions or wrong encodings"
import json, sys
k = json.load(open(sys.argv[1]))["reports"][0]["kernels"][0]
assert k["unknown_instructions"] == 0, k["unknown_instructions"]
rows = {r["address"]: r["text"].split()[0] for r in k["rows"]}
# 4-byte forms: v_mov_b32 v1, v0 at 0, the literal move at 4 (8 bytes), then v_add_f32 at 12
assert rows[0] == "v_mov_b32_e32" and rows[4] == "v_mov_b32_e32" and rows[12] == "v_add_f32_e32", rows
assert k["code_bytes"] == 116, k["code_bytes"]  # with the .align32 s_nop
PY
echo "$prog: ok: hand-written bare mnemonics laid out and named as llvm-mc assembles them (116 bytes, an .align32 included)"

# --- bad text ---------------------------------------------------------------
# bad NAME EXPECTED-PATTERN: analyzing $out/NAME fails with one line that
# names the file and line and matches the pattern.
bad() {
  local err rc
  err=$("$TREG_ANALYZE" "$out/$1" 2>&1 >/dev/null)
  rc=$?
  ((rc != 0)) || fail "bad text $1: exit 0"
  [[ $(wc -l <<<"$err") -eq 1 ]] || fail "bad text $1: not one line: $err"
  grep -Eq "$2" <<<"$err" || fail "bad text $1: '$err' does not match /$2/"
}
good=$(find "$fx" -name 'loop_kernel.s' -path '*gfx90a*' | head -1)
[[ -f $good ]] || fail "no gfx90a loop_kernel.s fixture"
head -c $(($(wc -c <"$good") * 2 / 3)) "$good" >"$out/truncated.s"
bad truncated.s 'truncated\.s:[0-9]+: .*truncated\?'
sed '0,/^\t\.text/s//\t.text\n\t.frobnicate 3/' "$good" >"$out/directive.s"
bad directive.s "directive\\.s:[0-9]+: unknown directive '\\.frobnicate'"
sed '0,/s_endpgm/s//xyzzy_b32 v0, v1/' "$good" >"$out/mnemonic.s"
bad mnemonic.s "mnemonic\\.s:[0-9]+: unknown mnemonic 'xyzzy_b32'"
sed '0,/s_endpgm/s//v_mov_b32_e32 v[0:2:4:6], v1/' "$good" >"$out/list.s"
bad list.s "list\\.s:[0-9]+: register list 'v\\[0:2:4:6\\]' is not 4 consecutive registers"
printf '\t.text\n' >"$out/nokernel.s"
bad nokernel.s "nokernel\\.s: no \\.amdhsa_kernel"

((newer == 0)) || echo "$prog: note: $newer code objects LLVM $TREG_LLVM_MAJOR cannot decode: their text alone was analyzed, not compared"
((failures == 0)) || fail "$failures of $compared kernels differ between text and code object"
echo "$prog: ok: $compared kernels identical from text and from code object ($corpus_kernels corpus, $fixture_kernels fixtures); bad text refused"

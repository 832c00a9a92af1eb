#!/usr/bin/env bash
# treg-analyze --what-if and tregc upload --what-if: the kernel's LLVM IR
# built by the linked LLVM at each register budget.
#
# 1. Every build equals llc-22's own build of the same IR with the same
#    attributes (tests/oracle/what_if_llc.py: NumVgprs, NumAgprs,
#    TotalNumSgprs, ScratchSize, Occupancy from llc's assembly trailer), the
#    shipped row is the kernel's report, and the report with --what-if is the
#    report without it plus what_if: on the project's fixtures (the Triton
#    kernels llc-22 built from their .llir, where the recompiled build must
#    equal the shipped one; the Triton look-alikes, one of which spills) and a
#    fixed sample of ../shared/corpus (every target; bench/what_if.sh runs
#    all of it).
# 2. Bad input is one line and a non-zero exit: IR that does not parse, IR
#    without the code object's kernels, IR for another target-cpu, a missing
#    .llir, a bad --what-if-budget.
# 3. A Hygon target this LLVM cannot compile for (gfx926 on Debian's LLVM):
#    the shipped build and "not available with this LLVM", never a build for
#    the substitute ISA.
# 4. The budget: with --what-if-budget 1 a kernel whose builds take longer
#    lists the rest as not built, saying why.
# 6. Through the service: tregc upload --what-if stores the report with its
#    builds under an inputs digest of its own (a second upload is answered
#    from the store; one without --what-if is another report), and the IR is
#    kept in the store's texts/.
set -euo pipefail

prog=test_what_if
# shellcheck source=tests/cli/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

require_analyzer
A=$TREG_ANALYZE
LLC=${LLC:-llc-22}
command -v "$LLC" >/dev/null 2>&1 || skip "$LLC not found (Debian's llvm-22): nothing to compare the builds with"
F=${TREG_FIXTURES:?TREG_FIXTURES is not set (CTest sets it)}
[[ -d $F/triton && -d $F/triton-like ]] || fail "no fixtures at $F (tests/fixtures/make-fixtures.sh)"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
oracle=$TREG_SOURCE_ROOT/tests/oracle/what_if_llc.py

# An older LLVM (scripts/test-llvm.sh) cannot read the fixtures' IR, which
# is LLVM 22's: that is one clear error, and the rest needs LLVM 22.
if ((${TREG_LLVM_MAJOR:-22} < 22)); then
  rc=0
  "$A" --what-if "$F/triton/add_kernel/add_kernel.hsaco" >"$work/old.out" 2>"$work/old.err" || rc=$?
  if ((rc == 0)) || (($(wc -l <"$work/old.err") != 1)) ||
    ! grep -q "add_kernel.llir: not LLVM IR: line " "$work/old.err"; then
    fail "LLVM $TREG_LLVM_MAJOR on LLVM 22's IR: exit $rc: $(cat "$work/old.err")"
  fi
  skip "LLVM $TREG_LLVM_MAJOR cannot read LLVM 22's IR (one line, as it should: $(cat "$work/old.err"))"
fi

# 1. Builds against llc-22.
python3 "$oracle" "$A" --same-compiler --work "$work" "$F"/triton/*/ >"$work/same.log" 2>&1 ||
  fail "fixtures built by llc-22 from their .llir: $(tail -n5 "$work/same.log")"
echo "$prog: ok: $(tail -n1 "$work/same.log") (recompiled = shipped)"
python3 "$oracle" "$A" --work "$work" "$F"/triton-like/*/ >"$work/like.log" 2>&1 ||
  fail "Triton look-alike fixtures: $(tail -n5 "$work/like.log")"
grep -Eq 'spill_kernel +budget +1 ' "$work/like.log" || fail "spill_kernel: no budget builds below its occupancy: $(cat "$work/like.log")"
echo "$prog: ok: $(tail -n1 "$work/like.log")"

C=$TREG_CORPUS
if [[ -d $C/triton-cache && -d $C/triton-cache-targets ]]; then
  # One kernel per target and shape worth a budget: spills at more waves,
  # spills as shipped (budgets below it), AGPRs, gfx908/gfx950/gfx1100.
  sample=()
  for e in triton-cache/SUJBNLZWAZC7NO5J3T3LVKCKXAD3AMYKJH7URV2PQVD7HF6A6K6A \
    triton-cache/LZJ667C7JP62SNK5JTV3O4L5MEBAWSBVUKRGI5OMGRI3GP2VHRMQ \
    triton-cache/GTD3VOYNYBOMJ6PVTJQZCOP7G44GFGRP5TNH5TQONJ5U3F7B2MBA \
    gfx906-llc22/MD4F523L5PVMIKLU6IIZMAM7ASER47Q6J6JG6ABYSLCTRQZ3BBMA-906; do
    [[ -d $C/$e ]] && sample+=("$C/$e")
  done
  # From the other targets' cache: the first matmul of each of gfx908,
  # gfx950 and gfx1100 that is not the 60 s one (bench/what_if.sh has it).
  for arch in gfx908 gfx950 gfx1100; do
    e=$(grep -E "^\| $arch \| matmul_kernel \| 4 " "$C/INDEX-targets.md" | head -n1 | awk -F'|' '{gsub(/ /, "", $10); print $10}')
    [[ -n $e && -d $C/$e ]] && sample+=("$C/$e")
  done
  ((${#sample[@]} >= 6)) || fail "corpus sample: only ${#sample[@]} of its entries found under $C"
  python3 "$oracle" "$A" --work "$work" "${sample[@]}" >"$work/corpus.log" 2>&1 ||
    fail "corpus sample: $(tail -n8 "$work/corpus.log")"
  echo "$prog: ok: corpus sample: $(tail -n1 "$work/corpus.log")"
  # The hand-measured curve of issue 14, as this LLVM builds it.
  grep -Eq '^SUJBNLZWAZ gfx90a +matmul_kernel +budget +3 +vgpr 168 .* waves +3$' "$work/corpus.log" ||
    fail "matmul (gfx90a, 4 warps): expected 168 VGPRs at 3 waves: $(grep SUJBNL "$work/corpus.log")"
else
  echo "$prog: note: $C not found: the corpus sample is skipped (fixtures only)"
fi

# 2. Bad input: one line naming the input, exit non-zero.
bad() { # bad NAME EXPECTED-ERE ARGS...
  local name=$1 want=$2 rc=0
  shift 2
  "$A" "$@" >"$work/$name.out" 2>"$work/$name.err" || rc=$?
  ((rc != 0)) || fail "$name: exit 0: $(head -c 300 "$work/$name.out")"
  (($(wc -l <"$work/$name.err") == 1)) || fail "$name: not one line: $(cat "$work/$name.err")"
  grep -Eq -e "$want" "$work/$name.err" || fail "$name: expected /$want/, got: $(cat "$work/$name.err")"
  echo "$prog: ok: $name: $(cat "$work/$name.err")"
}
entry() { # entry NAME SRC-DIR: a copy of a fixture entry to spoil
  rm -rf "${work:?}/$1"
  cp -r "$2" "$work/$1"
  echo "$work/$1"
}
d=$(entry garbage "$F/triton/add_kernel")
printf 'this is not LLVM IR\n' >"$d/add_kernel.llir"
bad garbage "add_kernel\.llir: not LLVM IR: line 1, column 1: expected top-level entity" --what-if "$d/add_kernel.hsaco"
d=$(entry truncated "$F/triton/add_kernel")
head -c 2000 "$F/triton/add_kernel/add_kernel.llir" >"$d/add_kernel.llir"
bad truncated "add_kernel\.llir: not LLVM IR" --what-if "$d/add_kernel.hsaco"
d=$(entry other-kernel "$F/triton/add_kernel")
cp "$F/triton/softmax_kernel/softmax_kernel.llir" "$d/add_kernel.llir"
bad other-kernel "defines none of the code object's kernels \(add_kernel\)" --what-if "$d/add_kernel.hsaco"
d=$(entry other-cpu "$F/triton-like/branch_kernel-gfx90a")
cp "$F/triton-like/branch_kernel-gfx906/branch_kernel.llir" "$d/"
bad other-cpu "kernel branch_kernel is built for gfx906 \(its target-cpu\), the code object for gfx90a" \
  --what-if "$d/branch_kernel.hsaco"
# IR with debug info that parses but does not verify: LLVM's parser would
# abort the process on it ("Broken module found"); it is one error instead.
d=$(entry not-verifying "$F/triton/add_kernel")
python3 - "$d/add_kernel.llir" <<'PY'
import sys
p = sys.argv[1]
s = open(p).read()
assert '"Debug Info Version", i32 3' in s, "the fixture's IR has no debug info"
i = s.index("ret void")
open(p, "w").write(s[:i] + "%selfref = add i32 %selfref, 1\n  " + s[i:])
PY
bad not-verifying "add_kernel\.llir: LLVM IR that does not verify: Only PHI nodes may reference their own value" \
  --what-if "$d/add_kernel.hsaco"
# IR LLVM's code generator gives up on (an intrinsic gfx90a lacks): LLVM
# ends the process; the analysis says why first.
cannot_select='target triple = "amdgcn-amd-amdhsa"
declare i32 @llvm.amdgcn.permlanex16.i32(i32, i32, i32, i32, i1, i1)
define amdgpu_kernel void @add_kernel(ptr addrspace(1) %p, i32 %n) {
  %v = call i32 @llvm.amdgcn.permlanex16.i32(i32 %n, i32 %n, i32 0, i32 0, i1 false, i1 false)
  store i32 %v, ptr addrspace(1) %p
  ret void
}'
d=$(entry cannot-select "$F/triton/add_kernel")
printf '%s\n' "$cannot_select" >"$d/add_kernel.llir"
bad cannot-select "add_kernel\.hsaco: LLVM failed and ended the analysis: Cannot select: intrinsic %llvm\.amdgcn\.permlanex16" \
  --what-if "$d/add_kernel.hsaco"
d=$(entry no-llir "$F/triton/add_kernel")
rm "$d/add_kernel.llir"
bad no-llir "add_kernel\.hsaco: --what-if needs the kernel's LLVM IR: .*add_kernel\.llir" --what-if "$d/add_kernel.hsaco"
bad bad-budget "--what-if-budget takes seconds from 0.001 to 3600, not '0'" --what-if --what-if-budget 0 "$d/add_kernel.hsaco"

# 3. Hygon: gfx926 (decoded as gfx906 upstream) cannot be compiled here.
if "$A" --format json --no-rows "$F/triton-like/branch_kernel-gfx906/branch_kernel.hsaco" | grep -q '"decoded_as"'; then
  d=$(entry hygon "$F/triton-like/branch_kernel-gfx906")
  patch "$F/triton-like/branch_kernel-gfx906/branch_kernel.hsaco" "$d/branch_kernel.hsaco" \
    "assert b[48] == 0x2f; b[48] = 0; replace(b'amdgcn-amd-amdhsa--gfx906', b'amdgcn-amd-amdhsa--gfx926')"
  sed -i 's/"target-cpu"="gfx906"/"target-cpu"="gfx926"/' "$d/branch_kernel.llir"
  "$A" --what-if --format json --no-rows "$d/branch_kernel.hsaco" >"$work/hygon.json" 2>"$work/hygon.err" ||
    fail "gfx926 --what-if: $(cat "$work/hygon.err")"
  python3 - "$work/hygon.json" <<'PY' || fail "gfx926 --what-if: see above"
import json, sys
r = json.load(open(sys.argv[1]))["reports"][0]
k = r["kernels"][0]
assert r["target"] == "gfx926" and r["decoded_as"] == "gfx906", (r["target"], r["decoded_as"])
kinds = [b["kind"] for b in k["what_if"]]
assert kinds == ["shipped"], kinds
note = k.get("what_if_note", "")
assert note.startswith("not available with this LLVM") and "gfx926" in note, note
PY
  "$A" --what-if "$d/branch_kernel.hsaco" | grep -q "what-if: not available with this LLVM" ||
    fail "gfx926 --what-if: the text does not say it is not available"
  echo "$prog: ok: gfx926 on LLVM ${TREG_LLVM_MAJOR:-22}: the shipped build only, \"not available with this LLVM\""
fi

# 4. The budget: 10 ms, less than any build of a corpus matmul (0.15 s
# here): the recompiled build is made (every row is read against it), and no
# budget is started once a build has shown it would not fit.
sub=$C/triton-cache/SUJBNLZWAZC7NO5J3T3LVKCKXAD3AMYKJH7URV2PQVD7HF6A6K6A/matmul_kernel.hsaco
if [[ -f $sub ]]; then
  "$A" --what-if --what-if-budget 0.01 --format json --no-rows "$sub" >"$work/budget.json"
  python3 - "$work/budget.json" <<'PY' || fail "--what-if-budget 1: see above"
import json, sys
k = json.load(open(sys.argv[1]))["reports"][0]["kernels"][0]
rows = [(b["kind"], b["waves_per_eu"], b["compiled"]) for b in k["what_if"]]
built = [b["kind"] for b in k["what_if"] if b["compiled"]]
skipped = [b for b in k["what_if"] if not b["compiled"]]
assert built == ["shipped", "recompiled"] and len(skipped) == 6, rows
assert all(b["kind"] == "budget" and b["note"].startswith("not built: the what-if budget of 10 ms would be spent")
           for b in skipped), skipped[0]["note"]
print("test_what_if: ok: --what-if-budget 0.01: the recompiled build made, %d budgets not built, said why" % len(skipped))
PY
fi

# 5. The HTML panel in a real browser, against the same analysis's JSON.
browser_dir=$TREG_SOURCE_ROOT/tests/browser
if [[ -x ${TREG_CHROMIUM:-/usr/bin/chromium} ]] && command -v node >/dev/null &&
  [[ -d $browser_dir/node_modules/playwright-core ]]; then
  shots=${TREG_TEST_OUTPUT:-$PWD/test-output}/what-if
  pages=("$F/triton-like/spill_kernel-gfx90a/spill_kernel.hsaco")
  [[ -f $sub ]] && pages+=("$sub")
  n=0
  for h in "${pages[@]}"; do
    n=$((n + 1))
    "$A" --what-if --format json --no-rows "$h" >"$work/page$n.json"
    "$A" --what-if --format html -o "$work/page$n.html" "$h"
    node "$browser_dir/check_what_if.mjs" "$work/page$n.html" "$work/page$n.json" "$shots" "page$n" ||
      fail "$h: the what-if panel failed in chromium (screenshots in $shots)"
  done
else
  echo "$prog: note: no chromium, node or playwright-core (scripts/install-deps.sh): the HTML panel is not checked"
fi

# 6. Through the service.
require_tregd openssl
start_tregd "$work" --workers 1 --timeout 60
up=$work/upload
mkdir -p "$up"
cp "$F/triton-like/spill_kernel-gfx90a/"* "$up/"
tregc_to upload --what-if --no-source --format json --no-rows "$up/spill_kernel.hsaco" >"$work/up1.json" 2>"$work/up1.err" ||
  fail "tregc upload --what-if: $(cat "$work/up1.err")"
tregc_to upload --what-if --no-source --format json --no-rows "$up/spill_kernel.hsaco" >"$work/up2.json" 2>&1 ||
  fail "second tregc upload --what-if: $(cat "$work/up2.json")"
tregc_to upload --no-source --format json --no-rows "$up/spill_kernel.hsaco" >"$work/up3.json" 2>&1 ||
  fail "tregc upload without --what-if: $(cat "$work/up3.json")"
"$A" --what-if --format json --no-rows "$up/spill_kernel.hsaco" >"$work/local.json"
python3 - "$work" <<'PY' || fail "service: see above"
import json, sys
w = sys.argv[1]
docs = [json.load(open("%s/%s.json" % (w, n))) for n in ("up1", "up2", "up3", "local")]
r1, r2, r3, loc = (d["reports"][0] for d in docs)
def builds(r):
    return [(b["kind"], b["waves_per_eu"], b["vgpr"]["allocated"], b["scratch_bytes"], b["spill_instructions"],
             b["occupancy"]["waves_per_simd"]) for b in r["kernels"][0].get("what_if", [])]
assert len(builds(r1)) > 2, builds(r1)
assert builds(r1) == builds(loc), (builds(r1), builds(loc))
assert builds(r2) == builds(r1), "the stored report's builds differ"
assert r1.get("stored_before") is False and r2.get("stored_before") is True, (r1.get("stored_before"), r2.get("stored_before"))
assert r3.get("stored_before") is False, "an upload without the IR was answered with the what-if report"
assert builds(r3) == [], builds(r3)
assert r1.get("link") and r3.get("link") and r1["link"] != r3["link"], (r1.get("link"), r3.get("link"))
print("test_what_if: ok: tregc upload --what-if: %d builds, as treg-analyze's; stored under their own inputs" % len(builds(r1)))
PY
sha=$(sha256sum "$up/spill_kernel.llir" | cut -c1-64)
[[ -f $work/store/texts/${sha:0:2}/$sha ]] || fail "the store does not keep the .llir (texts/${sha:0:2}/$sha)"
cmp -s "$work/store/texts/${sha:0:2}/$sha" "$up/spill_kernel.llir" || fail "the stored .llir differs from the upload's"
echo "$prog: ok: the store keeps the .llir under its SHA-256"
printf 'garbage\n' >"$up/spill_kernel.llir"
rc=0
tregc_to upload --what-if --no-source "$up/spill_kernel.hsaco" >"$work/up4.out" 2>"$work/up4.err" || rc=$?
((rc != 0)) || fail "upload of garbage IR: exit 0"
grep -q "kernel.llir: not LLVM IR" "$work/up4.err" || fail "upload of garbage IR: $(cat "$work/up4.err")"
echo "$prog: ok: garbage IR through the server: $(head -n1 "$work/up4.err")"
# LLVM ends the worker on this IR: the upload says why, the server goes on.
cp "$F/triton/add_kernel/"* "$up/"
printf '%s\n' "$cannot_select" >"$up/add_kernel.llir"
rc=0
tregc_to upload --what-if --no-source "$up/add_kernel.hsaco" >"$work/up5.out" 2>"$work/up5.err" || rc=$?
((rc != 0)) || fail "upload of IR LLVM cannot build: exit 0"
grep -q "LLVM failed on this upload and ended its worker: Cannot select" "$work/up5.err" ||
  fail "upload of IR LLVM cannot build: $(cat "$work/up5.err")"
echo "$prog: ok: IR LLVM gives up on, through the server: $(head -n1 "$work/up5.err")"
tregc_to upload --no-source --format json --no-rows "$up/add_kernel.hsaco" >"$work/up6.json" 2>&1 ||
  fail "the server after a worker LLVM ended: $(cat "$work/up6.json")"
echo "$prog: ok: the next upload is analyzed (the worker was replaced)"
stop_tregd
echo "$prog: PASS"

#!/usr/bin/env bash
# The examples (examples/hip) build and say what examples/README.md says they
# say, on every target build.sh makes (gfx906, gfx90a, gfx942):
#   - every code object's allocation equals the compiler's own "; Kernel info"
#     trailer in its .s (NumVgprs, TotalNumSgprs, Occupancy);
#   - tiled_gemm's accumulators at the VGPR peak, classified from the machine
#     code, are its TM x TN sums: exactly 16 for the 4x4 block, at least 64
#     for the 8x8 one, and the 8x8 block costs VGPRs and waves;
#   - row_softmax holds a wave-uniform value in a VGPR at its peak (the row's
#     maximum read back from shared memory), on its author's line;
#   - treg-analyze diff of the two blocks shows the VGPR growth, and
#     --fail-on vgpr+8 fails on it.
# Environment (set by CTest): TREG_ANALYZE, TREG_SOURCE_ROOT.
set -euo pipefail
prog=test_examples
# shellcheck source=tests/cli/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
require_analyzer
command -v clang-22 >/dev/null 2>&1 || skip "clang-22 not found (Debian's clang-22): the examples cannot be built"
command -v ld.lld-22 >/dev/null 2>&1 || skip "ld.lld-22 not found (Debian's lld-22)"
command -v python3 >/dev/null 2>&1 || skip "python3 is needed to read the JSON"
A=$TREG_ANALYZE

work=$(mktemp -d "${TMPDIR:-/tmp}/treg-examples.XXXXXX")
trap 'rm -rf "$work"' EXIT
"$TREG_SOURCE_ROOT/examples/hip/build.sh" "$work/build" >"$work/build.log" 2>&1 ||
  fail "examples/hip/build.sh failed: $(tail -5 "$work/build.log")"

for arch in gfx906 gfx90a gfx942; do
  for k in tiled_gemm-4x4 tiled_gemm-8x8 row_softmax; do
    "$A" --format json --no-rows "$work/build/$arch/$k.hsaco" >"$work/$arch-$k.json" 2>"$work/err" ||
      fail "$arch/$k: treg-analyze failed: $(cat "$work/err")"
  done
done

python3 - "$work" <<'PY' || fail "the examples' facts: see above"
import json, os, re, sys
work = sys.argv[1]
def kernel(arch, k):
    return json.load(open(os.path.join(work, f"{arch}-{k}.json")))["reports"][0]["kernels"][0]
def trailer(arch, k):
    s = open(os.path.join(work, "build", arch, f"{k}.s")).read()
    return {key: int(re.search(rf"; {key}: (\d+)", s).group(1))
            for key in ("NumVgprs", "TotalNumSgprs", "Occupancy")}
def accumulators(kn):
    return sum(c["vgpr"] + c["agpr"] for c in kn["categories"] if c["kind"] == "accumulator")
for arch in ("gfx906", "gfx90a", "gfx942"):
    for k in ("tiled_gemm-4x4", "tiled_gemm-8x8", "row_softmax"):
        kn, t = kernel(arch, k), trailer(arch, k)
        got = (kn["vgpr"]["allocated"], kn["sgpr"]["allocated"], kn["occupancy"]["waves_per_simd"])
        want = (t["NumVgprs"], t["TotalNumSgprs"], t["Occupancy"])
        assert got == want, f"{arch} {k}: VGPRs, SGPRs, waves {got}, the compiler's {want}"
        assert kn["categories_source"] == "machine code", (arch, k, kn["categories_source"])
    small, big = kernel(arch, "tiled_gemm-4x4"), kernel(arch, "tiled_gemm-8x8")
    assert accumulators(small) == 16, (arch, "4x4", small["categories"])
    assert accumulators(big) >= 64, (arch, "8x8", big["categories"])
    assert big["vgpr"]["peak_live"] > small["vgpr"]["peak_live"] + 40, (arch, "peaks")
    assert big["occupancy"]["waves_per_simd"] < small["occupancy"]["waves_per_simd"], (arch, "waves")
    sm = kernel(arch, "row_softmax")
    assert sm["peak_uniform"]["vgpr"] >= 1, (arch, "row_softmax", sm["peak_uniform"])
    own = [a for a in sm["peak_attribution"] if a["uniform"]]
    assert own and all(a["file"].endswith("/row_softmax.hip") for a in own), (arch, own)
    print(f"test_examples: ok: {arch}: figures equal the compiler's; accumulators "
          f"{accumulators(small)} (4x4) and {accumulators(big)} (8x8); "
          f"{sm['peak_uniform']['vgpr']} uniform VGPR in row_softmax")
PY

rc=0
"$A" diff --fail-on vgpr+8 "$work/build/gfx90a/tiled_gemm-4x4.hsaco" \
  "$work/build/gfx90a/tiled_gemm-8x8.hsaco" >"$work/diff.txt" 2>&1 || rc=$?
((rc == 1)) || fail "diff --fail-on vgpr+8 of the 4x4 and 8x8 blocks: exit $rc, not 1: $(tail -3 "$work/diff.txt")"
grep -Eq '^  VGPR peak +[0-9]+ +[0-9]+ +\+[0-9]+' "$work/diff.txt" ||
  fail "the diff shows no VGPR peak growth: $(cat "$work/diff.txt")"
echo "$prog: ok: the 8x8 block's VGPRs fail --fail-on vgpr+8 against the 4x4 block"

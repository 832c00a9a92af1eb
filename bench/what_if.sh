#!/usr/bin/env bash
# The what-if builds (treg-analyze --what-if) over a whole corpus:
#  1. every build of every entry with a .llir against llc-22's own build of
#     the same IR and attributes (tests/oracle/what_if_llc.py; CI runs a
#     fixed sample of it in tests/cli/test_what_if.sh);
#  2. the largest kernel (by .llir size): the time of each build (in-process
#     compile and analysis, the JSON's compile_ms) against llc-22 -O3
#     -filetype=obj of the same IR at the same budget, in this script: the
#     ratio says what building in-process costs over the compiler alone;
#  3. the curve (waves, VGPRs, scratch, spill instructions per budget) of two
#     kernels: that one and the corpus's gfx90a matmul of issue 14.
#
#   bench/what_if.sh [CORPUS_DIR]     (default: ../shared/corpus)
#
# Figures are reported, not asserted, except that a mismatch with llc-22
# fails the run (exit 1).
set -euo pipefail

# shellcheck source=bench/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
bench_corpus "${1:-}"
build=$root/build-bench
llc=${LLC:-llc-22}
analyze=${TREG_ANALYZE:-$build/tools/treg-analyze}
if [[ -z ${TREG_ANALYZE:-} ]]; then
    if [[ ! -f $build/CMakeCache.txt ]]; then
        cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release >/dev/null
    fi
    cmake --build "$build" -j"$(nproc)" --target treg-analyze >/dev/null
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

mapfile -t entries < <(for f in "${files[@]}"; do
    [[ -f ${f%.hsaco}.llir ]] && dirname "$f"
done | LC_ALL=C sort -u)
echo "what-if: ${#entries[@]} entries with a .llir under $corpus"
start=$(date +%s)
rc=0
python3 "$root/tests/oracle/what_if_llc.py" "$analyze" --llc "$llc" --jobs "$(nproc)" --work "$work" \
    --json "$work/sweep.json" "${entries[@]}" >"$work/sweep.log" 2>&1 || rc=$?
tail -n1 "$work/sweep.log"
grep 'FAIL' "$work/sweep.log" | head -n 20 || true
echo "what-if: the sweep took $(($(date +%s) - start)) s on $(nproc) cores"

largest=$(for e in "${entries[@]}"; do
    l=$(ls "$e"/*.llir)
    echo "$(stat -c %s "$l") $l"
done | sort -n | tail -n1 | cut -d' ' -f2)
matmul=$corpus/triton-cache/SUJBNLZWAZC7NO5J3T3LVKCKXAD3AMYKJH7URV2PQVD7HF6A6K6A/matmul_kernel.llir

curve() { # curve LLIR: the builds' table, and per build llc-22's time for the same IR
    local ll=$1 h=${1%.llir}.hsaco
    "$analyze" --what-if --format json --no-rows "$h" >"$work/curve.json"
    python3 - "$work/curve.json" "$ll" "$llc" "$work" <<'PY'
import json, os, re, subprocess, sys, time
doc, ll, llc, work = sys.argv[1:5]
r = json.load(open(doc))["reports"][0]
k = r["kernels"][0]
ir = open(ll).read()
def budget_ir(w):
    m = re.search(r"^define [^\n]*@%s\([^\n]*?#(\d+)" % re.escape(k["name"]), ir, re.M)
    a = re.search(r"^attributes #%s = \{(.*)\}$" % m.group(1), ir, re.M)
    body = re.sub(r'\s*"amdgpu-waves-per-eu"="[^"]*"', "", a.group(1)).rstrip()
    return ir[:a.start(1)] + body + ' "amdgpu-waves-per-eu"="%d, %d" ' % (w, w) + ir[a.end(1):]
print("what-if: %s (%s, %s, %d KiB of IR)" % (k["name"], r["target"], os.path.basename(os.path.dirname(ll)), os.path.getsize(ll) // 1024))
print("  %-16s %5s %5s %5s %8s %7s %9s %9s %6s" % ("build", "waves", "VGPR", "AGPR", "scratch", "spills", "treg ms", "llc ms", "ratio"))
tot_t = tot_l = 0
for b in k["what_if"]:
    label = "waves_per_eu=%d" % b["waves_per_eu"] if b["kind"] == "budget" else b["kind"]
    if not b["compiled"]:
        print("  %-16s %s" % (label, b.get("note", "not built")))
        continue
    if b["kind"] == "shipped":
        print("  %-16s %5d %5d %5d %8d %7d" % (label, b["occupancy"]["waves_per_simd"], b["vgpr"]["allocated"],
                                             b["agpr"]["allocated"], b["scratch_bytes"], b["spill_instructions"]))
        continue
    src = ir if b["kind"] == "recompiled" else budget_ir(b["waves_per_eu"])
    p = os.path.join(work, "b.ll")
    open(p, "w").write(src)
    best = None
    for _ in range(3):
        t0 = time.monotonic()
        subprocess.run([llc, "-O3", "-mtriple=amdgcn-amd-amdhsa", "-mcpu=" + r["target"], "-filetype=obj", p,
                        "-o", os.path.join(work, "b.o")], check=True)
        t = time.monotonic() - t0
        best = t if best is None else min(best, t)
    ms = best * 1000
    tot_t += b["compile_ms"]
    tot_l += ms
    print("  %-16s %5d %5d %5d %8d %7d %9d %9.0f %5.2fx" % (label, b["occupancy"]["waves_per_simd"], b["vgpr"]["allocated"],
          b["agpr"]["allocated"], b["scratch_bytes"], b["spill_instructions"], b["compile_ms"], ms,
          b["compile_ms"] / ms if ms else 0))
if tot_l:
    print("  all builds: %d ms in-process (compile + analysis) against %.0f ms of llc-22 alone: %.2fx" % (tot_t, tot_l, tot_t / tot_l))
PY
}
curve "$largest"
[[ -f $matmul && $matmul != "$largest" ]] && curve "$matmul"
exit "$rc"

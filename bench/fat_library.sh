#!/usr/bin/env bash
# A large fat binary: a generated HIP shared library of KERNELS kernels
# (default 240, in 8 translation units, each kernel a loop with its own
# number of live accumulators) for gfx906 gfx908 gfx90a gfx942, built with
# --offload-compress (CCOB v3, zstd: 8 compressed bundles of 4 code objects),
# analyzed in one treg-analyze run (--format json --no-rows, Release build in
# build-bench/).  The reference, in the same script: the same 32 code objects
# extracted by clang-offload-bundler and analyzed as files in one run.
# Prints wall time (best of 5), instructions/s, and peak RSS of the run
# (treg-analyze and the analysis processes it forks), and the container /
# reference ratios.  Needs clang-22 and clang-tools-22 (scripts/install-deps.sh).
#
#   bench/fat_library.sh [KERNELS]
#
# No target: the figures are reported; the exit status is 0 whenever it ran.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
kernels=${1:-240}
units=8
archs=(gfx906 gfx908 gfx90a gfx942)
llvm_bin=/usr/lib/llvm-22/bin
for t in clang-22 llvm-objcopy-22 python3; do
    command -v "$t" >/dev/null 2>&1 || {
        echo "bench: $t not found; skipped"
        exit 0
    }
done
[[ -x $llvm_bin/clang-offload-bundler ]] || {
    echo "bench: clang-offload-bundler (clang-tools-22) not found; skipped"
    exit 0
}
export PATH=$llvm_bin:$PATH
build=$root/build-bench
if [[ ! -f $build/CMakeCache.txt ]]; then
    cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release >/dev/null
fi
cmake --build "$build" -j"$(nproc)" --target treg-analyze >/dev/null
tool=$build/tools/treg-analyze
work=$(mktemp -d "${TMPDIR:-/tmp}/treg-fatlib.XXXXXX")
trap 'rm -rf "$work"' EXIT
src=$root/tests/fixtures/src/hip

# --- the library -------------------------------------------------------------
per=$(((kernels + units - 1) / units))
for ((u = 0; u < units; u++)); do
    {
        echo '#include "hip_runtime.h"'
        for ((i = 0; i < per; i++)); do
            k=$((u * per + i))
            ((k < kernels)) || break
            acc=$((4 + k % 61)) # 4 to 64 accumulators: from a few VGPRs to the file's limit
            cat <<EOF
KERNEL void k$k(float *out, const float *a, const float *b, int n)
{
    int t = GID();
    float acc[$acc];
#pragma unroll
    for (int j = 0; j < $acc; j++) acc[j] = 0.0f;
    for (int j = 0; j < n; j++) {
        float x = a[j * 256 + t] * ${k}.5f;
#pragma unroll
        for (int m = 0; m < $acc; m++) acc[m] += x * b[j * $acc + m];
    }
#pragma unroll
    for (int m = 0; m < $acc; m++) out[m * 256 + t] = acc[m];
}
EOF
        done
    } >"$work/unit$u.hip"
done
offload=()
for a in "${archs[@]}"; do offload+=(--offload-arch="$a"); done
t0=$(date +%s)
for ((u = 0; u < units; u++)); do
    clang-22 -x hip -nogpulib -nogpuinc -O2 -fPIC -I"$src" "${offload[@]}" --offload-compress \
        -c "$work/unit$u.hip" -o "$work/unit$u.o"
done
clang-22 -O2 -fPIC -c "$src/hip_stubs.c" -o "$work/stubs.o"
clang-22 -fuse-ld=lld -shared "$work"/unit*.o "$work/stubs.o" -o "$work/libfat.so"
echo "bench: built libfat.so ($kernels kernels x ${#archs[@]} targets, $(wc -c <"$work/libfat.so") bytes) in $(($(date +%s) - t0)) s"

# --- the reference: the code objects, extracted ---------------------------------
targets=host-x86_64-unknown-linux-gnu-
for a in "${archs[@]}"; do targets+=,hipv4-amdgcn-amd-amdhsa--$a; done
mkdir -p "$work/co"
for ((u = 0; u < units; u++)); do
    llvm-objcopy-22 --dump-section .hip_fatbin="$work/u$u.fatbin" "$work/unit$u.o" /dev/null
    outs=(-output=/dev/null)
    for a in "${archs[@]}"; do outs+=(-output="$work/co/u$u-$a.co"); done
    clang-offload-bundler -type=o -targets="$targets" -input="$work/u$u.fatbin" -unbundle "${outs[@]}"
done

# run NAME ARGS...: best of 5 wall times and the peak RSS of the run, into NAME.*
run() {
    local name=$1
    shift
    python3 - "$work/$name" "$@" <<'PY'
import resource, subprocess, sys, time
out, cmd = sys.argv[1], sys.argv[2:]
best = None
for _ in range(5):
    t0 = time.perf_counter()
    with open(out + ".json", "wb") as f:
        rc = subprocess.run(cmd, stdout=f, stderr=subprocess.DEVNULL).returncode
    t = time.perf_counter() - t0
    if rc != 0:
        sys.exit(f"{cmd[0]} exited {rc}")
    best = t if best is None or t < best else best
peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
open(out + ".fig", "w").write(f"{best:.3f} {peak:.1f}\n")
PY
}
run container "$tool" --format json --no-rows "$work/libfat.so"
run reference "$tool" --format json --no-rows "$work"/co/*.co

python3 - "$work" "$kernels" <<'PY'
import json, sys
work, want = sys.argv[1], int(sys.argv[2])
fig = {}
for name in ("container", "reference"):
    t, rss = map(float, open(f"{work}/{name}.fig").read().split())
    doc = json.load(open(f"{work}/{name}.json"))
    insns = sum(k["instructions"] for r in doc["reports"] for k in r["kernels"])
    nk = sum(len(r["kernels"]) for r in doc["reports"])
    fig[name] = (t, rss, insns, nk, len(doc["reports"]))
    print(f"bench: {name:9s} {len(doc['reports'])} code objects, {nk} kernels, {insns} instructions: "
          f"{t:.2f} s ({insns / t:,.0f} instructions/s), peak RSS {rss:.0f} MiB")
c, r = fig["container"], fig["reference"]
if c[3] != want * 4 or c[2:] != r[2:]:
    sys.exit(f"bench: the container gave {c[3]} kernels / {c[2]} instructions, the extracted objects "
             f"{r[3]} / {r[2]}")
cross = json.load(open(f"{work}/container.json")).get("cross_target", [])
print(f"bench: cross_target tables: {len(cross)} kernels")
print(f"bench: container / reference: time {c[0] / r[0]:.2f}x, peak RSS {c[1] / r[1]:.2f}x")
PY

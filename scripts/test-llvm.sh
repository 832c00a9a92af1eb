#!/usr/bin/env bash
# Builds treg against another of Debian's LLVMs and runs the suite there:
# proof that the build takes any LLVM with the AMDGPU target (a Hygon site
# links DTK's), not only llvm-22.  Tests that need what a newer LLVM decodes
# skip with a message (they compare against LLVM 22's own output or need
# gfx950/GFX12 decoding); everything else must pass.
# Usage: scripts/test-llvm.sh VERSION [BUILD_DIR [CTEST_REGEX]]
#   e.g. scripts/test-llvm.sh 19; scripts/test-llvm.sh 16 "" 'test_|hygon'
# CTEST_REGEX runs only the tests it matches (.ci/run's LLVM 16 pass: the
# whole build, a chosen subset of the suite, to stay inside CI's time).
set -euo pipefail
cd "$(dirname "$0")/.."
[[ $# -ge 1 && $# -le 3 && $1 =~ ^[0-9]+$ ]] || {
  echo "usage: scripts/test-llvm.sh VERSION [BUILD_DIR [CTEST_REGEX]]" >&2
  exit 2
}
version=$1
dir=${2:-build-llvm$version}
subset=()
[[ -z ${3:-} ]] || subset=(-R "$3")
llvm_dir=/usr/lib/llvm-$version/lib/cmake/llvm
[[ -f $llvm_dir/LLVMConfig.cmake ]] || {
  echo "test-llvm.sh: no LLVM $version at $llvm_dir: apt-get install llvm-$version-dev llvm-$version" >&2
  exit 1
}
jobs=$(nproc 2>/dev/null || echo 2)
# (the static tregc has no LLVM in it: scripts/test.sh builds and tests it)
cmake -S . -B "$dir" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DTREG_WERROR=ON -DLLVM_DIR="$llvm_dir" \
  -DTREG_STATIC_TREGC=OFF >/dev/null
cmake --build "$dir" -j "$jobs"
grep -q "^#define TREG_LLVM_MAJOR $version\$" "$dir/analyzer/generated/llvm_cpus.h" || {
  echo "test-llvm.sh: $dir is not built against LLVM $version" >&2
  exit 1
}
(cd "$dir" && ctest --output-on-failure -j "$jobs" "${subset[@]}")

#!/usr/bin/env bash
# Builds the example kernels into code objects treg reads, with Debian's
# clang-22 and its ld.lld-22 (no ROCm): for each target, tiled_gemm with a 4x4
# and an 8x8 block per thread and row_softmax, each with its assembly (.s,
# whose "; Kernel info" trailer holds the compiler's own figures) and with
# DWARF line tables (-g), so treg attributes registers to the .hip lines.
#
#   examples/hip/build.sh [OUTDIR]     (default: examples/build)
#
# OUTDIR/ARCH/NAME.{hsaco,s}: tiled_gemm-4x4, tiled_gemm-8x8, row_softmax for
# ARCH in gfx906 (Z100) gfx90a (MI200) gfx942 (MI300).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=${1:-$here/../build}
CLANG=${CLANG:-clang-22}
LLD=${LLD:-ld.lld-22}
for t in "$CLANG" "$LLD"; do
  command -v "$t" >/dev/null || { echo "build.sh: $t not found: run scripts/install-deps.sh" >&2; exit 1; }
done

# build ARCH SOURCE NAME [-Dmacro...]: NAME.s and NAME.hsaco for ARCH (clang links the
# device code with ld.lld itself: the code object, not a bundle).
build() {
  local arch=$1 src=$2 name=$3
  shift 3
  local cc=("$CLANG" -x hip --cuda-device-only --no-gpu-bundle-output --offload-arch="$arch"
    -nogpulib -nogpuinc -O3 -g -I"$here" "$@" "$here/$src")
  mkdir -p "$out/$arch"
  "${cc[@]}" -S -o "$out/$arch/$name.s"
  "${cc[@]}" -fuse-ld=lld -o "$out/$arch/$name.hsaco"
}

for arch in gfx906 gfx90a gfx942; do
  build "$arch" tiled_gemm.hip tiled_gemm-4x4 -DTM=4 -DTN=4
  build "$arch" tiled_gemm.hip tiled_gemm-8x8 -DTM=8 -DTN=8
  build "$arch" row_softmax.hip row_softmax
done
echo "build.sh: code objects in $out/{gfx906,gfx90a,gfx942}"

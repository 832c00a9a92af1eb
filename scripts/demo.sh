#!/usr/bin/env bash
# The main job on its embedded default: build treg, compile a bundled Triton
# kernel (examples/triton) into a code object as Triton would, and print the
# analyzer's report for it.
set -euo pipefail
cd "$(dirname "$0")/.."
for tool in cmake llc-22 ld.lld-22; do
    command -v "$tool" >/dev/null || { echo "demo: $tool not found: run scripts/install-deps.sh" >&2; exit 1; }
done
cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build -j "$(nproc)" --target treg-analyze >/dev/null
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
kernel=softmax_kernel
mkdir -p "$out/cache/$kernel"
llc-22 -O3 -mtriple=amdgcn-amd-amdhsa -mcpu=gfx90a -filetype=obj \
    "examples/triton/$kernel/$kernel.llir" -o "$out/$kernel.o"
ld.lld-22 -shared "$out/$kernel.o" -o "$out/cache/$kernel/$kernel.hsaco"
cp "examples/triton/$kernel/$kernel.json" "$out/cache/$kernel/"
build/analyzer/treg-analyze "$out/cache/$kernel"

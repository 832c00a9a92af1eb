#!/usr/bin/env bash
# Builds the libFuzzer target in BUILD_DIR and runs it for SECONDS (default
# 60), seeded with every .hsaco of the shared corpus.  New inputs collect in
# BUILD_DIR/fuzz-corpus (kept between runs); crashes land in
# BUILD_DIR/fuzz-artifacts.  Needs clang-22 and its fuzzer runtime
# (Debian: libclang-rt-22-dev).
#   tests/fuzz/run-fuzz.sh build-fuzz 120
set -euo pipefail

if [[ $# -lt 1 ]]; then
  echo "usage: $0 BUILD_DIR [SECONDS]" >&2
  exit 2
fi
build=$1
seconds=${2:-60}
src=$(cd "$(dirname "$0")/../.." && pwd)
corpus=${TREG_CORPUS:-$src/../shared/corpus}
cc=${CC:-clang-22}

cmake -S "$src" -B "$build" -DCMAKE_C_COMPILER="$cc" -DTREG_FUZZ=ON \
  -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build "$build" --target fuzz_codeobj

seeds=$build/fuzz-seeds
mkdir -p "$seeds" "$build/fuzz-corpus" "$build/fuzz-artifacts"
if [[ -d $corpus ]]; then
  find "$corpus" -name '*.hsaco' -print0 | while IFS= read -r -d '' f; do
    cp -f "$f" "$seeds/$(echo "$f" | md5sum | cut -c1-16).hsaco"
  done
else
  echo "note: no corpus at $corpus; fuzzing from an empty seed set" >&2
fi

# Seed files run up to ~42 KB; mutated inputs may grow past that.
exec "$build/tests/fuzz/fuzz_codeobj" -max_total_time="$seconds" -max_len=131072 \
  -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
  -artifact_prefix="$build/fuzz-artifacts/" "$build/fuzz-corpus" "$seeds"

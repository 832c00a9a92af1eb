#!/usr/bin/env bash
# The text front end against the code-object path on the same kernels: the
# corpus's every .amdgcn analyzed alone, then its .hsaco alone (LLVM's
# disassembler), both through treg-analyze (Release, build-bench/), best of
# 3 wall times, in the same script so the ratio means something where the
# absolute times do not.  Prints instructions/s of each and text / binary.
#
#   bench/text_front_end.sh [CORPUS_DIR]     (default: ../shared/corpus)
#
# No target: the figure is reported; the exit status is 0 whenever it ran.
set -euo pipefail
# shellcheck source=bench/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
bench_corpus "${1:-}"
build=$root/build-bench
if [[ ! -f $build/CMakeCache.txt ]]; then
    cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release >/dev/null
fi
cmake --build "$build" -j"$(nproc)" --target treg-analyze >/dev/null
tool=$build/tools/treg-analyze

texts=() binaries=()
for f in "${files[@]}"; do
    [[ -f ${f%.hsaco}.amdgcn ]] || continue
    texts+=("${f%.hsaco}.amdgcn")
    binaries+=("$f")
done
((${#texts[@]})) || {
    echo "bench: no .hsaco with its .amdgcn under $corpus; skipped"
    exit 0
}

insns=$("$tool" --format json --no-rows --no-assembly "${binaries[@]}" |
    python3 -c 'import json, sys; print(sum(k["instructions"] for r in json.load(sys.stdin)["reports"] for k in r["kernels"]))')
text_s=$(best_of "$tool" --format json --no-rows "${texts[@]}")
binary_s=$(best_of "$tool" --format json --no-rows --no-assembly "${binaries[@]}")
awk -v n="$insns" -v t="$text_s" -v b="$binary_s" -v k="${#texts[@]}" 'BEGIN {
    printf "%d kernels, %d instructions\n", k, n
    printf "  text alone (.amdgcn)     %6.2f s  %9.0f instructions/s\n", t, n / t
    printf "  code object alone        %6.2f s  %9.0f instructions/s\n", b, n / b
    printf "  text / code object       %6.2f x the time\n", t / b
}'

#!/usr/bin/env bash
# The text front end's whole analysis against the assembler: every .amdgcn
# of the corpus analyzed alone by treg-analyze (one process, Release,
# build-bench/), and the same files merely assembled by llvm-mc-22 (one
# process per file, as it takes one), best of 3 wall times each, in the same
# script, so their ratio means something where the absolute times do not.
# Hygon kernels reach treg as text (Hygon's Triton writes each .amdgcn and
# assembles the .hsaco from it), so this ratio is a Hygon user's wait
# against the compiler's own last step.  A second line times treg alone on
# the Hygon texts of tests/data and tests/cli/data/hygon (the fork's gfx936
# inputs, aiter-das's hand-written GEMMs, the MLS/MMAC/WASP texts), which
# upstream llvm-mc cannot assemble: their instructions per second.
#
#   bench/text_vs_assembler.sh [CORPUS_DIR]     (default: ../shared/corpus)
#
# Prints the ratio; exit status 0 whenever it ran (the target, at most
# 0.25x, is read by a person, not enforced by a timed test).
set -euo pipefail
# shellcheck source=bench/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
bench_corpus "${1:-}"
MC=${MC:-llvm-mc-22}
command -v "$MC" >/dev/null || {
  echo "bench: $MC not found; skipped"
  exit 0
}
build=$root/build-bench
if [[ ! -f $build/CMakeCache.txt ]]; then
  cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release >/dev/null
fi
cmake --build "$build" -j"$(nproc)" --target treg-analyze >/dev/null
tool=$build/tools/treg-analyze
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

mapfile -t texts < <(find "$corpus" -name '*.amdgcn' -type f | LC_ALL=C sort)
((${#texts[@]})) || {
  echo "bench: no .amdgcn under $corpus; skipped"
  exit 0
}
# Each text's llvm-mc arguments from its .amdgcn_target: processor and features.
args=()
for f in "${texts[@]}"; do
  id=$(grep -m1 -o '\.amdgcn_target "[^"]*"' "$f" | sed 's/.*--//; s/"$//')
  cpu=${id%%:*} attrs=""
  IFS=: read -r -a feats <<<"${id#"$cpu"}"
  for x in "${feats[@]}"; do
    [[ -n $x ]] || continue
    attrs+="${attrs:+,}${x: -1}${x%?}"
  done
  args+=("-mcpu=$cpu${attrs:+ -mattr=$attrs}")
done
assemble_all() {
  local i
  for i in "${!texts[@]}"; do
    # shellcheck disable=SC2086 # the -mcpu/-mattr words
    "$MC" -triple=amdgcn-amd-amdhsa ${args[$i]} -filetype=obj "${texts[$i]}" -o "$work/o" || return 1
  done
}
assemble_all || {
  echo "bench: $MC failed on a corpus text; skipped"
  exit 0
}

count() { # FILE...: instructions treg analyzes in them
  "$tool" --format json --no-rows "$@" |
    python3 -c 'import json, sys; print(sum(k["instructions"] for r in json.load(sys.stdin)["reports"] for k in r["kernels"]))'
}
insns=$(count "${texts[@]}")
treg_s=$(best_of "$tool" --format json --no-rows "${texts[@]}")
mc_s=$(best_of assemble_all)
mapfile -t hygon < <(find "$root/tests/data/hygon-triton-das" "$root/tests/data/hygon-aiter-das" \
  "$root/tests/cli/data/hygon" \( -name '*.amdgcn' -o -name '*.s' \) -type f | LC_ALL=C sort)
hinsns=$(count "${hygon[@]}")
hygon_s=$(best_of "$tool" --format json --no-rows "${hygon[@]}")
awk -v n="$insns" -v t="$treg_s" -v m="$mc_s" -v k="${#texts[@]}" -v hn="$hinsns" -v h="$hygon_s" \
  -v hk="${#hygon[@]}" 'BEGIN {
    printf "%d texts, %d instructions\n", k, n
    printf "  treg-analyze, the whole analysis   %6.2f s  %9.0f instructions/s\n", t, n / t
    printf "  llvm-mc-22, assembling only        %6.2f s  %9.0f instructions/s\n", m, n / m
    printf "  treg / llvm-mc                     %6.2f x the time (target: 0.25 or less)\n", t / m
    printf "%d Hygon texts, %d instructions (MMAC, MLS, WASP ...): treg %6.2f s, %9.0f instructions/s\n", hk, hn, h, hn / h
    printf "  (small files: each file'"'"'s start weighs on that rate)\n"
}'

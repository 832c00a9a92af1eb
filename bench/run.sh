#!/usr/bin/env bash
# The benchmark of record: builds treg-bench (Release, build-bench/), runs it
# on a Triton cache corpus, times llvm-objdump disassembling the same code
# objects as the reference, and prints treg's time against it.  The
# reference runs on the same machine in the same script, so the ratio
# means something where absolute times do not.
#
#   bench/run.sh [CORPUS_DIR]     (default: ../shared/corpus next to the repo)
#
# Targets: full analysis <= 0.5 x llvm-objdump -d on the same files (shown
# on one thread and on a pool of one thread per core, the server's shape;
# llvm-objdump uses one), and CFG + liveness >= 1,000,000 instructions/s on
# one core.  Figures are
# reported, not asserted: the exit status is 0 whenever the bench ran.
set -euo pipefail

# shellcheck source=bench/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
bench_corpus "${1:-}"
build=$root/build-bench
reps=5
objdump=${OBJDUMP:-llvm-objdump-22}

# Release, so the figures are the ones users get; incremental when built.
if [[ ! -f $build/CMakeCache.txt ]]; then
    cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release >/dev/null
fi
cmake --build "$build" -j"$(nproc)" --target treg-bench treg-analyze >/dev/null

# Best of $reps wall times of a command, in seconds, output discarded.
best_of() {
    local best="" t0 t1 t
    for ((i = 0; i < reps; i++)); do
        t0=$(date +%s.%N)
        "$@" >/dev/null 2>&1
        t1=$(date +%s.%N)
        t=$(awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }')
        if [[ -z $best ]] || awk -v t="$t" -v b="$best" 'BEGIN { exit !(t < b) }'; then
            best=$t
        fi
    done
    printf '%.4f\n' "$best"
}

out=$("$build/bench/treg-bench" -r "$reps" "${files[@]}")
echo "$out"
result=$(grep '^result ' <<<"$out")
field() { sed -n "s/.* $1=\([^ ]*\).*/\1/p" <<<"$result"; }
treg_s=$(field full_best_s)
insns=$(field instructions)
full_ips=$(field full_ips)
flow_ips=$(field flow_ips)
threads=$(field threads)
pool_s=$(field pool_best_s)

if ! command -v "$objdump" >/dev/null; then
    echo "bench: $objdump not found; the objdump comparison is skipped"
    exit 0
fi
# One invocation per target over all its files (objdump_all, bench/lib.sh),
# as treg-bench analyzes them in one process.
lists=$(mktemp -d)
trap 'rm -rf "$lists"' EXIT
objdump_lists "$lists" "${files[@]}"
objdump_all "$objdump" "$lists" || { echo "bench: $objdump failed on the corpus"; exit 1; }
objdump_s=$(best_of objdump_all "$objdump" "$lists")
# The command-line tool end to end (process start, file reads, JSON), for
# an apples-to-apples process-level comparison.
cli_s=$(best_of "$build/tools/treg-analyze" --format json "${files[@]}")

if command -v hyperfine >/dev/null; then
    echo
    hyperfine --warmup 1 --runs "$reps" -N \
        "bash -c '. $root/bench/lib.sh; objdump_all $objdump $lists'" \
        "$build/tools/treg-analyze --format json ${files[*]}" || true
fi

ratio=$(awk -v a="$treg_s" -v b="$objdump_s" 'BEGIN { print a / b }')
cli_ratio=$(awk -v a="$cli_s" -v b="$objdump_s" 'BEGIN { print a / b }')
pool_ratio=$(awk -v a="$pool_s" -v b="$objdump_s" 'BEGIN { print a / b }')
# verdict VALUE OP LIMIT: "met" or "MISSED".
verdict() {
    if awk -v v="$1" -v l="$3" -v op="$2" \
        'BEGIN { exit !(op == "<=" ? v <= l : v >= l) }'; then
        echo met
    else
        echo MISSED
    fi
}

echo
echo "corpus: ${#files[@]} code objects, $insns instructions ($corpus)"
printf '%-44s %12s %14s %8s\n' "measure" "value" "target" "status"
printf '%-44s %10.4f s %14s %8s\n' "treg full analysis (in process, best of $reps)" "$treg_s" "" ""
printf '%-44s %10.4f s %14s %8s\n' "$objdump -d, all files, per target (best of $reps)" "$objdump_s" "" ""
printf '%-44s %12.3f %14s %8s\n' "ratio treg / objdump, one thread" "$ratio" "<= 0.5" \
    "$(verdict "$ratio" "<=" 0.5)"
printf '%-44s %10.4f s %14s %8s\n' "treg full analysis on $threads threads" "$pool_s" "" ""
printf '%-44s %12.3f %14s %8s\n' "ratio treg / objdump, $threads threads" "$pool_ratio" "<= 0.5" \
    "$(verdict "$pool_ratio" "<=" 0.5)"
printf '%-44s %10.4f s %14s %8s\n' "treg-analyze --format json (process)" "$cli_s" "" ""
printf '%-44s %12.3f %14s %8s\n' "ratio treg-analyze / objdump" "$cli_ratio" "(info)" ""
printf '%-44s %12.0f %14s %8s\n' "full analysis, instructions/s" "$full_ips" "(info)" ""
printf '%-44s %12.0f %14s %8s\n' "CFG + liveness, largest kernel, instr/s" "$flow_ips" \
    ">= 1000000" "$(verdict "$flow_ips" ">=" 1000000)"

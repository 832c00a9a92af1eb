#!/usr/bin/env bash
# Whole caches: treg-analyze --format json (with rows) over the shared corpus
# and over a 1,000-entry cache assembled from it, against llvm-objdump-22 -d
# over the same .hsaco files in the same script.  Prints, per cache, the
# wall-time ratio (best of three each; target <= 0.5x) and treg-analyze's
# peak resident set (target < 256 MiB, whatever the number of files), and
# checks that the output is one valid JSON document with one report per
# code object.  llvm-objdump runs once per target (objdump_all, lib.sh).
#
#   bench/cache_scale.sh [CORPUS_DIR] [ENTRIES]   (defaults: ../shared/corpus, 1000)
#
# The assembled cache holds hard links (copies where links fail) of the
# corpus entries under fresh entry names, as autotuning fills a real cache
# with variants of a few kernels.  Figures are reported, not asserted.
set -euo pipefail

# shellcheck source=bench/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
bench_corpus "${1:-}"
entries=${2:-1000}
build=$root/build-bench
objdump=${OBJDUMP:-llvm-objdump-22}
analyze=${TREG_ANALYZE:-$build/tools/treg-analyze}

if [[ -z ${TREG_ANALYZE:-} ]]; then
    if [[ ! -f $build/CMakeCache.txt ]]; then
        cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release >/dev/null
    fi
    cmake --build "$build" -j"$(nproc)" --target treg-analyze >/dev/null
fi
command -v "$objdump" >/dev/null || {
    echo "bench: $objdump not found; skipped"
    exit 0
}

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# The entries of the corpus (folders holding a .hsaco), round robin into
# $entries fresh folders.
mapfile -t dirs < <(printf '%s\n' "${files[@]}" | xargs -n1 dirname | LC_ALL=C sort -u)
big=$work/cache
mkdir -p "$big"
for ((i = 0; i < entries; i++)); do
    src=${dirs[i % ${#dirs[@]}]}
    dst=$big/$(printf 'E%05d' "$i")
    mkdir "$dst"
    for f in "$src"/*.hsaco "$src"/*.json "$src"/*.amdgcn; do
        [[ -e $f ]] || continue
        ln "$f" "$dst/" 2>/dev/null || cp "$f" "$dst/"
    done
done

# seconds and peak KiB of a command, best of three runs, output to $work/out
measure() {
    local best="" kib=0 s k
    for _ in 1 2 3; do
        /usr/bin/time -f '%e %M' -o "$work/time" "$@" >"$work/out" 2>"$work/err" || true
        read -r s k <"$work/time"
        if [[ -z $best ]] || awk -v a="$s" -v b="$best" 'BEGIN { exit !(a < b) }'; then best=$s; fi
        ((k > kib)) && kib=$k
    done
    echo "$best $kib"
}

run_one() {
    local label=$1 dir=$2
    mapfile -t objs < <(find "$dir" -name '*.hsaco' -type f | LC_ALL=C sort)
    objdump_lists "$work" "${objs[@]}"
    # shellcheck disable=SC2016 # expanded by that bash
    read -r ts tk < <(measure bash -c '. "$0"; objdump_all "$1" "$2"' "$root/bench/lib.sh" \
        "$objdump" "$work")
    read -r s k < <(measure "$analyze" --format json "$dir")
    local check
    check=$(python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
rows = sum(len(k.get("rows", [])) for r in d["reports"] for k in r["kernels"])
print(len(d["reports"]), len(d["errors"]), rows)' "$work/out" 2>&1) || check="INVALID JSON: $check"
    awk -v l="$label" -v n="${#objs[@]}" -v ts="$ts" -v tk="$tk" -v s="$s" -v k="$k" \
        -v c="$check" 'BEGIN {
        fmt = "%-20s %5d files  objdump %6.2f s %5.0f MiB  treg-analyze json %6.2f s %5.0f MiB"
        fmt = fmt "  ratio %.2fx  (reports, errors, rows: %s)\n"
        printf fmt, l, n, ts, tk / 1024, s, k / 1024, (ts > 0 ? s / ts : 0), c }'
}

run_one "shared corpus" "$corpus"
run_one "$entries-entry cache" "$big"

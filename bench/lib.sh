# Shared by the bench scripts (sourced): the corpus they run on.
# shellcheck shell=bash

# bench_corpus [DIR]: sets root (the checkout), corpus (DIR, else
# ../shared/corpus next to the checkout) and files (every .hsaco below it,
# sorted); without a corpus or .hsaco files, says so and exits 0: a bench
# that cannot run is skipped, not failed.
bench_corpus() {
    root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
    corpus=${1:-$root/../shared/corpus}
    if [[ ! -d $corpus ]]; then
        echo "bench: corpus $corpus not found (pass a Triton cache folder); skipped"
        exit 0
    fi
    mapfile -t files < <(find "$corpus" -name '*.hsaco' -type f | LC_ALL=C sort)
    if ((${#files[@]} == 0)); then
        echo "bench: no .hsaco files under $corpus; skipped"
        exit 0
    fi
}

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

# objdump_lists DIR FILE...: DIR/objs.<processor> lists the files of each
# target (e_flags' low byte), for objdump_all: LLVM 22's llvm-objdump crashes
# on a list that mixes gfx906 with later targets, so the reference runs one
# llvm-objdump per target over all of that target's files.
objdump_lists() {
    local dir=$1 f
    shift
    rm -f "$dir"/objs.*
    for f in "$@"; do
        echo "$f" >>"$dir/objs.$(od -An -tx1 -j48 -N1 "$f" | tr -d ' ')"
    done
}

# objdump_all OBJDUMP DIR: llvm-objdump -d over DIR's lists, output discarded;
# fails when one of them fails.
objdump_all() {
    local l
    for l in "$2"/objs.*; do
        xargs -d '\n' -a "$l" "$1" -d >/dev/null || return 1
    done
}

# best_of COMMAND...: the best of 3 wall times of COMMAND, in seconds (its
# output and failures ignored: a bench reports, it does not judge).
best_of() {
    local best="" t0 t1 t i
    for ((i = 0; i < 3; i++)); do
        t0=$(date +%s.%N)
        "$@" >/dev/null 2>&1 || true
        t1=$(date +%s.%N)
        t=$(awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }')
        if [[ -z $best ]] || awk -v t="$t" -v b="$best" 'BEGIN { exit !(t < b) }'; then best=$t; fi
    done
    echo "$best"
}

# bench_server_dir NAME: sets work (a temporary folder, removed at exit with
# the tregd bench_tregd started there), a CA and certificate for 127.0.0.1
# in work/certs and a random token.  Needs root (bench_corpus or set).
bench_server_dir() {
    work=$(mktemp -d "${TMPDIR:-/tmp}/treg-$1.XXXXXX")
    server_pid=""
    trap '[[ -z $server_pid ]] || kill "$server_pid" 2>/dev/null || true; rm -rf "$work"' EXIT
    "$root/deploy/make-certs.sh" "$work/certs" 127.0.0.1 >/dev/null
    token=$(openssl rand -hex 32)
}

# bench_tregd TREGD STORE LOG [ARGS...]: that tregd on 127.0.0.1 with
# bench_server_dir's certificate and token; sets server_pid and port.
bench_tregd() {
    local tregd=$1 store=$2 log=$3
    shift 3
    rm -f "$work/port"
    "$tregd" --listen 127.0.0.1:0 --port-file "$work/port" --cert "$work/certs/server.pem" \
        --key "$work/certs/server.key" --store "$store" --token "$token" "$@" 2>"$log" &
    server_pid=$!
    for _ in $(seq 200); do [[ -s $work/port ]] && break; sleep 0.05; done
    # shellcheck disable=SC2034 # for the caller
    port=$(tr -dc '0-9' <"$work/port")
}

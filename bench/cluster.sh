#!/usr/bin/env bash
# Several tregd behind HAProxy: uploads/s and p99 through the balancer with one
# server and with two, on one store folder and one PostgreSQL index (a
# throwaway PostgreSQL, tests/support/with-postgres.sh; HAProxy in TCP
# pass-through, as deploy/haproxy.cfg.example).  Driven by bench/service_load
# (keep-alive HTTPS, closed loop, tregc's hash-first upload):
#   stored  blobs every server has: a hash and one GET each (8 and 64 clients)
#   fresh   blobs no server has seen: a full analysis and store write each (8 clients)
# The same total of worker processes both ways (one server with --workers N,
# two with N/2 each, N the cores): on one machine the second server adds an
# event loop and a share of the balancing, not cores, so "two / one" says what
# the layout costs or gains here, not what a second machine would add.  The
# reference is the one-server run of this same script.
#
#   bench/cluster.sh [CORPUS_DIR]     (default: ../shared/corpus next to the repo)
#
# Builds (Release, build-bench/) tregd and service_load; needs haproxy and
# PostgreSQL (scripts/install-deps.sh).  Figures are reported, not asserted.
set -euo pipefail

# shellcheck source=bench/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
bench_corpus "${1:-}"
if [[ -z ${TREG_TEST_INDEX:-} ]]; then
    exec "$root/tests/support/with-postgres.sh" bash "${BASH_SOURCE[0]}" "$@"
fi
build=$root/build-bench
cores=$(nproc)
for tool in openssl cmake haproxy python3; do
    command -v "$tool" >/dev/null || { echo "bench: $tool not found (scripts/install-deps.sh)" >&2; exit 1; }
done
cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$build" -j"$cores" --target tregd service_load >/dev/null

work=$(mktemp -d "${TMPDIR:-/tmp}/treg-cluster-bench.XXXXXX")
pids=()
cleanup() {
    local p
    for p in "${pids[@]}"; do kill -KILL -- "-$p" 2>/dev/null || true; done
    wait 2>/dev/null || true
    rm -rf "$work"
}
trap cleanup EXIT
"$root/deploy/make-certs.sh" "$work/certs" 127.0.0.1 >/dev/null
token=$(openssl rand -hex 24)
free_port() {
    python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}
field() { sed -n "s/.* $1=\([^ ]*\).*/\1/p" <<<"$2"; }

# layout N: N tregd (cores/N workers each) on a fresh store and a fresh
# index, HAProxy in front; prints one result line per run.
layout() {
    local n=$1 i store=$work/store.$1 ports=() hp
    psql_reset
    for ((i = 0; i < n; i++)); do
        setsid "$build/server/tregd" --listen 127.0.0.1:0 --port-file "$work/port.$n.$i" \
            --cert "$work/certs/server.pem" --key "$work/certs/server.key" --store "$store" \
            --index "$TREG_TEST_INDEX" --instance "s$i" --token "$token" \
            --workers $((cores / n > 0 ? cores / n : 1)) --queue 1024 --timeout 120 \
            2>"$work/tregd.$n.$i.log" &
        pids+=($!)
        for ((t = 0; t < 100; t++)); do
            [[ -s $work/port.$n.$i ]] && break
            sleep 0.1
        done
        [[ -s $work/port.$n.$i ]] || { cat "$work/tregd.$n.$i.log" >&2; exit 1; }
        ports+=("$(tr -dc '0-9' <"$work/port.$n.$i")")
    done
    hp=$(free_port)
    {
        printf 'global\n    maxconn 4096\ndefaults\n    mode tcp\n    timeout connect 2s\n'
        printf '    timeout client 300s\n    timeout server 300s\n    option redispatch\n    retries 3\n'
        printf 'frontend treg\n    bind 127.0.0.1:%s\n    default_backend tregd\n' "$hp"
        printf 'backend tregd\n    balance leastconn\n    option httpchk\n'
        printf '    http-check send meth GET uri /v1/health ver HTTP/1.1 hdr Host 127.0.0.1\n'
        printf '    default-server check check-ssl verify required ca-file %s inter 1s\n' "$work/certs/ca.pem"
        for ((i = 0; i < n; i++)); do printf '    server s%d 127.0.0.1:%s\n' "$i" "${ports[$i]}"; done
    } >"$work/haproxy.$n.cfg"
    setsid haproxy -db -f "$work/haproxy.$n.cfg" >"$work/haproxy.$n.log" 2>&1 &
    pids+=($!)
    sleep 2 # the first health checks
    local server=https://127.0.0.1:$hp out
    run() {
        out=$(timeout 900 "$build/bench/service_load" --server "$server" --ca "$work/certs/ca.pem" \
            "$@" "${files[@]}") || { echo "bench: service_load $* failed" >&2; exit 1; }
        echo "servers=$n $(grep '^result ' <<<"$out")"
    }
    export TREG_TOKEN=$token
    run --fresh -c 8 -n $((4 * ${#files[@]}))
    run -c 1 -n "${#files[@]}" >/dev/null # every file stored
    run -c 8 -n 8000
    run -c 64 -n 32000
    for p in "${pids[@]}"; do kill -TERM -- "-$p" 2>/dev/null || true; done
    wait 2>/dev/null || true
    pids=()
}
psql_reset() {
    python3 - "$TREG_TEST_INDEX" <<'PY'
import subprocess, sys, urllib.parse
u = urllib.parse.urlparse(sys.argv[1])
sql = "DROP TABLE IF EXISTS reports, report_kernels, uploads, treg_schema"
subprocess.run(["psql", "-q", "-h", u.hostname, "-p", str(u.port), "-U", u.username,
                u.path.lstrip("/"), "-c", sql], check=True, capture_output=True)
PY
}

rows=()
while read -r line; do rows+=("$line"); done < <(layout 1)
while read -r line; do rows+=("$line"); done < <(layout 2)

echo "corpus: ${#files[@]} code objects ($corpus); $cores cores; HAProxy $(haproxy -v | head -n1 | awk '{print $3}'), PostgreSQL index"
printf '%-8s %-7s %8s %9s %10s %9s %9s %12s\n' servers mode clients requests uploads/s p50_ms p99_ms "vs 1 server"
declare -A one=()
for r in "${rows[@]}"; do
    s=$(field servers " $r") mode=$(field mode "$r") c=$(field clients "$r")
    rps=$(field rps "$r")
    [[ $s == 1 ]] && one[$mode.$c]=$rps
    ratio=$(awk -v a="$rps" -v b="${one[$mode.$c]:-0}" 'BEGIN { if (b > 0) printf "%.2fx", a / b }')
    printf '%-8s %-7s %8s %9s %10s %9s %9s %12s\n' "$s" "$mode" "$c" "$(field requests "$r")" "$rps" \
        "$(field p50_ms "$r")" "$(field p99_ms "$r")" "$ratio"
done

#!/usr/bin/env bash
# The service benchmark: tregd on loopback, driven by bench/service_load (keep-alive
# HTTPS connections, one upload outstanding per connection, closed loop), with
# 1, 8 and 64 concurrent clients.  An upload is what tregc upload does (text
# output): the code object's SHA-256 on the client, GET /v1/reports/{hash}?rows=0,
# and only on a 404 a POST /v1/analyze of the blob with omit_rows
# (protocol "hash-first"; service_load prints the exact sequence):
#   stored  the same blobs again and again, each already analyzed: uploads/s,
#           p50/p99 latency.  Target: p99 <= 5 ms at 64 clients.  Each is a
#           hash and one GET answered with the report without rows.  For
#           comparison the old path is measured too (protocol "legacy": POST
#           of the blob, the full report with rows back), as old clients
#           still use it.
#   fresh   every upload a blob the server has never seen (a unique trailer
#           after the code object's bytes, ignored by the analyzer): a full
#           analysis and store write each.  uploads/s, p50/p99, and the
#           server's analysis throughput in instructions/s as a ratio of
#           the analyzer's own in-process figure (treg-bench's full_ips, one
#           thread, on the same files, run by this script).  Target: >= 0.8x
#           with as many clients as workers or more.
# Both sides share this machine's cores (the load generator parses every
# report it gets back), and the figures say so by being run here, together.
#
#   bench/service.sh [CORPUS_DIR]     (default: ../shared/corpus next to the repo)
#
# Builds (Release, build-bench/) treg-bench, tregd, tregc and service_load;
# makes a throwaway CA, token and store; stops the server and deletes them at
# exit.  Figures are reported, not asserted: the exit status is 0 whenever
# the bench ran.  CTest does not run it.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
corpus=${1:-$root/../shared/corpus}
build=$root/build-bench
cores=$(nproc)

if [[ ! -d $corpus ]]; then
    echo "bench: corpus $corpus not found (pass a Triton cache folder); skipped"
    exit 0
fi
mapfile -t files < <(find "$corpus" -name '*.hsaco' -type f | LC_ALL=C sort)
if ((${#files[@]} == 0)); then
    echo "bench: no .hsaco files under $corpus; skipped"
    exit 0
fi
for tool in openssl cmake; do
    command -v "$tool" >/dev/null || { echo "bench: $tool not found (scripts/install-deps.sh)" >&2; exit 1; }
done

# Configured every time: the folder may predate server/ and client/.
cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$build" -j"$cores" --target treg-bench tregd tregc service_load >/dev/null

work=$(mktemp -d "${TMPDIR:-/tmp}/treg-service-bench.XXXXXX")
server_pid=""
cleanup() {
    if [[ -n $server_pid ]]; then
        kill -TERM "$server_pid" 2>/dev/null || true
        wait "$server_pid" 2>/dev/null || true
    fi
    rm -rf "$work"
}
trap cleanup EXIT

# The analyzer in process, on the same files (one thread: full_ips; the
# pool of one thread per core for information).
bench_out=$("$build/bench/treg-bench" -r 5 --full-only "${files[@]}")
result=$(grep '^result ' <<<"$bench_out")
field() { sed -n "s/.* $1=\([^ ]*\).*/\1/p" <<<"$2"; }
full_ips=$(field full_ips "$result")
insns=$(field instructions "$result")
pool_ips=$(awk -v n="$insns" -v s="$(field pool_best_s "$result")" 'BEGIN { printf "%.0f", n / s }')

"$root/deploy/make-certs.sh" "$work/certs" 127.0.0.1 >/dev/null
export TREG_TOKEN
TREG_TOKEN=$(openssl rand -hex 24)
"$build/server/tregd" --listen 127.0.0.1:0 --port-file "$work/port" \
    --cert "$work/certs/server.pem" --key "$work/certs/server.key" --store "$work/store" \
    --token "$TREG_TOKEN" --workers "$cores" --queue 1024 --timeout 120 2>"$work/tregd.log" &
server_pid=$!
for ((i = 0; i < 100; i++)); do
    [[ -s $work/port ]] && break
    sleep 0.1
done
[[ -s $work/port ]] || { cat "$work/tregd.log" >&2; echo "bench: tregd did not start" >&2; exit 1; }
server=https://127.0.0.1:$(tr -dc '0-9' <"$work/port")

# load ARGS...: one service_load run; prints its result line.
load() {
    local out
    out=$(timeout 600 "$build/bench/service_load" --server "$server" --ca "$work/certs/ca.pem" "$@" \
        "${files[@]}") || { echo "bench: service_load $* failed" >&2; exit 1; }
    grep '^result ' <<<"$out"
}

n=${#files[@]}
rows=()
# Fresh analyses first (the store is empty), then one pass that stores
# every file as it is, then the repeated-blob runs.
for c in 1 8 64; do
    # Long enough (8 and 16 passes over the files) that the figure is the
    # steady state, not the first few uploads of a new store.
    reqs=$((c == 1 ? n : (c == 8 ? 8 * n : 16 * n)))
    rows+=("$(load --fresh -c "$c" -n "$reqs")")
done
load -c 1 -n "$n" >/dev/null
for proto in hash-first legacy; do
    for c in 1 8 64; do
        reqs=$((c == 1 ? 1000 : (c == 8 ? 4000 : 8000)))
        flags=()
        [[ $proto == legacy ]] && flags=(--legacy)
        rows+=("$(load "${flags[@]}" -c "$c" -n "$reqs")")
    done
done

verdict() { # VALUE OP LIMIT
    if awk -v v="$1" -v l="$3" -v op="$2" 'BEGIN { exit !(op == "<=" ? v <= l : v >= l) }'; then
        echo met
    else
        echo MISSED
    fi
}

echo "corpus: $n code objects, $insns instructions ($corpus); $cores cores, tregd --workers $cores"
echo "analyzer in process (treg-bench, best of 5): $full_ips instr/s on one thread," \
    "$pool_ips instr/s on $cores threads"
echo
printf '%-7s %-10s %7s %8s %10s %9s %9s %9s %12s %13s %7s  %-22s %s\n' mode protocol clients \
    requests uploads/s p50_ms p99_ms max_ms bytes/upload server_ips ratio target status
for r in "${rows[@]}"; do
    mode=$(field mode "$r") c=$(field clients "$r") reqs=$(field requests "$r")
    proto=$(field protocol "$r")
    per=$(awk -v b="$(field bytes_in "$r")" -v n="$reqs" 'BEGIN { printf "%.0f", b / n }')
    rps=$(field rps "$r") p50=$(field p50_ms "$r") p99=$(field p99_ms "$r") mx=$(field max_ms "$r")
    errors=$(field errors "$r") stored=$(field stored_before "$r") ips=$(field ips "$r")
    ratio="" target="" status=""
    if [[ $mode == fresh ]]; then
        ratio=$(awk -v a="$ips" -v b="$full_ips" 'BEGIN { printf "%.2f", a / b }')
        if ((c >= cores)) && [[ $proto == hash-first ]]; then
            target=">= 0.8x analyzer ips"
            status=$(verdict "$ratio" ">=" 0.8)
        else
            target="(info: $c client)"
        fi
        ((stored == 0)) || status+=" ($stored were stored before!)"
    else
        ips="" # repeated blobs analyze nothing
        if ((c == 64)) && [[ $proto == hash-first ]]; then
            target="p99 <= 5 ms"
            status=$(verdict "$p99" "<=" 5)
        fi
        ((stored == reqs)) || status+=" (only $stored of $reqs stored before!)"
    fi
    ((errors == 0)) || status+=" ($errors errors)"
    printf '%-7s %-10s %7s %8s %10s %9s %9s %9s %12s %13s %7s  %-22s %s\n' "$mode" "$proto" "$c" \
        "$reqs" "$rps" "$p50" "$p99" "$mx" "$per" "$ips" "$ratio" "$target" "$status"
done
echo
echo "upload (hash-first): SHA-256 of the code object in the client (timed), GET /v1/reports/{hash}?rows=0;"
echo "    200: that report without per-instruction rows is the answer, no blob sent (every stored run);"
echo "    404: POST /v1/analyze with the blob and omit_rows (every fresh run: GET + POST)"
echo "upload (legacy): POST /v1/analyze with the blob, the full report (rows included) back"
echo "bytes/upload: response bodies received per upload"
echo "ratio: the server's analyzed instructions/s (fresh uploads, end to end: TLS, protobuf, the"
echo "worker pool, store writes with fsync, the client's parsing on the same cores) over treg-bench's"
echo "one-thread in-process full_ips; against the $cores-thread in-process figure divide by" \
    "$(awk -v a="$pool_ips" -v b="$full_ips" 'BEGIN { printf "%.2f", a / b }')."

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
#           the analyzer's own in-process figure on one thread, on the same
#           files, run by this script: treg-bench's sustained rate (all of
#           8 passes' instructions over their summed time), measured just
#           before the fresh runs and again just after, the two averaged.
#           Sustained, like the server's figure, which is hundreds of
#           uploads end to end; the best single pass is printed too, and
#           the ratio against it, for information (on this VM the best pass
#           runs 1.3-1.5x the median).  Target: >= 0.8x with as many
#           clients as workers or more.
# Both sides share this machine's cores.  The load generator is one thread
# kept cheaper per upload than tregd's event loop (it speaks HTTP/1.1 over
# OpenSSL itself; it unpacks a report only to count a fresh file's
# instructions once), so the latencies are the server's queue and not the
# generator's; the table prints both sides' CPU per upload (loop_us,
# client_us) to show which one was the bottleneck.
#
#   bench/service.sh [CORPUS_DIR]     (default: ../shared/corpus next to the repo)
#
# Builds (Release, build-bench/) treg-bench, tregd, tregc and service_load;
# makes a throwaway CA, token and store; stops the server and deletes them at
# exit.  Figures are reported, not asserted: the exit status is 0 whenever
# the bench ran.  CTest does not run it.
set -euo pipefail

# shellcheck source=bench/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
bench_corpus "${1:-}"
build=$root/build-bench
cores=$(nproc)
for tool in openssl cmake; do
    command -v "$tool" >/dev/null || { echo "bench: $tool not found (scripts/install-deps.sh)" >&2; exit 1; }
done

# Configured every time: the folder may predate server/ and client/.
cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$build" -j"$cores" --target treg-bench tregd tregc service_load >/dev/null

work=$(mktemp -d "${TMPDIR:-/tmp}/treg-service-bench.XXXXXX")
# The store in a folder of a random name under a "top" directory (chattr +T,
# best effort): ext4's allocator then puts it in a block group of its own
# instead of next to the inodes the last run (or the test suite) freed.  On
# an ext4 without a journal, as on this VM, every file creation scans past
# the inodes freed in its group in the last minutes: measured, a store made
# right after the previous run's was deleted cost the server up to 0.6 ms
# of CPU per file and a third of its fresh-upload throughput.  That is the
# previous run's garbage, not the server; a long-lived store does not
# delete files.
chattr +T "$work" 2>/dev/null || true
store=$(mktemp -d "$work/store.XXXXXX")/store
server_pid=""
cleanup() {
    if [[ -n $server_pid ]]; then
        kill -TERM "$server_pid" 2>/dev/null || true
        wait "$server_pid" 2>/dev/null || true
    fi
    rm -rf "$work"
}
trap cleanup EXIT

field() { sed -n "s/.* $1=\([^ ]*\).*/\1/p" <<<"$2"; }
# The analyzer in process, on the same files: one thread's sustained rate
# and best pass; the pool of one thread per core for information.
in_process() {
    "$build/bench/treg-bench" -r 8 --full-only "${files[@]}" | grep '^result '
}
before=$(in_process)
insns=$(field instructions "$before")
pool_ips=$(awk -v n="$insns" -v s="$(field pool_best_s "$before")" 'BEGIN { printf "%.0f", n / s }')

"$root/deploy/make-certs.sh" "$work/certs" 127.0.0.1 >/dev/null
export TREG_TOKEN
TREG_TOKEN=$(openssl rand -hex 24)
"$build/server/tregd" --listen 127.0.0.1:0 --port-file "$work/port" \
    --cert "$work/certs/server.pem" --key "$work/certs/server.key" --store "$store" \
    --token "$TREG_TOKEN" --workers "$cores" --queue 1024 --timeout 120 2>"$work/tregd.log" &
server_pid=$!
for ((i = 0; i < 100; i++)); do
    [[ -s $work/port ]] && break
    sleep 0.1
done
[[ -s $work/port ]] || { cat "$work/tregd.log" >&2; echo "bench: tregd did not start" >&2; exit 1; }
server=https://127.0.0.1:$(tr -dc '0-9' <"$work/port")

# CPU time (clock ticks) of tregd's own process: the event loop and the
# store writers; analyses run in its worker processes and are not in it.
hz=$(getconf CLK_TCK)
server_ticks() { awk '{ print $14 + $15 }' "/proc/$server_pid/stat"; }

# load ARGS...: one service_load run; prints its result line, with
# server_cpu_us= (tregd's process CPU per upload during the run) added.
load() {
    local out t0 t1
    t0=$(server_ticks)
    out=$(timeout 600 "$build/bench/service_load" --server "$server" --ca "$work/certs/ca.pem" "$@" \
        "${files[@]}") || { echo "bench: service_load $* failed" >&2; exit 1; }
    t1=$(server_ticks)
    out=$(grep '^result ' <<<"$out")
    echo "$out server_cpu_us=$(awk -v d=$((t1 - t0)) -v hz="$hz" -v n="$(field requests "$out")" \
        'BEGIN { printf "%.1f", d / hz * 1e6 / n }')"
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
after=$(in_process)
sustained_ips=$(awk -v a="$(field sustained_ips "$before")" -v b="$(field sustained_ips "$after")" \
    'BEGIN { printf "%.0f", (a + b) / 2 }')
best_ips=$(awk -v a="$(field full_ips "$before")" -v b="$(field full_ips "$after")" \
    'BEGIN { printf "%.0f", (a > b ? a : b) }')
load -c 1 -n "$n" >/dev/null
for proto in hash-first legacy; do
    for c in 1 8 64; do
        # A p99 over 32,000 requests at 64 clients (about a second and a
        # half): over the 8,000 of earlier versions, one 10 ms stall of
        # this VM was past the 99th percentile on its own.  The old path
        # (information only) keeps the smaller counts: each answer is 96 KB.
        reqs=$((c == 1 ? 2000 : (c == 8 ? 8000 : 32000)))
        flags=()
        if [[ $proto == legacy ]]; then
            flags=(--legacy)
            reqs=$((reqs / 4))
        fi
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
echo "analyzer in process, one thread (treg-bench, 8 passes before and 8 after the fresh runs):" \
    "sustained $(field sustained_ips "$before") and $(field sustained_ips "$after") instr/s," \
    "reference $sustained_ips; best pass $best_ips; on $cores threads (best) $pool_ips instr/s"
echo
printf '%-7s %-10s %7s %8s %10s %9s %9s %9s %12s %9s %9s %13s %7s %7s  %-22s %s\n' mode protocol \
    clients requests uploads/s p50_ms p99_ms max_ms bytes/upload loop_us client_us server_ips ratio \
    vs_best target status
for r in "${rows[@]}"; do
    mode=$(field mode "$r") c=$(field clients "$r") reqs=$(field requests "$r")
    proto=$(field protocol "$r")
    per=$(awk -v b="$(field bytes_in "$r")" -v n="$reqs" 'BEGIN { printf "%.0f", b / n }')
    rps=$(field rps "$r") p50=$(field p50_ms "$r") p99=$(field p99_ms "$r") mx=$(field max_ms "$r")
    errors=$(field errors "$r") stored=$(field stored_before "$r") ips=$(field ips "$r")
    ratio="" vs_best="" target="" status=""
    if [[ $mode == fresh ]]; then
        ratio=$(awk -v a="$ips" -v b="$sustained_ips" 'BEGIN { printf "%.2f", a / b }')
        vs_best=$(awk -v a="$ips" -v b="$best_ips" 'BEGIN { printf "%.2f", a / b }')
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
    printf '%-7s %-10s %7s %8s %10s %9s %9s %9s %12s %9s %9s %13s %7s %7s  %-22s %s\n' "$mode" \
        "$proto" "$c" "$reqs" "$rps" "$p50" "$p99" "$mx" "$per" "$(field server_cpu_us "$r")" \
        "$(field client_cpu_us "$r")" "$ips" "$ratio" "$vs_best" "$target" "$status"
done
echo
echo "upload (hash-first): SHA-256 of the code object in the client (timed), GET /v1/reports/{hash}?rows=0;"
echo "    200: that report without per-instruction rows is the answer, no blob sent (every stored run);"
echo "    404: POST /v1/analyze with the blob and omit_rows (every fresh run: GET + POST)"
echo "upload (legacy): POST /v1/analyze with the blob, the full report (rows included) back"
echo "bytes/upload: response bodies received per upload"
echo "loop_us: CPU per upload of tregd's own process (its event loop and store writers; the"
echo "    analyses run in worker processes, not counted); client_us: the load generator's CPU"
echo "    per upload.  Both share the $cores cores: the one near 1e6/(uploads/s) is the bottleneck"
echo "ratio: the server's analyzed instructions/s (fresh uploads, end to end: TLS, protobuf, the"
echo "worker pool, store writes with fsync, the client's parsing on the same cores) over the"
echo "analyzer's sustained one-thread in-process rate (vs_best: over its best single pass); against"
echo "the $cores-thread in-process figure divide by" \
    "$(awk -v a="$pool_ips" -v b="$sustained_ips" 'BEGIN { printf "%.2f", a / b }')."

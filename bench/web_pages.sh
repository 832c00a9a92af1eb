#!/usr/bin/env bash
# What a large report page costs everyone else: tregd on loopback, the
# largest code object of the corpus uploaded, then GET /v1/health timed over
# one keep-alive connection (200 requests, one after another) twice: with
# nothing else running (the reference), and while 2 clients fetch that
# report's page (/r/...) over and over.  Before issue 31 the page was made on
# the event loop (a 3.8 MB page held it 50-80 ms per view, and every request
# waited behind it); now a page thread makes it.  Prints, for each tregd:
# the page's size and time, health p50/p99 idle and loaded, and loaded/idle.
#
#   bench/web_pages.sh [CORPUS_DIR]      (default: ../shared/corpus)
#   REF_TREGD=/path/to/an/older/tregd bench/web_pages.sh   adds that tregd's row
#
# Builds (Release, build-bench/) tregd and tregc.  Figures are reported, not
# asserted; CTest does not run it.
set -euo pipefail

# shellcheck source=bench/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
bench_corpus "${1:-}"
build=$root/build-bench
cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$build" -j"$(nproc)" --target tregd tregc >/dev/null
bench_server_dir web-bench
biggest=$(stat -c "%s %n" "${files[@]}" | sort -rn | sed -n "1s/^[0-9]* //p")

# run TREGD NAME: one row
run() {
    local tregd=$1 name=$2 base link
    bench_tregd "$tregd" "$work/store-$name" "$work/tregd-$name.log" --workers 1 --timeout 300
    base=https://127.0.0.1:$port
    "$build/client/tregc" --server "$base" --ca "$work/certs/ca.pem" --token "$token" \
        --format json --no-rows --no-source upload "$biggest" >"$work/up.json"
    link=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["reports"][0]["link"])' "$work/up.json")
    [[ $link == http* ]] || link=$base$link
    python3 - "$base" "$token" "$work/certs/ca.pem" "$link" "$name" <<'PY'
import http.client, os, signal, ssl, subprocess, sys, time, urllib.parse
base, token, ca, link, name = sys.argv[1:6]
u = urllib.parse.urlsplit(base)
ctx = ssl.create_default_context(cafile=ca)
def conn():
    return http.client.HTTPSConnection(u.hostname, u.port, context=ctx, timeout=120)
def health(n=200):
    c, ms = conn(), []
    for _ in range(n):
        t = time.perf_counter()
        c.request("GET", "/v1/health")
        c.getresponse().read()
        ms.append((time.perf_counter() - t) * 1000)
    c.close()
    ms.sort()
    return ms[len(ms) // 2], ms[int(len(ms) * 0.99) - 1]
p = urllib.parse.urlsplit(link)
c = conn()
t = time.perf_counter()
c.request("GET", p.path + "?" + p.query, headers={"Authorization": "Bearer " + token})
body = c.getresponse().read()
page_ms = (time.perf_counter() - t) * 1000
c.close()
health(50)  # warm
idle = health()
loop = ('while :; do curl -sS --cacert "$0" -H "Authorization: Bearer $1" -o /dev/null "$2" || true; done')
loaders = [subprocess.Popen(["bash", "-c", loop, ca, token, link], start_new_session=True) for _ in range(2)]
time.sleep(1.0)
busy = health()
for l in loaders:
    os.killpg(l.pid, signal.SIGTERM)
    l.wait()
print(f"{name:10s} page {len(body)/1e6:5.2f} MB {page_ms:7.1f} ms   health p50/p99 idle {idle[0]:5.2f}/{idle[1]:5.2f} ms"
      f"   while 2 clients load pages {busy[0]:6.2f}/{busy[1]:7.2f} ms   loaded/idle p99 {busy[1]/idle[1]:5.1f}x")
PY
    kill "$server_pid"
    wait "$server_pid" 2>/dev/null || true
    server_pid=""
}
echo "bench: $(basename "$biggest") ($(stat -c %s "$biggest") bytes), the largest of ${#files[@]} code objects"
run "$build/server/tregd" this
[[ -z ${REF_TREGD:-} ]] || run "$REF_TREGD" reference

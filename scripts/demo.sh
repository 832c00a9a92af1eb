#!/usr/bin/env bash
# The main job on its embedded default, end to end through the service: build
# treg (the analyzer, tregd and tregc), make a throwaway CA and a certificate
# for 127.0.0.1 (deploy/make-certs.sh), a random token and a temporary store,
# start tregd on 127.0.0.1, upload a real Triton cache entry bundled with the
# repository (tests/data: softmax_kernel for gfx90a as Triton 3.6.0 left it,
# its .hsaco, .json, .amdgcn and .ttgir) with tregc and print the server's
# report, fetch the same report
# again by the hash tregc printed (its per-line view next to the kernel's
# Python source, and as an HTML page), and stop the server with SIGTERM.
# Nothing else is left behind than that page ($TMPDIR/treg-demo-*.html): the
# certificates, the token, the store and the server go with the script's
# temporary folder, whatever way it exits.
set -euo pipefail
cd "$(dirname "$0")/.."
for tool in cmake openssl; do
    command -v "$tool" >/dev/null || { echo "demo: $tool not found: run scripts/install-deps.sh" >&2; exit 1; }
done

out=$(mktemp -d "${TMPDIR:-/tmp}/treg-demo.XXXXXX")
server_pid=""
cleanup() {
    if [[ -n $server_pid ]] && kill -0 "$server_pid" 2>/dev/null; then
        kill -TERM "$server_pid" 2>/dev/null || true
        wait "$server_pid" 2>/dev/null || true
    fi
    rm -rf "$out"
}
trap cleanup EXIT

echo "== building treg (build/, RelWithDebInfo)"
if ! { cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo &&
    cmake --build build -j "$(nproc)"; } >"$out/build.log" 2>&1; then
    tail -n 30 "$out/build.log" >&2
    echo "demo: the build failed (above)" >&2
    exit 1
fi
tregd=build/server/tregd tregc=build/client/tregc

echo "== a throwaway CA and server certificate for 127.0.0.1, a random token, a temporary store"
deploy/make-certs.sh "$out/certs" 127.0.0.1 >/dev/null
token=$(openssl rand -hex 24)
# The server keeps only the token's SHA-256, as a deployment would.
token_hash=$("$tregd" hash-token "$token" | grep -oE '[0-9a-f]{64}' | head -n1) ||
    { echo "demo: tregd hash-token printed no hash" >&2; exit 1; }
printf 'demo %s\n' "$token_hash" >"$out/tokens"

echo "== starting tregd on 127.0.0.1"
"$tregd" --listen 127.0.0.1:0 --port-file "$out/port" --cert "$out/certs/server.pem" \
    --key "$out/certs/server.key" --store "$out/store" --tokens-file "$out/tokens" \
    2>"$out/tregd.log" &
server_pid=$!
for ((i = 0; i < 100; i++)); do
    [[ -s $out/port ]] && break
    kill -0 "$server_pid" 2>/dev/null || { cat "$out/tregd.log" >&2; echo "demo: tregd did not start" >&2; exit 1; }
    sleep 0.1
done
port=$(tr -dc '0-9' <"$out/port")
[[ -n $port ]] || { cat "$out/tregd.log" >&2; echo "demo: tregd wrote no port" >&2; exit 1; }
# tregc reads these (flags --server, --token and --ca would do the same).
export TREG_SERVER=https://127.0.0.1:$port TREG_TOKEN=$token TREG_CA=$out/certs/ca.pem
timeout 10 "$tregc" health

kernel=softmax_kernel
entry=tests/data/triton-cache/MD4F523L5PVMIKLU6IIZMAM7ASER47Q6J6JG6ABYSLCTRQZ3BBMA
echo "== a Triton cache entry bundled with the repository: $entry"
ls "$entry"

echo "== tregc upload $kernel (analyzed by tregd)"
timeout 120 "$tregc" upload --summary "$entry" | tee "$out/upload.txt"
hash=$(grep -oE '\[[0-9a-f]{64}\]' "$out/upload.txt" | head -n1 | tr -d '[]')
[[ -n $hash ]] || { echo "demo: tregc printed no hash" >&2; exit 1; }

echo "== tregc fetch HASH --summary --lines: the stored report by its hash, next to the kernel's"
echo "   Python source on this machine (tests/data/src/kernels_a.py)"
timeout 30 "$tregc" fetch "$hash" --summary --lines --source-dir tests/data/src
page=${TMPDIR:-/tmp}/treg-demo-$kernel.html
timeout 30 "$tregc" fetch "$hash" --format html -o "$page" --source-dir tests/data/src
echo "== the same report as a page (kept): file://$page"

echo "== stopping tregd (SIGTERM)"
kill -TERM "$server_pid"
rc=0
wait "$server_pid" || rc=$?
server_pid=""
((rc == 0)) || { tail -n 5 "$out/tregd.log" >&2; echo "demo: tregd exited $rc" >&2; exit 1; }
echo "tregd stopped cleanly; the certificates, token and store are deleted on exit"

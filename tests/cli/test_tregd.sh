#!/usr/bin/env bash
# tregd on its own, over real TLS on 127.0.0.1: health, auth, limits,
# malformed bodies, analysis of a fixture, dedupe, listing filters, fetch
# (full, and rows=0 without per-instruction rows), omit_rows uploads, fetch
# after a restart, a rejected code object and a clean SIGTERM.  Protobuf
# bodies are encoded and decoded by a small python3 helper (no python
# protobuf needed).  Needs TREGD and TREG_FIXTURES (CTest sets them).
set -euo pipefail
prog=test_tregd
# shellcheck source=tests/cli/lib.sh
source "$(dirname "$0")/lib.sh"

[[ -n ${TREGD:-} ]] || fail "TREGD is not set (path of tregd; CTest sets it)"
[[ -x $TREGD ]] || fail "tregd not found or not executable at $TREGD"
[[ -n ${TREG_FIXTURES:-} ]] || fail "TREG_FIXTURES is not set"
fixture=$TREG_FIXTURES/gfx90a/loop_kernel.hsaco
fixture2=$TREG_FIXTURES/gfx90a/branch_kernel.hsaco
[[ -f $fixture && -f $fixture2 ]] || fail "fixtures missing under $TREG_FIXTURES/gfx90a"
for tool in curl openssl python3 sha256sum; do
  command -v "$tool" >/dev/null || skip "$tool is not installed"
done

work=$(mktemp -d)
pid=
fd_pid=
cleanup() {
  stop_server
  if [[ -n $fd_pid ]]; then
    kill -TERM "$fd_pid" 2>/dev/null || true
    wait "$fd_pid" 2>/dev/null || true
  fi
  [[ -n ${KEEP_WORK:-} ]] && cp "$work/tregd.log" /tmp/tregd-test.log
  rm -rf "$work"
}
trap cleanup EXIT

self_signed "$work"


token=$(openssl rand -hex 24)
store=$work/store
start_server() {
  rm -f "$work/port"
  "$TREGD" --listen 127.0.0.1:0 --port-file "$work/port" --cert "$work/cert.pem" \
    --key "$work/key.pem" --store "$store" --token "$token" --workers 2 --max-body 4000000 \
    --timeout 30 "$@" 2>>"$work/tregd.log" &
  pid=$!
  wait_port "$work/port" "$pid" "$work/tregd.log"
  url=https://127.0.0.1:$(cat "$work/port")
}

# req METHOD PATH OUT [curl args...]: prints the HTTP status.
req() {
  local method=$1 path=$2 out=$3
  shift 3
  curl -sS --max-time 60 --cacert "$work/cert.pem" -X "$method" -o "$out" -w '%{http_code}' \
    "$@" "$url$path"
}
auth=(-H "Authorization: Bearer $token")
# post BODY OUT [curl args...]: POST /v1/analyze, prints the HTTP status.
post() { req POST /v1/analyze "$2" "${auth[@]}" -H 'Content-Type: application/x-protobuf' \
  --data-binary "@$1" "${@:3}"; }

start_server

# health, no token needed; the counts only for a token's holder
code=$(req GET /v1/health "$work/h.bin")
[[ $code == 200 ]] || fail "health: HTTP $code"
[[ $(pb health "$work/h.bin") == "status=ok workers=0 reports=0" ]] ||
  fail "health body without a token carries counts: $(pb health "$work/h.bin")"
code=$(req GET /v1/health "$work/h.bin" "${auth[@]}")
[[ $(pb health "$work/h.bin") == "status=ok workers=2 reports=0" ]] ||
  fail "health body with a token: $(pb health "$work/h.bin")"

# TLS 1.1 is refused
if curl -sS --max-time 10 --cacert "$work/cert.pem" --tlsv1.1 --tls-max 1.1 \
  "$url/v1/health" -o /dev/null 2>/dev/null; then
  fail "a TLS 1.1 handshake succeeded"
fi

# TLS 1.2 without forward secrecy (static RSA key exchange) is refused; ECDHE is taken
if openssl s_client -connect "127.0.0.1:$(cat "$work/port")" -tls1_2 -cipher AES128-GCM-SHA256 \
  </dev/null >"$work/rsa.out" 2>&1; then
  fail "a static-RSA TLS 1.2 handshake succeeded"
fi
openssl s_client -connect "127.0.0.1:$(cat "$work/port")" -tls1_2 -cipher ECDHE-RSA-AES128-GCM-SHA256 \
  </dev/null >"$work/ecdhe.out" 2>&1 || fail "an ECDHE TLS 1.2 handshake failed: $(tail -3 "$work/ecdhe.out")"
echo "$prog: ok: TLS 1.2 offers ECDHE suites only"

# two Content-Lengths that disagree -> 400, the connection closed
python3 - "$(cat "$work/port")" "$work/cert.pem" "$token" >"$work/cl.out" <<'PY' || fail "conflicting Content-Length: $(cat "$work/cl.out")"
import socket, ssl, sys
ctx = ssl.create_default_context(cafile=sys.argv[2])
s = ctx.wrap_socket(socket.create_connection(("127.0.0.1", int(sys.argv[1]))), server_hostname="127.0.0.1")
s.sendall(b"POST /v1/analyze HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer " + sys.argv[3].encode() +
          b"\r\nContent-Length: 4\r\nContent-Length: 40\r\n\r\nabcd")
s.settimeout(10)
got = b""
while b"conflicting" not in got:
    chunk = s.recv(4096)
    if not chunk:
        break
    got += chunk
head = got.split(b"\r\n")[0]
if not head.startswith(b"HTTP/1.1 400") or b"conflicting Content-Length headers" not in got:
    sys.exit(f"answered {got[:300]!r}")
print(head.decode())
PY
echo "$prog: ok: conflicting Content-Length headers: $(cat "$work/cl.out")"

# auth: none and wrong token -> 401 with WWW-Authenticate
code=$(req GET /v1/reports "$work/e.bin")
[[ $code == 401 ]] || fail "no token: HTTP $code"
code=$(req GET /v1/reports "$work/e.bin" -H "Authorization: Bearer wrong" -D "$work/hdr")
[[ $code == 401 ]] || fail "wrong token: HTTP $code"
grep -qi '^WWW-Authenticate: Bearer' "$work/hdr" || fail "401 without WWW-Authenticate"
[[ $(pb error "$work/e.bin") == "status=401 "* ]] || fail "401 body: $(pb error "$work/e.bin")"

# routing
code=$(req GET /v1/nope "$work/e.bin" "${auth[@]}")
[[ $code == 404 ]] || fail "unknown path: HTTP $code"
code=$(req GET /v1/analyze "$work/e.bin" "${auth[@]}")
[[ $code == 405 ]] || fail "GET /v1/analyze: HTTP $code"
[[ $(pb error "$work/e.bin") == "status=405 "* ]] || fail "405 body: $(pb error "$work/e.bin")"

# oversized body -> 413
head -c 4100000 /dev/zero >"$work/big.bin"
code=$(post "$work/big.bin" "$work/e.bin")
[[ $code == 413 ]] || fail "oversized body: HTTP $code"
# libevent's own replies (413 here, 400 for a request line it cannot parse)
# leave a log line like every other reply
printf 'GARBAGE\r\n\r\n' | timeout 10 openssl s_client -quiet -connect "127.0.0.1:$(cat "$work/port")" \
  >"$work/garbage.out" 2>/dev/null || true
grep -q '^HTTP/1.1 400' "$work/garbage.out" || fail "a garbage request line: $(head -c 200 "$work/garbage.out")"
wait_for 5 grep -q '"status":413,"by":"libevent","reason":"the body is larger than --max-body"' "$work/tregd.log" ||
  fail "no log line for libevent's own 413"
wait_for 5 grep -q '"status":400,"by":"libevent"' "$work/tregd.log" || fail "no log line for libevent's own 400"
echo "$prog: ok: libevent's own 413 and 400 replies are logged like the others"

# malformed protobuf -> 400, and the server keeps serving
printf '\xff\xff\xff\xff\xff' >"$work/junk.bin"
code=$(post "$work/junk.bin" "$work/e.bin")
[[ $code == 400 ]] || fail "malformed protobuf: HTTP $code"
[[ $(pb error "$work/e.bin") == "status=400 "* ]] || fail "400 body: $(pb error "$work/e.bin")"
code=$(req GET /v1/health "$work/h.bin")
[[ $code == 200 ]] || fail "health after malformed body: HTTP $code"

# a fixture: 200, the report's hash is the file's SHA-256
hash=$(sha256sum "$fixture" | cut -d' ' -f1)
pb upload "$fixture" loop_kernel.hsaco >"$work/up.bin"
code=$(post "$work/up.bin" "$work/r.bin")
[[ $code == 200 ]] || fail "upload: HTTP $code ($(pb error "$work/r.bin" 2>/dev/null))"
line=$(pb upload-response "$work/r.bin")
[[ $line == "hash=$hash target=gfx90a file=loop_kernel.hsaco kernels="*" stored_before=0" ]] ||
  fail "upload response: $line"
# stored under its key (proto/report_key.h, computed here independently)
req GET /v1/health "$work/hv.bin" >/dev/null
read -r av lv < <(pb versions "$work/hv.bin")
key_of() { pb key "$1" "$(pb inputs "${2:-}" "${3:--}" "${4:--}")" "$av" "$lv"; }
key=$(key_of "$hash")
[[ -f $store/reports/${key:0:2}/$key.report && -f $store/blobs/${hash:0:2}/$hash ]] ||
  fail "report or blob not in the store (key $key)"
cmp -s "$fixture" "$store/blobs/${hash:0:2}/$hash" || fail "stored blob differs"

# the same blob again: stored_before, no new analysis
code=$(post "$work/up.bin" "$work/r2.bin")
[[ $code == 200 ]] || fail "second upload: HTTP $code"
[[ $(pb upload-response "$work/r2.bin") == *" stored_before=1" ]] ||
  fail "second upload not stored_before: $(pb upload-response "$work/r2.bin")"

# reanalyze=true analyzes again
pb upload "$fixture" loop_kernel.hsaco reanalyze >"$work/up-re.bin"
code=$(post "$work/up-re.bin" "$work/r3.bin")
[[ $code == 200 && $(pb upload-response "$work/r3.bin") == *" stored_before=0" ]] ||
  fail "reanalyze: HTTP $code $(pb upload-response "$work/r3.bin" 2>/dev/null)"

# a second kernel for the listing filters
hash2=$(sha256sum "$fixture2" | cut -d' ' -f1)
pb upload "$fixture2" branch_kernel.hsaco >"$work/up2.bin"
code=$(post "$work/up2.bin" "$work/r4.bin")
[[ $code == 200 ]] || fail "upload 2: HTTP $code"
kernel2=$(pb upload-response "$work/r4.bin" | sed -n 's/.* kernels=\([^, ]*\).*/\1/p')
[[ -n $kernel2 ]] || fail "no kernel name in the second report"

# garbage that is not an ELF -> 422 with the analyzer's message
head -c 4096 /dev/urandom >"$work/garbage.hsaco"
pb upload "$work/garbage.hsaco" garbage.hsaco >"$work/up-g.bin"
code=$(post "$work/up-g.bin" "$work/e.bin")
[[ $code == 422 ]] || fail "garbage ELF: HTTP $code"
[[ $(pb error "$work/e.bin") == "status=422 message="?* ]] || fail "422 body: $(pb error "$work/e.bin")"

# fields UploadRequest does not have, over-long names, repeats: 400 before unpacking, naming the field
wire_refused() { # WHAT PHRASE pb-upload-args...
  local what=$1 phrase=$2
  shift 2
  pb upload "$fixture" "$@" >"$work/up-w.bin"
  code=$(post "$work/up-w.bin" "$work/ew.bin")
  [[ $code == 400 && $(pb error "$work/ew.bin") == *"$phrase"* ]] ||
    fail "$what: HTTP $code $(pb error "$work/ew.bin")"
  echo "$prog: ok: $what: 400, '$phrase'"
}
wire_refused "an unknown field of 1 MB" "field 99 is not part of UploadRequest" loop_kernel.hsaco pad=99:1000000
wire_refused "a 5000-byte file_name" "UploadRequest.file_name is 5000 bytes; at most 4096" "$(printf 'n%.0s' {1..5000})"
wire_refused "a 2000-byte client_host" "UploadRequest.client_host is 2000 bytes; at most 1024" loop_kernel.hsaco host=2000
wire_refused "file_name twice" "UploadRequest.file_name appears twice" loop_kernel.hsaco pad=2:10
code=$(req GET /v1/health "$work/h2.bin")
[[ $code == 200 ]] || fail "health after refused bodies: HTTP $code"

# a HIP executable sent as it is (tregc would extract it) -> 422 saying what to do
if [[ -f ${TREG_HIP_FIXTURES:-}/app ]]; then
  pb upload "$TREG_HIP_FIXTURES/app" app >"$work/up-x.bin"
  code=$(post "$work/up-x.bin" "$work/ex.bin")
  [[ $code == 422 && $(pb error "$work/ex.bin") == *"host ELF (.hip_fatbin) with 8 AMDGPU code objects inside, not a code object: tregc upload extracts and sends each one"* ]] ||
    fail "HIP executable: HTTP $code $(pb error "$work/ex.bin")"
  echo "$prog: ok: a HIP executable sent whole: 422, naming its 8 code objects and tregc upload"
fi

# listing: newest first, filters, paging
code=$(req GET /v1/reports "$work/l.bin" "${auth[@]}")
[[ $code == 200 ]] || fail "list: HTTP $code"
list=$(pb list "$work/l.bin")
[[ $list == "count=2 next=0 hashes="* && $list == *"$hash"* && $list == *"$hash2"* ]] ||
  fail "list: $list"
req GET "/v1/reports?kernel=$kernel2" "$work/l.bin" "${auth[@]}" >/dev/null
[[ $(pb list "$work/l.bin") == "count=1 next=0 hashes=$hash2" ]] ||
  fail "kernel filter: $(pb list "$work/l.bin")"
req GET "/v1/reports?target=gfx942" "$work/l.bin" "${auth[@]}" >/dev/null
[[ $(pb list "$work/l.bin") == "count=0 next=0 hashes=" ]] ||
  fail "target filter: $(pb list "$work/l.bin")"
req GET "/v1/reports?target=gfx90a&limit=1" "$work/l.bin" "${auth[@]}" >/dev/null
[[ $(pb list "$work/l.bin") == "count=1 next=1 hashes="* ]] || fail "paging: $(pb list "$work/l.bin")"
req GET "/v1/reports?target=gfx90a&limit=1&offset=1" "$work/l.bin" "${auth[@]}" >/dev/null
[[ $(pb list "$work/l.bin") == "count=1 next=0 hashes="* ]] || fail "page 2: $(pb list "$work/l.bin")"
code=$(req GET "/v1/reports?limit=abc" "$work/e.bin" "${auth[@]}")
[[ $code == 400 ]] || fail "bad limit: HTTP $code"

# fetch by hash; unknown hash -> 404
code=$(req GET "/v1/reports/$hash" "$work/f.bin" "${auth[@]}")
[[ $code == 200 && $(pb report "$work/f.bin") == "hash=$hash target=gfx90a "* ]] ||
  fail "fetch: HTTP $code"
code=$(req GET "/v1/reports/$(printf '0%.0s' $(seq 64))" "$work/e.bin" "${auth[@]}")
[[ $code == 404 && $(pb error "$work/e.bin") == "status=404 "* ]] || fail "unknown hash: HTTP $code"
code=$(req GET "/v1/reports/$(printf '0%.0s' $(seq 64))?rows=0" "$work/e.bin" "${auth[@]}")
[[ $code == 404 ]] || fail "unknown hash, rows=0: HTTP $code"

# rows=0: the same report without per-instruction rows; rows=1 the full one
full_rows=$(pb rows report "$work/f.bin")
((full_rows > 0)) || fail "the stored report has no rows"
code=$(req GET "/v1/reports/$hash?rows=0" "$work/s.bin" "${auth[@]}")
[[ $code == 200 && $(pb rows report "$work/s.bin") == 0 ]] ||
  fail "rows=0: HTTP $code, $(pb rows report "$work/s.bin" 2>/dev/null) rows"
[[ $(pb same-but-rows "$work/f.bin" "$work/s.bin") == same ]] || fail "rows=0 changed more than rows"
(($(stat -c %s "$work/s.bin") < $(stat -c %s "$work/f.bin"))) || fail "rows=0 is not smaller"
code=$(req GET "/v1/reports/$hash?rows=0" "$work/s2.bin" "${auth[@]}") # from the cache
[[ $code == 200 ]] || fail "rows=0 again: HTTP $code"
cmp -s "$work/s.bin" "$work/s2.bin" || fail "rows=0 again: a different answer"
code=$(req GET "/v1/reports/$hash?rows=1" "$work/f1.bin" "${auth[@]}")
[[ $code == 200 ]] || fail "rows=1: HTTP $code"
cmp -s "$work/f.bin" "$work/f1.bin" || fail "rows=1: not the full report"
code=$(req GET "/v1/reports/$hash?rows=2" "$work/e.bin" "${auth[@]}")
[[ $code == 400 ]] || fail "rows=2: HTTP $code"

# omit_rows: a stored blob and a fresh one answered without rows; the
# stored report keeps them; without omit_rows the rows come back
pb upload "$fixture" loop_kernel.hsaco omit >"$work/up-o.bin"
code=$(post "$work/up-o.bin" "$work/o.bin")
[[ $code == 200 && $(pb upload-response "$work/o.bin") == *" stored_before=1" ]] ||
  fail "omit_rows, stored: HTTP $code"
[[ $(pb rows upload-response "$work/o.bin") == 0 ]] || fail "omit_rows, stored: rows in the answer"
fixture4=$TREG_FIXTURES/gfx90a/spill_kernel.hsaco
hash4=$(sha256sum "$fixture4" | cut -d' ' -f1)
pb upload "$fixture4" spill_kernel.hsaco omit >"$work/up-o4.bin"
code=$(post "$work/up-o4.bin" "$work/o4.bin")
[[ $code == 200 && $(pb upload-response "$work/o4.bin") == "hash=$hash4 "*" stored_before=0" ]] ||
  fail "omit_rows, fresh: HTTP $code"
[[ $(pb rows upload-response "$work/o4.bin") == 0 ]] || fail "omit_rows, fresh: rows in the answer"
code=$(req GET "/v1/reports/$hash4" "$work/f4full.bin" "${auth[@]}")
[[ $code == 200 ]] || fail "fetch after an omit_rows upload: HTTP $code"
(($(pb rows report "$work/f4full.bin") > 0)) || fail "omit_rows, fresh: the stored report lost its rows"
code=$(post "$work/up.bin" "$work/r7.bin")
[[ $code == 200 && $(pb rows upload-response "$work/r7.bin") == "$full_rows" ]] ||
  fail "an upload without omit_rows did not get the rows"

# A store write that fails (the report's shard directory is a file): 500
# with a one-line Error, no index row, no report; the worker is not lost.
fixture5=$TREG_FIXTURES/gfx90a/call_kernel.hsaco
hash5=$(sha256sum "$fixture5" | cut -d' ' -f1)
req GET /v1/health "$work/h5.bin" "${auth[@]}" >/dev/null
before5=$(pb health "$work/h5.bin")
# (the store makes every shard at start: put this one aside, whatever it
# holds, since the fixtures' hashes depend on the compiler that made them,
# and put a file in its place)
key5=$(key_of "$hash5")
shard5=$store/reports/${key5:0:2}
mv "$shard5" "$shard5.aside" || fail "test setup: cannot move shard ${key5:0:2} aside"
touch "$shard5"
pb upload "$fixture5" call_kernel.hsaco >"$work/up5.bin"
code=$(post "$work/up5.bin" "$work/e5.bin")
[[ $code == 500 ]] || fail "failed store write: HTTP $code"
# what happened for the client, where for the log: no server path in the answer
[[ $(pb error "$work/e5.bin") == "status=500 message=the report store cannot be written (the server's log says why): nothing was stored" ]] ||
  fail "failed store write body: $(pb error "$work/e5.bin")"
grep -q "store: cannot rename into $store/reports/" "$work/tregd.log" ||
  fail "the failed store write's path is not in the log"
req GET /v1/health "$work/h5.bin" "${auth[@]}" >/dev/null
[[ $(pb health "$work/h5.bin") == "$before5" ]] ||
  fail "a failed store write changed the index: $(pb health "$work/h5.bin")"
rm -f "$shard5"
mv "$shard5.aside" "$shard5" || fail "test setup: cannot put shard ${key5:0:2} back"
code=$(req GET "/v1/reports/$hash5" "$work/e5f.bin" "${auth[@]}")
[[ $code == 404 ]] || fail "fetch after a failed store write: HTTP $code"
# (the instance's folder and lock stay; no file in it)
left=$(find "$store/tmp" -type f ! -name '*.lock')
[[ -z $left ]] || fail "a failed store write left temp files: $left"

# SIGTERM: clean exit 0
kill -TERM "$pid"
rc=0
wait "$pid" || rc=$?
pid=
[[ $rc == 0 ]] || fail "tregd exited $rc after SIGTERM"

# restart on the same store: the report is still there, byte for byte
start_server
code=$(req GET "/v1/reports/$hash" "$work/f2.bin" "${auth[@]}")
[[ $code == 200 ]] || fail "fetch after restart: HTTP $code"
cmp -s "$work/f.bin" "$work/f2.bin" || fail "report changed across the restart"
code=$(req GET /v1/health "$work/h.bin" "${auth[@]}")
[[ $(pb health "$work/h.bin") == "status=ok workers=2 reports=3" ]] ||
  fail "health after restart: $(pb health "$work/h.bin")"
kill -TERM "$pid"
rc=0
wait "$pid" || rc=$?
pid=
[[ $rc == 0 ]] || fail "tregd exited $rc after the second SIGTERM"

# The worker pool, made deterministic by stopping the only worker process
# (SIGSTOP): concurrent uploads of one blob share one analysis; a full queue
# answers 503; a worker that dies mid-job gives 422 and is replaced; a stuck
# one is killed at the timeout (504); SIGTERM waits for a running analysis.
start_server --workers 1 --queue 0 --timeout 3
worker() { ps -o pid= --ppid "$pid" | tr -d ' ' | head -1; }
w=$(worker)
[[ -n $w ]] || fail "no worker process under tregd"
fixture3=$TREG_FIXTURES/gfx90a/mfma_kernel.hsaco
pb upload "$fixture3" mfma_kernel.hsaco >"$work/up3.bin"
kill -STOP "$w"
post "$work/up3.bin" "$work/c1.bin" >"$work/c1.code" &
c1=$!
sleep 0.3
post "$work/up3.bin" "$work/c2.bin" >"$work/c2.code" &
c2=$!
sleep 0.3
# the worker is busy and the queue holds 0: a different blob gets 503
code=$(post "$work/up-re.bin" "$work/e.bin" -D "$work/hdr")
[[ $code == 503 ]] || fail "queue full: HTTP $code"
grep -qi '^Retry-After: 1' "$work/hdr" || fail "503 without Retry-After"
kill -CONT "$w"
wait "$c1" "$c2"
[[ $(cat "$work/c1.code") == 200 && $(cat "$work/c2.code") == 200 ]] ||
  fail "concurrent uploads: HTTP $(cat "$work/c1.code") $(cat "$work/c2.code")"
both=$(pb upload-response "$work/c1.bin"; pb upload-response "$work/c2.bin")
[[ $(grep -c 'stored_before=0' <<<"$both") == 1 && $(grep -c 'stored_before=1' <<<"$both") == 1 ]] ||
  fail "concurrent uploads of one blob ran other than one analysis: $both"

# a worker killed by a signal mid-job: 422, and a new worker takes over
kill -STOP "$w"
post "$work/up-re.bin" "$work/e.bin" >"$work/c3.code" &
c3=$!
sleep 0.3
kill -SEGV "$w"
kill -CONT "$w"
wait "$c3"
[[ $(cat "$work/c3.code") == 422 ]] || fail "crashed worker: HTTP $(cat "$work/c3.code")"
[[ $(pb error "$work/e.bin") == "status=422 message=analysis crashed"* ]] ||
  fail "crashed worker body: $(pb error "$work/e.bin")"
for _ in $(seq 50); do
  w2=$(worker)
  [[ -n $w2 && $w2 != "$w" ]] && break
  sleep 0.1
done
[[ -n $w2 && $w2 != "$w" ]] || fail "no replacement worker"

# a worker killed from outside (SIGKILL, as the OOM killer does): 503 with
# Retry-After, not the input's 422, and a new worker takes over
kill -STOP "$w2"
post "$work/up-re.bin" "$work/e.bin" -D "$work/hdr-k" >"$work/c4.code" &
c4=$!
sleep 0.3
kill -KILL "$w2"
wait "$c4"
[[ $(cat "$work/c4.code") == 503 ]] || fail "killed worker: HTTP $(cat "$work/c4.code") $(pb error "$work/e.bin")"
[[ $(pb error "$work/e.bin") == "status=503 message=the analysis was killed from outside"* ]] ||
  fail "killed worker body: $(pb error "$work/e.bin")"
grep -qi '^Retry-After: 5' "$work/hdr-k" || fail "killed worker: 503 without Retry-After"
grep -q '"msg":"worker process killed by SIGKILL"' "$work/tregd.log" || fail "killed worker: no log line"
for _ in $(seq 50); do
  w3k=$(worker)
  [[ -n $w3k && $w3k != "$w2" ]] && break
  sleep 0.1
done
[[ -n $w3k && $w3k != "$w2" ]] || fail "no replacement worker after SIGKILL"
w2=$w3k
echo "$prog: ok: a worker killed by SIGKILL from outside: 503 with Retry-After, logged, replaced"

# a stuck worker: 504 at the timeout, then replaced
kill -STOP "$w2"
code=$(post "$work/up-re.bin" "$work/e.bin")
[[ $code == 504 ]] || fail "stuck worker: HTTP $code"
code=$(post "$work/up-re.bin" "$work/r5.bin")
[[ $code == 200 ]] || fail "upload after the timeout: HTTP $code"

# SIGTERM while an analysis runs: it finishes and is answered, exit 0
w3=$(worker)
kill -STOP "$w3"
post "$work/up-re.bin" "$work/r6.bin" >"$work/c4.code" &
c4=$!
sleep 0.3
kill -TERM "$pid"
sleep 0.3
kill -CONT "$w3"
wait "$c4"
[[ $(cat "$work/c4.code") == 200 ]] || fail "analysis during shutdown: HTTP $(cat "$work/c4.code")"
rc=0
wait "$pid" || rc=$?
pid=
[[ $rc == 0 ]] || fail "tregd exited $rc after SIGTERM with a running analysis"
grep -q '"msg":"worker process died"' "$work/tregd.log" || fail "the worker crash was not logged"

# A config file (same names as the long flags) and a tokens file of
# hashes made by `tregd hash-token`; the request log names the team.
team_token=$(openssl rand -hex 24)
team_hash=$("$TREGD" hash-token "$team_token")
[[ $team_hash == $(printf '%s' "$team_token" | sha256sum | cut -d' ' -f1) ]] ||
  fail "hash-token: $team_hash"
printf '# teams\nkernels-team %s\n' "$team_hash" >"$work/tokens"
cat >"$work/tregd.conf" <<CONF
# tregd test configuration
listen = 127.0.0.1:0
cert = $work/cert.pem
key = $work/key.pem
store = $store
tokens-file = $work/tokens
workers = 1
port-file = $work/port
CONF
rm -f "$work/port"
"$TREGD" --config "$work/tregd.conf" 2>>"$work/tregd.log" &
pid=$!
wait_port "$work/port" "$pid" "$work/tregd.log"
url=https://127.0.0.1:$(cat "$work/port")
code=$(req GET "/v1/reports/$hash" "$work/f3.bin" -H "Authorization: Bearer $team_token")
[[ $code == 200 ]] || fail "tokens-file token: HTTP $code"
code=$(req GET "/v1/reports/$hash" "$work/e.bin" "${auth[@]}")
[[ $code == 401 ]] || fail "a token not in the config was accepted: HTTP $code"
code=$(req GET /v1/health "$work/h.bin" -H "Authorization: Bearer $team_token")
[[ $(pb health "$work/h.bin") == "status=ok workers=1 "* ]] || fail "config workers: $(pb health "$work/h.bin")"
# (the request log is written within 10 ms of the request)
wait_for 5 grep -q '"team":"kernels-team"' "$work/tregd.log" || fail "the team is not in the request log"
# Token rotation: a new tokens file and SIGHUP, no restart; the old token is
# refused, the new one accepted; a tokens file that does not load keeps the set.
rotated_token=$(openssl rand -hex 24)
printf 'rotated-team %s\n' "$("$TREGD" hash-token "$rotated_token")" >"$work/tokens"
kill -HUP "$pid"
wait_for 5 grep -q '"msg":"tokens reloaded"' "$work/tregd.log" || fail "SIGHUP: no 'tokens reloaded' in the log"
code=$(req GET "/v1/reports/$hash" "$work/e.bin" -H "Authorization: Bearer $team_token")
[[ $code == 401 ]] || fail "after SIGHUP the rotated-out token still works: HTTP $code"
code=$(req GET "/v1/reports/$hash" "$work/f4.bin" -H "Authorization: Bearer $rotated_token")
[[ $code == 200 ]] || fail "after SIGHUP the new token is refused: HTTP $code"
printf 'broken line without a hash\n' >"$work/tokens"
kill -HUP "$pid"
wait_for 5 grep -q '"msg":"tokens not reloaded' "$work/tregd.log" ||
  fail "SIGHUP with a bad tokens file: no 'tokens not reloaded' in the log"
code=$(req GET "/v1/reports/$hash" "$work/f5.bin" -H "Authorization: Bearer $rotated_token")
[[ $code == 200 ]] || fail "a bad tokens file on SIGHUP dropped the working tokens: HTTP $code"
echo "$prog: ok: SIGHUP reloads the tokens file; a bad file keeps the old tokens"
# tregd add-token: a new token printed once, its SHA-256 appended (0600 file);
# a bad team or a broken file is refused in one line, the file untouched;
# SIGHUP takes the new token.
printf 'rotated-team %s\n' "$("$TREGD" hash-token "$rotated_token")" >"$work/tokens"
rm -f "$work/new-tokens"
new_token=$("$TREGD" add-token ops-team --tokens-file "$work/new-tokens" 2>"$work/add.err") ||
  fail "add-token: $(cat "$work/add.err")"
[[ $new_token =~ ^[0-9a-f]{64}$ ]] || fail "add-token printed '$new_token', not a 64-hex token"
[[ $(cat "$work/new-tokens") == "ops-team $("$TREGD" hash-token "$new_token")" ]] ||
  fail "add-token wrote: $(cat "$work/new-tokens")"
[[ $(stat -c %a "$work/new-tokens") == 600 ]] || fail "a new tokens file is $(stat -c %a "$work/new-tokens"), not 600"
grep -q "shown only now" "$work/add.err" || fail "add-token says nothing of showing the token once"
second=$("$TREGD" add-token ops-team --tokens-file "$work/new-tokens" 2>/dev/null)
[[ $second != "$new_token" && $(wc -l <"$work/new-tokens") == 2 ]] || fail "a second add-token"
rc=0
"$TREGD" add-token 'bad team' --tokens-file "$work/new-tokens" >"$work/add.out" 2>"$work/add.err" || rc=$?
if ((rc != 2)) || [[ -s $work/add.out || $(wc -l <"$work/add.err") != 1 ]]; then
  fail "a bad team name: exit $rc"
fi
printf 'ops-team %s\nnot a line\n' "$("$TREGD" hash-token x)" >"$work/broken-tokens"
cp "$work/broken-tokens" "$work/broken-copy"
rc=0
"$TREGD" add-token ops --tokens-file "$work/broken-tokens" >"$work/add.out" 2>"$work/add.err" || rc=$?
if ((rc != 1)) || ! grep -q "broken-tokens:2: " "$work/add.err" || [[ -s $work/add.out ]]; then
  fail "add-token on a broken file: exit $rc: $(cat "$work/add.err")"
fi
cmp -s "$work/broken-tokens" "$work/broken-copy" || fail "add-token changed a broken tokens file"
cat "$work/new-tokens" >>"$work/tokens"
reloads=$(grep -c '"msg":"tokens reloaded"' "$work/tregd.log")
kill -HUP "$pid"
reloaded() { (($(grep -c '"msg":"tokens reloaded"' "$work/tregd.log") > reloads)); }
wait_for 5 reloaded || fail "SIGHUP after add-token: no reload logged"
code=$(req GET "/v1/reports/$hash" "$work/f6.bin" -H "Authorization: Bearer $new_token")
[[ $code == 200 ]] || fail "the add-token token after SIGHUP: HTTP $code"
echo "$prog: ok: add-token prints a 64-hex token once, appends its SHA-256 (0600), refuses bad input"
stop_server

# A client dripping its request head a byte every 0.5 s: with --head-timeout 2
# the server shuts it after one period (libevent's own timeout never fires),
# logs it, and still answers others.
start_server --head-timeout 2 --worker-memory 2048
# Workers: no core dumps, 2 GiB of address space (none in an ASan build: the log says which)
w=$(pgrep -P "$pid" | head -n1)
[[ -n $w ]] || fail "no worker process under tregd $pid"
if [[ -r /proc/$w/limits ]]; then
  grep -Eq '^Max core file size +0 +0 ' "/proc/$w/limits" || fail "worker $w may dump core: $(grep core "/proc/$w/limits")"
  if grep -q '"msg":"worker limits","detail":"address space 2048 MiB' "$work/tregd.log"; then
    grep -Eq '^Max address space +2147483648 +2147483648 ' "/proc/$w/limits" ||
      fail "worker $w address space: $(grep 'address space' "/proc/$w/limits")"
  else
    grep -q '"msg":"worker limits","detail":"address space unlimited (an AddressSanitizer build)' "$work/tregd.log" ||
      fail "no worker limits line in the log"
  fi
  echo "$prog: ok: workers run without core dumps and within --worker-memory ($(grep -o '"detail":"address space[^"]*' "$work/tregd.log" | tail -1))"
else
  echo "$prog: note: /proc/$w/limits is not readable here; worker limits not checked"
fi
python3 - "$(cat "$work/port")" "$work/cert.pem" <<'PY' || fail "drip: see above"
import socket, ssl, sys, time
ctx = ssl.create_default_context(cafile=sys.argv[2])
s = ctx.wrap_socket(socket.create_connection(("127.0.0.1", int(sys.argv[1]))), server_hostname="127.0.0.1")
s.sendall(b"GET /v1/health HTTP/1.1\r\nHost: x\r\n")
t0 = time.monotonic()
try:
    while time.monotonic() - t0 < 20:
        s.sendall(b"X")
        time.sleep(0.5)
except OSError:
    pass
dt = time.monotonic() - t0
if dt > 6:
    sys.exit(f"drip: the connection stayed open {dt:.1f} s with --head-timeout 2")
print(f"drip: closed after {dt:.1f} s")
PY
grep -q '"msg":"connection closed","detail":"no complete request within 2 s' "$work/tregd.log" ||
  fail "drip: no log line for the closed connection"
code=$(req GET /v1/health "$work/h-drip.bin")
[[ $code == 200 ]] || fail "health after the drip: HTTP $code"
echo "$prog: ok: a client dripping its head is shut after one --head-timeout period, logged; health 200"

# A body that keeps moving (80 KiB every 0.5 s, over the progress a period
# asks) but would take minutes: shut at --request-timeout.
stop_server
start_server --head-timeout 1 --request-timeout 3
python3 - "$(cat "$work/port")" "$work/cert.pem" "$token" <<'PY' || fail "slow body: see above"
import socket, ssl, sys, time
ctx = ssl.create_default_context(cafile=sys.argv[2])
s = ctx.wrap_socket(socket.create_connection(("127.0.0.1", int(sys.argv[1]))), server_hostname="127.0.0.1")
s.sendall(b"POST /v1/analyze HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer " + sys.argv[3].encode() +
          b"\r\nContent-Length: 3000000\r\n\r\n")
t0 = time.monotonic()
try:
    while time.monotonic() - t0 < 30:
        s.sendall(b"\0" * 81920)
        time.sleep(0.5)
except OSError:
    pass
dt = time.monotonic() - t0
if dt > 8:
    sys.exit(f"slow body: the connection stayed open {dt:.1f} s with --request-timeout 3")
print(f"slow body: closed after {dt:.1f} s")
PY
grep -q '"msg":"connection closed","detail":"no complete request within --request-timeout 3 s"' "$work/tregd.log" ||
  fail "slow body: no log line for the closed connection"
echo "$prog: ok: a body that moves but would take minutes is shut at --request-timeout"
stop_server
printf 'workers = 1\nbogus = 3\n' >"$work/bad.conf"
rc=0
"$TREGD" --config "$work/bad.conf" 2>"$work/err" || rc=$?
[[ $rc == 2 && $(wc -l <"$work/err") == 1 && $(cat "$work/err") == *bad.conf:2* ]] ||
  fail "bad config line: exit $rc, $(cat "$work/err")"

# the log never carries the token
if grep -q "$token" "$work/tregd.log"; then fail "the token appears in the log"; fi
grep -q '"msg":"request"' "$work/tregd.log" || fail "no request log lines"
# (under ASan the worker killed with SIGSEGV above reports that SEGV: expected)
if grep -E 'ERROR: [A-Za-z]+Sanitizer|runtime error:' "$work/tregd.log" |
  grep -qv ': SEGV on unknown address'; then
  fail "sanitizer report in the log"
fi

# Out of descriptors: a tregd whose open-files limit is 64 (soft and hard,
# so its own raise to the hard limit cannot help) and 100 idle connections.
# accept(2) fails with EMFILE; the server must neither spin (libevent's
# default calls accept again at once, for ever) nor flood the log (it
# printed a non-JSON warning per attempt), and must serve again once the
# connections close.
(
  ulimit -n 64
  exec "$TREGD" --listen 127.0.0.1:0 --port-file "$work/port-fd" --cert "$work/cert.pem" \
    --key "$work/key.pem" --store "$work/store-fd" --token "$token" --workers 1 \
    2>"$work/tregd-fd.log"
) &
fd_pid=$!
wait_port "$work/port-fd" "$fd_pid" "$work/tregd-fd.log"
fd_port=$(cat "$work/port-fd")
grep -q '"msg":"listening".*"max_open_files":64[,}]' "$work/tregd-fd.log" ||
  fail "the listening line does not report max_open_files 64: $(head -3 "$work/tregd-fd.log")"
held=()
for _ in $(seq 100); do
  exec {c}<>"/dev/tcp/127.0.0.1/$fd_port" || fail "could not open a connection to tregd (64 files)"
  held+=("$c")
done
sleep 1
ticks() { awk '{ print $14 + $15 }' "/proc/$fd_pid/stat"; }
t0=$(ticks)
sleep 1
t1=$(ticks)
(((t1 - t0) * 100 / $(getconf CLK_TCK) < 30)) ||
  fail "out of descriptors, tregd used $((t1 - t0)) clock ticks of CPU in a second (a busy loop)"
[[ $(grep -c '"msg":"cannot accept connections; pausing","detail":"Too many open files"' \
  "$work/tregd-fd.log") == 1 ]] ||
  fail "out of descriptors: not exactly one log line about it: $(grep -c . "$work/tregd-fd.log") lines"
if grep -qv '^{' "$work/tregd-fd.log"; then
  fail "out of descriptors: a log line that is not JSON: $(grep -v '^{' "$work/tregd-fd.log" | head -1)"
fi
# A client waiting in the backlog is served once the idle connections go
# (curl must not inherit them).
(
  for c in "${held[@]}"; do exec {c}>&-; done
  exec curl -sS --max-time 30 --cacert "$work/cert.pem" -o "$work/h-fd.bin" -w '%{http_code}' \
    "https://127.0.0.1:$fd_port/v1/health" >"$work/code-fd" 2>"$work/curl-fd.err"
) &
curl_pid=$!
sleep 0.5
for c in "${held[@]}"; do exec {c}>&-; done
wait "$curl_pid" || fail "health after the idle connections closed: $(cat "$work/curl-fd.err")"
[[ $(cat "$work/code-fd") == 200 ]] || fail "health after the idle connections closed: HTTP $(cat "$work/code-fd")"
kill -TERM "$fd_pid"
rc=0
wait "$fd_pid" || rc=$?
fd_pid=
[[ $rc == 0 ]] || fail "tregd (64 files) exited $rc after SIGTERM"
echo "$prog: ok: out of descriptors, tregd pauses accepting (CPU $((t1 - t0)) ticks in 1 s, one log line) and serves again when they free up"

# bad flags: exit 2 with one line; unreadable cert: exit 1
rc=0
"$TREGD" --bogus 2>"$work/err" || rc=$?
[[ $rc == 2 && $(wc -l <"$work/err") == 1 ]] || fail "--bogus: exit $rc, $(cat "$work/err")"
rc=0
"$TREGD" --cert /nonexistent --key "$work/key.pem" --store "$store" --token "$token" 2>"$work/err" || rc=$?
[[ $rc == 1 && $(wc -l <"$work/err") == 1 ]] || fail "missing cert: exit $rc, $(cat "$work/err")"
# a plain token under 128 bits: refused at start, one line, the token not echoed
for weak in change-me team-secret-token "$(openssl rand -hex 15)" aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa; do
  rc=0
  "$TREGD" --cert "$work/cert.pem" --key "$work/key.pem" --store "$store" --token "$token" \
    --token "$weak" 2>"$work/err" || rc=$?
  [[ $rc == 2 && $(wc -l <"$work/err") == 1 ]] || fail "--token $weak: exit $rc, $(cat "$work/err")"
  grep -q "team token-2.*guessable token" "$work/err" || fail "--token $weak: $(cat "$work/err")"
  if grep -qF -- "$weak" "$work/err"; then fail "the refusal echoes the token: $(cat "$work/err")"; fi
done

# a port in use: the line says why
python3 -c 'import socket,sys,time; s=socket.socket(); s.bind(("127.0.0.1",0)); s.listen(); print(s.getsockname()[1], flush=True); time.sleep(30)' >"$work/busy" &
busy_pid=$!
wait_for 5 test -s "$work/busy" || fail "test setup: no port held"
rc=0
"$TREGD" --cert "$work/cert.pem" --key "$work/key.pem" --store "$store" --token "$token" \
  --listen "127.0.0.1:$(cat "$work/busy")" 2>"$work/err" || rc=$?
kill "$busy_pid" 2>/dev/null || true
wait "$busy_pid" 2>/dev/null || true
grep -q "^tregd: cannot listen on 127.0.0.1:$(cat "$work/busy"): Address already in use$" "$work/err" ||
  fail "a port in use: exit $rc, $(grep -v '^{' "$work/err")"

# --help names every setting deploy/tregd.conf.example describes, and no other
"$TREGD" --help >"$work/help" || fail "tregd --help failed"
grep -oE -- '--[a-z][a-z-]+' "$work/help" | sed 's/^--//' | grep -vxE 'config|help' | LC_ALL=C sort -u >"$work/help.opts"
grep -oE '^#?[a-z][a-z-]* =' "$TREG_SOURCE_ROOT/deploy/tregd.conf.example" | tr -d '#=' | tr -d ' ' |
  LC_ALL=C sort -u >"$work/conf.opts"
cmp -s "$work/help.opts" "$work/conf.opts" ||
  fail "tregd --help and tregd.conf.example differ: $(diff "$work/help.opts" "$work/conf.opts" | grep '^[<>]' | tr '\n' ' ')"
echo "$prog: ok: tregd --help lists every setting ($(wc -l <"$work/help.opts")), a failed listen says why"

echo "$prog: ok"

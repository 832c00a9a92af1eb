#!/usr/bin/env bash
# Two tregd on one store folder and one PostgreSQL index, behind HAProxy, all
# on 127.0.0.1 (PostgreSQL a throwaway server from tests/support/with-postgres.sh,
# HAProxy passing TLS through as deploy/haproxy.cfg.example does).  Asserts:
#   (a) an upload through one server is fetched and listed through the other,
#       the same report;
#   (b) the same new code object uploaded through both at once ends as one
#       report: one report file for its key, one row in the listing;
#   (c) 48 uploads of distinct code objects through HAProxy while one tregd is
#       SIGKILLed midway: tregc's retries carry at least 46 through, and every
#       acknowledged upload is fetchable through HAProxy and equal to
#       treg-analyze on the same file;
#   (d) the killed server starts again on the store: its own temp folder is
#       emptied, the other's untouched, and it serves every acknowledged report;
#   (e) tregc tries a broken connection again: through a front that cuts the
#       first two connections a fetch succeeds; one that cuts more than
#       tregc's tries gets one line and exit 1.
# Skips (77) without haproxy, PostgreSQL, openssl or 48 distinct code objects
# among the corpus and the fixtures.
set -euo pipefail

prog=test_cluster
# shellcheck source=tests/cli/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

require_tregd haproxy openssl python3 setsid timeout
# PostgreSQL: a throwaway one around this very script.
if [[ -z ${TREG_TEST_INDEX:-} ]]; then
  exec "$TREG_SOURCE_ROOT/tests/support/with-postgres.sh" bash "${BASH_SOURCE[0]}"
fi

# 48 distinct code objects (by SHA-256), each with its cache entry's files.
mapfile -t candidates < <(find "$TREG_CORPUS/triton-cache" "$TREG_CORPUS/gfx906-llc22" \
  "$TREG_CORPUS/triton-cache-targets" "${TREG_FIXTURES:-/nonexistent}/gfx906" \
  "${TREG_FIXTURES:-/nonexistent}/gfx90a" "${TREG_FIXTURES:-/nonexistent}/gfx942" \
  -name '*.hsaco' -type f 2>/dev/null | LC_ALL=C sort)
declare -A seen=()
files=()
for f in "${candidates[@]}"; do
  h=$(sha256sum "$f" | cut -c1-64)
  [[ -n ${seen[$h]:-} ]] && continue
  # the linked LLVM must decode it (an older one skips gfx950)
  "$TREG_ANALYZE" --format json --no-rows "$f" >/dev/null 2>&1 || continue
  seen[$h]=1
  files+=("$f")
  ((${#files[@]} < 49)) || break
done
((${#files[@]} >= 49)) || skip "only ${#files[@]} distinct code objects in the corpus and fixtures (49 needed)"
first=${files[48]} # (a) and (b); the burst takes the other 48

work=$(mktemp -d "${TMPDIR:-/tmp}/treg-cluster.XXXXXX")
declare -A pids=()
haproxy_pid=""
cleanup() {
  local p
  for p in "${pids[@]}"; do kill -KILL -- "-$p" 2>/dev/null || true; done
  [[ -z $haproxy_pid ]] || kill -KILL "$haproxy_pid" 2>/dev/null || true
  wait 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT
cd "$work"
"$TREG_SOURCE_ROOT/deploy/make-certs.sh" certs 127.0.0.1 >/dev/null
token=$(head -c 24 /dev/urandom | od -An -tx1 | tr -d ' \n')
printf 'test %s\n' "$("$TREGD" hash-token "$token" | grep -oE '[0-9a-f]{64}' | head -n1)" >tokens
store=$work/store
declare -A ports=()

# start NAME: tregd instance NAME on the shared store and index.
start() {
  local name=$1
  rm -f "port.$name"
  setsid "$TREGD" --listen 127.0.0.1:0 --port-file "port.$name" --cert certs/server.pem \
    --key certs/server.key --store "$store" --index "$TREG_TEST_INDEX" --instance "$name" \
    --tokens-file tokens --workers 1 --queue 64 --timeout 60 2>>"tregd.$name.log" &
  pids[$name]=$!
  wait_port "port.$name" "${pids[$name]}" "tregd.$name.log"
  ports[$name]=$(tr -dc '0-9' <"port.$name")
}
# tc PORT ARGS...: tregc against 127.0.0.1:PORT, bounded.
tc() {
  local port=$1
  shift
  timeout 120 "$TREGC" --server "https://127.0.0.1:$port" --ca certs/ca.pem --token "$token" "$@"
}
free_port() {
  python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

start a
start b
echo "$prog: tregd a on ${ports[a]}, b on ${ports[b]}: one store, index $TREG_TEST_INDEX"

cat >same.py <<'PY'
"""same.py A B LABEL: every report of A (treg-analyze's or tregc's JSON) is in B, in
order, with the same value for each of its keys, kernels field by field (the file's
name and what only a server's answer carries aside)."""
import json, sys
IGNORE = {"file", "hash", "stored_before", "link"}
def load(path):
    doc = json.load(open(path))
    if doc.get("errors"):
        sys.exit(f"{path}: errors {doc['errors']}")
    return doc["reports"]
def within(a, b, where):
    if isinstance(a, dict):
        if not isinstance(b, dict):
            sys.exit(f"{where}: not an object")
        for k, v in a.items():
            if k not in b:
                sys.exit(f"{where}.{k}: missing")
            within(v, b[k], f"{where}.{k}")
    elif isinstance(a, list):
        if not isinstance(b, list) or len(a) != len(b):
            sys.exit(f"{where}: lists differ")
        for i, (x, y) in enumerate(zip(a, b)):
            within(x, y, f"{where}[{i}]")
    elif a != b:
        sys.exit(f"{where}: {json.dumps(a)[:80]} != {json.dumps(b)[:80]}")
a, b = load(sys.argv[1]), load(sys.argv[2])
if len(a) != len(b):
    sys.exit(f"{sys.argv[3]}: {len(a)} reports, {len(b)}")
for x, y in zip(a, b):
    within({k: v for k, v in x.items() if k not in IGNORE}, y, sys.argv[3])
PY

# ---------------------------------------------------------------- (a)
tc "${ports[a]}" --format json --no-rows upload "$first" >a.up.json 2>a.err || fail "(a) upload through a: $(head -n2 a.err)"
h=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["reports"][0]["hash"])' a.up.json)
tc "${ports[b]}" --format json --no-rows fetch "$h" >a.fetch.json 2>a.err || fail "(a) fetch through b: $(head -n2 a.err)"
python3 same.py a.up.json a.fetch.json "(a) fetched through b" || fail "(a) b serves another report than a stored"
tc "${ports[b]}" --format json list >a.list.json 2>a.err || fail "(a) list through b: $(head -n2 a.err)"
grep -q "\"$h\"" a.list.json || fail "(a) b's listing lacks the report uploaded through a"
echo "$prog: (a) uploaded through a, fetched and listed through b: the same report"

# ---------------------------------------------------------------- (b)
twin=${files[47]}
tc "${ports[a]}" --format json --no-rows upload "$twin" >b.a.json 2>b.a.err &
pa=$!
tc "${ports[b]}" --format json --no-rows upload "$twin" >b.b.json 2>b.b.err &
pb=$!
wait "$pa" || fail "(b) the upload through a: $(head -n2 b.a.err)"
wait "$pb" || fail "(b) the upload through b: $(head -n2 b.b.err)"
python3 same.py b.a.json b.b.json "(b)" || fail "(b) the two servers answered different reports"
th=$(sha256sum "$twin" | cut -c1-64)
tc "${ports[a]}" --format json list --limit 1000 >b.list.json
n=$(python3 -c 'import json, sys; print(sum(r["hash"] == sys.argv[2] for r in json.load(open(sys.argv[1]))["reports"]))' b.list.json "$th")
((n == 1)) || fail "(b) $n rows list the code object uploaded through both servers at once"
nfiles=$(find "$store/reports" -name '*.report' | wc -l)
((nfiles == 2)) || fail "(b) $nfiles report files for 2 code objects"
echo "$prog: (b) one code object through both servers at once: one report, one row"

# ---------------------------------------------------------------- (c)
hp=$(free_port)
cat >haproxy.cfg <<EOF
global
    maxconn 512
    log stdout format raw local0
defaults
    mode tcp
    log global
    option tcplog
    timeout connect 2s
    timeout client 120s
    timeout server 120s
    option redispatch
    retries 3
frontend treg
    bind 127.0.0.1:$hp
    default_backend tregd
backend tregd
    balance roundrobin
    option httpchk
    http-check send meth GET uri /v1/health ver HTTP/1.1 hdr Host 127.0.0.1
    http-check expect status 200
    default-server check check-ssl verify required ca-file $work/certs/ca.pem inter 300ms fall 2 rise 1
    server a 127.0.0.1:${ports[a]}
    server b 127.0.0.1:${ports[b]}
EOF
haproxy -c -f haproxy.cfg >haproxy.check 2>&1 || fail "haproxy rejects the test's configuration: $(tail -n3 haproxy.check)"
haproxy -db -f haproxy.cfg >haproxy.log 2>&1 &
haproxy_pid=$!
up() { tc "$hp" health >/dev/null 2>&1; }
wait_for 10 up || fail "no health answer through HAProxy on $hp: $(tail -n3 haproxy.log)"
burst=("${files[@]:0:48}")
for f in "${burst[@]}"; do
  "$TREG_ANALYZE" --format json --no-rows "$f" >"local.$(sha256sum "$f" | cut -c1-64).json"
done
mkdir -p c
# 4 clients, 12 uploads each, one tregc per upload: each acknowledgment its own.
client() {
  local i=$1 j f
  for ((j = i; j < 48; j += 4)); do
    f=${burst[$j]}
    if tc "$hp" --format json --no-rows --timeout 60 upload "$f" >"c/$j.json" 2>"c/$j.err"; then
      echo ok >"c/$j.done"
    else
      echo failed >"c/$j.done"
    fi
  done
}
cpids=()
for i in 0 1 2 3; do
  client "$i" &
  cpids+=($!)
done
done_count() { find c -name '*.done' | wc -l; }
killed() { (($(done_count) >= 16)); }
wait_for 120 killed || fail "(c) 16 uploads did not finish within 120 s"
kill -KILL -- "-${pids[b]}"
wait "${pids[b]}" 2>/dev/null || true
unset 'pids[b]'
echo "$prog: (c) SIGKILL of tregd b after $(done_count) of 48 uploads"
for p in "${cpids[@]}"; do wait "$p"; done
ok=0
acked=()
for ((j = 0; j < 48; j++)); do
  if [[ $(cat "c/$j.done") == ok ]]; then
    ok=$((ok + 1))
    acked+=("$j")
  fi
done
failures=$(for ((j = 0; j < 48; j++)); do [[ $(cat "c/$j.done") == ok ]] || cat "c/$j.err"; done | sort | uniq -c)
((ok >= 46)) || fail "(c) only $ok of 48 uploads through HAProxy succeeded: $failures"
for j in "${acked[@]}"; do
  f=${burst[$j]}
  h=$(sha256sum "$f" | cut -c1-64)
  python3 same.py "local.$h.json" "c/$j.json" "(c) $f" || fail "(c) the acknowledged upload of $f is not treg-analyze's"
  tc "$hp" --format json --no-rows fetch "$h" >c.fetch.json 2>c.err || fail "(c) acknowledged $h is not fetchable through HAProxy: $(head -n2 c.err)"
  python3 same.py "local.$h.json" c.fetch.json "(c) fetch $h" || fail "(c) fetched $h is not treg-analyze's"
done
# HAProxy's log: connections to b that b's death cut (termination state S or
# D: the server side ended them), each an upload tregc then sent again.
cut=$(grep -cE ' tregd/b [-0-9/]+ [0-9]+ (S|-D|SD|CD)' haproxy.log || true)
echo "$prog: (c) $ok of 48 uploads acknowledged through HAProxy while b died ($cut connections to b cut), each fetchable and equal to treg-analyze's${failures:+; failed: $failures}"

# ---------------------------------------------------------------- (d)
mkdir -p "$store/tmp/a"
echo in-flight >"$store/tmp/a/w.999.0" # a's, as if a were writing it
start b
[[ -f $store/tmp/a/w.999.0 ]] || fail "(d) b's start removed a's temp file"
left=$(find "$store/tmp/b" -type f | wc -l)
((left == 0)) || fail "(d) b's start left $left files in its temp folder"
rm -f "$store/tmp/a/w.999.0"
for j in "${acked[@]}"; do
  h=$(sha256sum "${burst[$j]}" | cut -c1-64)
  tc "${ports[b]}" --format json --no-rows fetch "$h" >d.fetch.json 2>d.err || fail "(d) b does not serve acknowledged $h: $(head -n2 d.err)"
done
echo "$prog: (d) b again: its temp folder emptied, a's untouched, all ${#acked[@]} acknowledged reports served"

# ---------------------------------------------------------------- (e)
# tregc rides over broken connections: a front that cuts the first two
# connections it accepts (closed unanswered, as a dying server's) and relays
# the rest to a.  A fetch succeeds on its third try; four cuts in a row are
# more than tregc tries, and it says why it gave up.
cat >flaky.py <<'PY'
import socket, sys, threading
listen, target, cuts = socket.socket(), int(sys.argv[1]), int(sys.argv[2])
listen.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
listen.bind(("127.0.0.1", 0))
listen.listen(16)
print(listen.getsockname()[1], flush=True)
def pipe(a, b):
    try:
        while (d := a.recv(65536)):
            b.sendall(d)
    except OSError:
        pass
    for s in (a, b):
        try:
            s.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
n = 0
while True:
    c, _ = listen.accept()
    n += 1
    if n <= cuts:
        c.close()
        continue
    u = socket.create_connection(("127.0.0.1", target))
    threading.Thread(target=pipe, args=(c, u), daemon=True).start()
    threading.Thread(target=pipe, args=(u, c), daemon=True).start()
PY
h=$(sha256sum "$first" | cut -c1-64)
for cuts in 2 9; do
  python3 flaky.py "${ports[a]}" "$cuts" >"flaky.$cuts.port" &
  fp=$!
  wait_for 5 test -s "flaky.$cuts.port" || fail "(e) the flaky front did not start"
  rc=0
  tc "$(cat "flaky.$cuts.port")" --format json --no-rows fetch "$h" >e.json 2>e.err || rc=$?
  kill "$fp" 2>/dev/null || true
  if ((cuts == 2)); then
    ((rc == 0)) || fail "(e) two cut connections: tregc gave up: $(head -n2 e.err)"
    python3 same.py a.up.json e.json "(e)" || fail "(e) the fetch after two cuts is another report"
  else
    ((rc == 1)) || fail "(e) nine cut connections: exit $rc"
    if [[ $(wc -l <e.err) != 1 ]] || ! grep -q "^tregc: TLS: handshake with 127.0.0.1:[0-9]* failed: " e.err; then
      fail "(e) nine cut connections: $(cat e.err)"
    fi
  fi
done
echo "$prog: (e) a front cutting the first 2 connections: fetched on the third; cutting 9: one line, exit 1"

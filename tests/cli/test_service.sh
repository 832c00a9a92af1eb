#!/usr/bin/env bash
# tregd and tregc end to end: real processes, real TLS on 127.0.0.1, a fresh
# CA and server certificate from deploy/make-certs.sh, a temporary store,
# --workers 2.  Asserts, each step saying what it checked:
#   (a) for every kernel of the corpus ($TREG_CORPUS/triton-cache and
#       gfx906-llc22; without it the fixtures' triton-like/ and triton/
#       entries), `tregc --format json upload` equals `treg-analyze --format
#       json` on the same file, report by report and kernel by kernel, field
#       by field (only "file", "hash" and keys the server adds are ignored);
#       likewise for one .hsaco named directly;
#   (b) after SIGTERM (exit status 0) and a start on the same store, `tregc
#       fetch HASH` returns the upload's report for every hash;
#   (c) uploading the same blobs again is served from the store: reported as
#       stored before, no report file rewritten, no new report, and (tregc
#       asks by hash first) no blob sent: the server log has one GET
#       /v1/reports/{hash} per blob and no POST /v1/analyze;
#   (d) a wrong token: tregc exits 1 with a one-line 401 error;
#   (e) a body over --max-body: 413 from tregc and from curl;
#   (f) a malformed protobuf POSTed by curl: 400, and /v1/health is still ok;
#   (g) 64 concurrent tregc uploads over distinct and repeated entries on a
#       fresh store all succeed with the analyzer's reports;
#   (h) SIGKILL of tregd during a burst of uploads, then a start on the same
#       store: every report whose upload was acknowledged is fetchable and
#       equals the analyzer's, every report file in the store is whole, no
#       temporary file is visible as a report, and the index lists exactly the
#       report files present.
# Bounded: every client call runs under timeout, the servers are killed by the
# EXIT trap, the whole test takes well under 3 minutes on 2 cores.
#
# Environment (CTest sets it, see tests/CMakeLists.txt): TREG_ANALYZE,
# TREGD, TREGC (default: server/tregd and client/tregc next to treg-analyze's
# build), TREG_CORPUS, TREG_FIXTURES, TREG_SOURCE_ROOT.  Skips (77) when tregd
# or tregc is not built, or openssl, curl, python3 or setsid is missing.
set -euo pipefail

prog=test_service
# shellcheck source=tests/cli/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

require_analyzer
build=$(cd "$(dirname "$TREG_ANALYZE")/.." && pwd)
TREGD=${TREGD:-$build/server/tregd}
TREGC=${TREGC:-$build/client/tregc}
[[ -x $TREGD ]] || skip "tregd is not built (looked for $TREGD; set TREGD)"
[[ -x $TREGC ]] || skip "tregc is not built (looked for $TREGC; set TREGC)"
for tool in openssl curl python3 setsid timeout pgrep; do
  command -v "$tool" >/dev/null 2>&1 || skip "$tool is not installed (scripts/install-deps.sh)"
done
make_certs=$TREG_SOURCE_ROOT/deploy/make-certs.sh
[[ -x $make_certs ]] || fail "deploy/make-certs.sh not found at $make_certs"

# The kernels: the corpus when present, else the fixtures' Triton entries.
entries=()
if [[ -d $TREG_CORPUS/triton-cache && -d $TREG_CORPUS/gfx906-llc22 ]]; then
  corpus_dirs=("$TREG_CORPUS/triton-cache" "$TREG_CORPUS/gfx906-llc22")
else
  fx=${TREG_FIXTURES:-}
  [[ -n $fx && -d $fx/triton-like && -d $fx/triton ]] ||
    skip "neither the corpus ($TREG_CORPUS) nor the fixtures (${fx:-TREG_FIXTURES unset}) are present"
  echo "$prog: corpus not at $TREG_CORPUS; using the fixtures' Triton entries"
  corpus_dirs=("$fx/triton-like" "$fx/triton")
fi
mapfile -t entries < <(find "${corpus_dirs[@]}" -name '*.hsaco' -type f -printf '%h\n' | LC_ALL=C sort -u)
((${#entries[@]} >= 2)) || fail "fewer than two Triton cache entries under ${corpus_dirs[*]}"

work=$(mktemp -d "${TMPDIR:-/tmp}/treg-service.XXXXXX")
server_pid=""
client_pids=()
cleanup() {
  local p
  for p in "${client_pids[@]}"; do kill -KILL "$p" 2>/dev/null || true; done
  # tregd runs in its own process group (setsid): the master and its workers.
  [[ -z $server_pid ]] || kill -KILL -- "-$server_pid" 2>/dev/null || true
  wait 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT
cd "$work"

certs=$work/certs
"$make_certs" "$certs" 127.0.0.1 >/dev/null
token=$(head -c 24 /dev/urandom | od -An -tx1 | tr -d ' \n')
token_hash=$("$TREGD" hash-token "$token" | grep -oE '[0-9a-f]{64}' | head -n1) ||
  fail "tregd hash-token printed no SHA-256 hex"
printf '# team sha256(token)\ntest %s\n' "$token_hash" >"$work/tokens"
max_body=$((4 * 1024 * 1024))
# TREG_TEST_INDEX (tests/support/with-postgres.sh): the same steps on a
# PostgreSQL index.
index=()
if [[ -n ${TREG_TEST_INDEX:-} ]]; then
  index=(--index "$TREG_TEST_INDEX")
  echo "$prog: the index is PostgreSQL's ($TREG_TEST_INDEX)"
fi
port=""
nlog=0

# start_server STORE: tregd on 127.0.0.1, a free port, in its own process
# group; waits until /v1/health answers.  Sets server_pid, port, log.
start_server() {
  local store=$1 i
  nlog=$((nlog + 1))
  log=$work/tregd.$nlog.log
  rm -f "$work/port"
  setsid "$TREGD" --listen 127.0.0.1:0 --port-file "$work/port" \
    --cert "$certs/server.pem" --key "$certs/server.key" --store "$store" "${index[@]}" \
    --tokens-file "$work/tokens" --workers 2 --queue 64 --max-body "$max_body" \
    --timeout 60 2>"$log" &
  server_pid=$!
  wait_port "$work/port" "$server_pid" "$log"
  port=$(tr -dc '0-9' <"$work/port")
  wait_for 5 tc health >/dev/null 2>&1 || fail "tregd on port $port does not answer /v1/health: $(tail -n3 "$log")"
}

# stop_server: SIGTERM; tregd must exit 0 within 30 s, leaving no worker.
stop_server() {
  local rc=0 i
  kill -TERM "$server_pid"
  for ((i = 0; i < 300; i++)); do
    kill -0 "$server_pid" 2>/dev/null || break
    sleep 0.1
  done
  kill -0 "$server_pid" 2>/dev/null && fail "tregd did not exit within 30 s of SIGTERM"
  wait "$server_pid" || rc=$?
  ((rc == 0)) || fail "tregd exited $rc after SIGTERM: $(tail -n3 "$log")"
  for ((i = 0; i < 30; i++)); do
    pgrep -g "$server_pid" >/dev/null || break
    sleep 0.1
  done
  pgrep -g "$server_pid" >/dev/null && fail "tregd's worker processes outlived it after SIGTERM"
  server_pid=""
}

# tc ARGS...: tregc against the server under test, bounded.
tc() {
  timeout 60 "$TREGC" --server "https://127.0.0.1:$port" --ca "$certs/ca.pem" --token "$token" "$@"
}
# curl_status OUT ARGS...: curl against the server; prints the HTTP status.
curl_status() {
  local out=$1
  shift
  timeout 30 curl -sS --cacert "$certs/ca.pem" -o "$out" -w '%{http_code}' "$@"
}

cat >"$work/svc.py" <<'PY'
"""svc.py: treg-analyze's JSON against tregc's.

  local MAP OUT...            reports of treg-analyze outputs keyed by the SHA-256 of the file
  check MAP TREGC_OUT LABEL [--count N] [--hashes FILE] [--stored yes|no]
                              every report of tregc's output equals the analyzer's for its hash
  same A B LABEL              the reports of two tregc outputs are equal, hash by hash
  hashes TREGC_OUT            the reports' hashes, one a line (nothing when the output is not JSON)
  list_hashes LIST_OUT        the hashes a `tregc --format json list` printed
"""
import hashlib, json, sys

IGNORE = {"file", "hash", "stored_before", "link"}  # upload answers; the server's address


def load(path):
    with open(path) as f:
        return json.load(f)


def diff(a, b, where, out):
    """Differences of a (local) from b (server), at most a few per kernel."""
    if len(out) > 20:
        return
    if isinstance(a, dict) and isinstance(b, dict):
        for k in a:
            if k not in b:
                out.append(f"{where}.{k}: missing from the server's report")
            else:
                diff(a[k], b[k], f"{where}.{k}", out)
    elif isinstance(a, list) and isinstance(b, list):
        if len(a) != len(b):
            out.append(f"{where}: {len(a)} entries locally, {len(b)} from the server")
        for i, (x, y) in enumerate(zip(a, b)):
            diff(x, y, f"{where}[{i}]", out)
    elif a != b or type(a) != type(b):
        out.append(f"{where}: local {json.dumps(a)[:120]} != server {json.dumps(b)[:120]}")


def compare(local, remote, label):
    """Report-level keys the server adds are ignored; the local report's must all match."""
    out = []
    for k in local:
        if k in IGNORE or k == "kernels":
            continue
        if k not in remote:
            out.append(f"{label}.{k}: missing from the server's report")
        else:
            diff(local[k], remote[k], f"{label}.{k}", out)
    lk, rk = local.get("kernels", []), remote.get("kernels", [])
    if [k.get("name") for k in lk] != [k.get("name") for k in rk]:
        out.append(f"{label}: kernels {[k.get('name') for k in lk]} locally, "
                   f"{[k.get('name') for k in rk]} from the server")
    for a, b in zip(lk, rk):
        diff(a, b, f"{label} kernel {a.get('name')}", out)
    return out


def main():
    cmd, args = sys.argv[1], sys.argv[2:]
    if cmd == "local":
        reports = {}
        for path in args[1:]:
            doc = load(path)
            if doc.get("errors"):
                sys.exit(f"treg-analyze reported errors: {doc['errors']}")
            for r in doc["reports"]:
                with open(r["file"], "rb") as f:
                    reports[hashlib.sha256(f.read()).hexdigest()] = r
        with open(args[0], "w") as f:
            json.dump(reports, f)
        print(len(reports))
    elif cmd == "check":
        local, doc, label = load(args[0]), load(args[1]), args[2]
        opts = dict(zip(args[3::2], args[4::2]))
        problems = []
        if doc.get("errors"):
            problems.append(f"tregc reported errors: {doc['errors']}")
        reports = doc.get("reports", [])
        if "--count" in opts and len(reports) != int(opts["--count"]):
            problems.append(f"{len(reports)} reports, expected {opts['--count']}")
        kernels = 0
        for r in reports:
            h = r.get("hash")
            if h not in local:
                problems.append(f"report {r.get('file')} hash {h}: no local report with that hash")
                continue
            if "--stored" in opts and "stored_before" in r:
                want = opts["--stored"] == "yes"
                if bool(r["stored_before"]) != want:
                    problems.append(f"{r.get('file')}: stored_before {r['stored_before']}, expected {want}")
            problems += compare(local[h], r, f"{r.get('file')} ({h[:12]})")
            kernels += len(r.get("kernels", []))
        if "--hashes" in opts:
            with open(opts["--hashes"], "w") as f:
                f.write("".join(r.get("hash", "") + "\n" for r in reports))
        if problems:
            print(f"{label}: {len(problems)} differences:", *problems[:25], sep="\n  ")
            sys.exit(1)
        print(f"{len(reports)} reports, {kernels} kernels equal field by field")
    elif cmd == "same":
        a, b, label = load(args[0]), load(args[1]), args[2]
        ra = {r["hash"]: r for r in a.get("reports", [])}
        rb = {r["hash"]: r for r in b.get("reports", [])}
        problems = [] if not b.get("errors") else [f"errors: {b['errors']}"]
        if set(ra) != set(rb):
            problems.append(f"hashes differ: only first {sorted(set(ra) - set(rb))[:3]}, "
                            f"only second {sorted(set(rb) - set(ra))[:3]}")
        for h in set(ra) & set(rb):
            problems += compare(ra[h], rb[h], h[:12])
        if problems:
            print(f"{label}: differences:", *problems[:25], sep="\n  ")
            sys.exit(1)
        print(f"{len(ra)} reports equal")
    elif cmd == "hashes":
        try:
            doc = load(args[0])
        except (ValueError, OSError):
            return
        for r in doc.get("reports", []) if isinstance(doc, dict) else []:
            if r.get("hash"):
                print(r["hash"])
    elif cmd == "list_hashes":
        doc = load(args[0])
        rows = doc.get("reports", []) if isinstance(doc, dict) else doc
        for r in rows:
            print(r["hash"])
    elif cmd == "field":
        doc = load(args[0])
        print(json.dumps([r.get(args[1]) for r in doc.get("reports", [])]))


main()
PY
svc() { python3 "$work/svc.py" "$@"; }
pbwire=$TREG_SOURCE_ROOT/tests/cli/pbwire.py

# The analyzer's reports for every entry, keyed by hash, once.
mkdir -p local
i=0
for e in "${entries[@]}"; do
  "$TREG_ANALYZE" --format json "$e" >"local/$i.json" 2>"local/$i.err" ||
    fail "treg-analyze $e failed: $(head -n2 "local/$i.err")"
  i=$((i + 1))
done
nlocal=$(svc local local.map local/*.json)
echo "$prog: ${#entries[@]} Triton cache entries, $nlocal code objects analyzed locally"

# ---------------------------------------------------------------- (a)
store1=$work/store1
start_server "$store1"
echo "$prog: tregd on https://127.0.0.1:$port (store $store1, 2 workers)"
rc=0
tc --format json upload "${corpus_dirs[@]}" >a.json 2>a.err || rc=$?
((rc == 0)) || fail "(a) tregc upload ${corpus_dirs[*]} exited $rc: $(head -n3 a.err)"
res=$(svc check local.map a.json "(a)" --count "$nlocal" --hashes a.hashes --stored no) ||
  fail "(a) the server's reports differ from treg-analyze's: $res"
echo "$prog: (a) upload of ${corpus_dirs[*]}: $res to treg-analyze --format json"
one=$(find "${entries[0]}" -name '*.hsaco' | head -n1)
tc --format json upload "$one" >a1.json 2>a1.err || fail "(a) tregc upload $one: $(head -n3 a1.err)"
"$TREG_ANALYZE" --format json "$one" >a1.local.json
svc local a1.map a1.local.json >/dev/null
res=$(svc check a1.map a1.json "(a) single file" --count 1) ||
  fail "(a) tregc upload of a .hsaco named directly differs from treg-analyze on it: $res"
echo "$prog: (a) upload of $(basename "$one") named directly: $res"
# The HTML page of a served report carries the same kernels as treg-analyze's
# page of the file (and the blob's hash, which only the server knows).
tc --format html -o a1.html upload "$one" 2>a1h.err || fail "(a) tregc --format html: $(head -n3 a1h.err)"
"$TREG_ANALYZE" --format html -o a1.local.html "$one"
python3 - a1.html a1.local.html "$(sha256sum "$one" | cut -c1-64)" <<'PY' || fail "(a) tregc's HTML page differs from treg-analyze's"
import json, re, sys
def data(path):
    text = open(path, encoding="utf-8").read()
    m = re.search(r'<script type="application/json" id="treg-data">(.*?)</script>', text, re.S)
    assert text.startswith("<!doctype html>") and m, path
    return json.loads(m.group(1))
served, local, sha = data(sys.argv[1]), data(sys.argv[2]), sys.argv[3]
assert served["reports"][0]["hash"] == sha, "served page lacks the blob's hash"
assert served["reports"][0]["kernels"] == local["reports"][0]["kernels"], "kernels differ"
assert served["reports"][0]["kernels"][0]["rows"], "served page has no rows"
PY
echo "$prog: (a) tregc upload --format html -o: the page's kernels equal treg-analyze's page"

# ---------------------------------------------------------------- (b)
stop_server
echo "$prog: (b) tregd exited 0 on SIGTERM, no worker left"
start_server "$store1"
mapfile -t hashes <a.hashes
for h in "${hashes[@]}"; do
  tc --format json fetch "$h" >"b.$h.json" 2>b.err || fail "(b) tregc fetch $h after restart: $(head -n3 b.err)"
done
python3 - a.json "${hashes[@]}" >b.json <<'PY'
import json, sys
reports = []
for h in sys.argv[2:]:
    with open(f"b.{h}.json") as f:
        reports += json.load(f)["reports"]
print(json.dumps({"reports": reports, "errors": []}))
PY
res=$(svc same a.json b.json "(b)") || fail "(b) fetched reports differ from the uploads': $res"
echo "$prog: (b) after a restart on the same store, fetch by hash: ${#hashes[@]} fetched, $res to the upload's"
rc=0
tc fetch "$(printf '%064d' 0)" >b.none.out 2>b.none.err || rc=$?
((rc != 0)) || fail "(b) tregc fetch of an unknown hash exited 0"
echo "$prog: (b) fetch of an unknown hash: exit $rc, $(head -n1 b.none.err)"
# A unique prefix of 8+ hex digits fetches the same report; one naming no
# code object is refused, saying so (two sharing one: tests/unit/test_store.c).
h0=${hashes[0]}
tc --format json fetch "${h0:0:10}" >b.prefix.json 2>b.err || fail "(b) fetch by a 10-digit prefix: $(head -n3 b.err)"
python3 -c 'import json,sys; a=json.load(open(sys.argv[1])); b=json.load(open(sys.argv[2])); assert a["reports"] == b["reports"]' \
  b.prefix.json "b.$h0.json" || fail "(b) the prefix fetched another report"
rc=0
tc fetch 0000000000 >b.p.out 2>b.p.err || rc=$?
if ((rc != 1)) || ! grep -q "no report 0000000000 on the server" b.p.err; then
  fail "(b) fetch of an unknown prefix: exit $rc: $(cat b.p.err)"
fi
rc=0
tc fetch 1234567 >b.p.out 2>b.p.err || rc=$?
((rc == 2)) || fail "(b) a 7-digit prefix: exit $rc"
echo "$prog: (b) fetch by a unique 10-digit prefix: the same report; unknown and short prefixes refused"
# tregc list: every kernel of the store on one line of at most 100 columns,
# in the header's columns, its figures those of the analyzer's report for
# the hash (the index keeps them); --format json the same under a kernel's keys.
tc --format json list --limit 1000 >b.list.json 2>b.err || fail "(b) tregc --format json list: $(head -n3 b.err)"
tc list --limit 1000 >b.list.txt 2>b.err || fail "(b) tregc list: $(head -n3 b.err)"
res=$(python3 - local.map b.list.json b.list.txt <<'PY'
import json, sys, time
local, listed = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))["reports"]
lines = open(sys.argv[3], encoding="utf-8").read().splitlines()
def fail(msg):
    sys.exit(msg)
KEYS = [("vgpr", "peak_live"), ("vgpr", "allocated"), ("agpr", "peak_live"), ("agpr", "allocated"),
        ("sgpr", "peak_live"), ("sgpr", "allocated"), ("occupancy", "waves_per_simd"),
        ("occupancy", "max_waves"), ("occupancy", "limited_by")]
want_rows, cut = [], False
for r in listed:
    mine = local.get(r["hash"]) or fail(f"listed hash {r['hash']} is no upload's")
    names = [k["name"] for k in mine["kernels"]]
    if r["kernels"] != names or [f["name"] for f in r["figures"]] != names:
        fail(f"{r['hash'][:12]}: kernels {r['kernels']} listed, {names} analyzed")
    for f, k in zip(r["figures"], mine["kernels"]):
        for g, key in KEYS:
            if f[g][key] != k[g][key]:
                fail(f"{k['name']}: {g}.{key} listed {f[g][key]}, analyzed {k[g][key]}")
        for key in ("total_vgprs", "spill_instructions", "scratch_bytes"):
            if f[key] != k[key]:
                fail(f"{k['name']}: {key} listed {f[key]}, analyzed {k[key]}")
        if f["lower_bound"] != (k["undecodable_words"] > 0):
            fail(f"{k['name']}: lower_bound {f['lower_bound']}")
        ge = ">=" if f["lower_bound"] else ""
        reg = lambda c: f"{ge}{f[c]['peak_live']}/{f[c]['allocated']}" if f[c]["peak_live"] or f[c]["allocated"] else "-"
        name = f["name"] if len(f["name"]) <= 21 else f["name"][:18] + "..."
        cut |= name != f["name"]
        created = time.strftime("%Y-%m-%d %H:%M", time.localtime(r["created_unix"]))
        want_rows.append([r["hash"][:12], created, r["target"] + ("*" if r["provisional"] else ""),
                          reg("vgpr"), reg("agpr"),
                          f"{f['occupancy']['waves_per_simd']}/{f['occupancy']['max_waves']}",
                          str(f["spill_instructions"]), name])
head = lines[0]
cols = [head.index(w) for w in ("HASH", "CREATED", "TARGET", "VGPR", "AGPR", "WAVES", "SPILLS", "KERNEL")]
spills_end = cols[6] + len("SPILLS")
rows = lines[1:1 + len(want_rows)]
for i, line in enumerate(lines):
    if len(line) > 100:
        fail(f"line {i + 1} has {len(line)} columns: {line}")
for line, want in zip(rows, want_rows):
    got = [line[cols[j]:cols[j + 1]].strip() for j in range(6)]
    got += [line[cols[6]:spills_end].strip(), line[cols[7]:]]
    if got != want:
        fail(f"line {line!r}: {got} out of the header's columns or not {want}")
    if line[spills_end - 1] == " ":
        fail(f"SPILLS not right-aligned: {line!r}")
if len(rows) != len(want_rows):
    fail(f"{len(rows)} kernel lines for {len(want_rows)} kernels")
legend = any(l.startswith("... names cut to fit") for l in lines)
if legend != cut:
    fail(f"cut names {cut}, legend {legend}")
print(f"{len(want_rows)} kernels of {len(listed)} reports, widest line {max(map(len, lines))} columns")
PY
) || fail "(b) tregc list: $res"
echo "$prog: (b) tregc list: $res, in the header's columns, figures the analyzer's"

# ---------------------------------------------------------------- (c)
snapshot() { find "$store1/reports" "$store1/blobs" -type f -printf '%P %i %T@ %s\n' | LC_ALL=C sort; }
snapshot >c.before
requests() { grep -c "\"method\":\"$1\",\"path\":\"$2" "$log" || true; }
# wait_requests METHOD PATH N: until the log holds N such request lines.  tregd
# writes its request log within 10 ms of a request, in order: once a run's
# last request is there, so are all before it.
has_requests() { (($(requests "$1" "$2") >= $3)); }
wait_requests() {
  wait_for 5 has_requests "$@" ||
    fail "(c) the log did not reach $3 '$1 $2' request lines in 5 s (has $(requests "$1" "$2"))"
}
# (b)'s last request, the unknown hash, is logged: the counts below start after it.
wait_requests GET "/v1/reports/$(printf '%064d' 0)" 1
posts_before=$(requests POST /v1/analyze) gets_before=$(requests GET /v1/reports/)
rc=0
tc --format json upload "${corpus_dirs[@]}" >c.json 2>c.err || rc=$?
((rc == 0)) || fail "(c) second upload exited $rc: $(head -n3 c.err)"
res=$(svc check local.map c.json "(c)" --count "$nlocal" --stored yes) ||
  fail "(c) the second upload's reports: $res"
snapshot >c.after
cmp -s c.before c.after || fail "(c) the second upload rewrote store files: $(diff c.before c.after | head -n4)"
# Hash first: each blob was asked for by hash and none was sent again.
wait_requests GET /v1/reports/ $((gets_before + nlocal))
posts=$(($(requests POST /v1/analyze) - posts_before)) gets=$(($(requests GET /v1/reports/) - gets_before))
((posts == 0)) || fail "(c) the second upload sent $posts blobs the server had (POST /v1/analyze in the log)"
((gets == nlocal)) || fail "(c) the second upload asked for $gets hashes, expected $nlocal"
tc upload "$one" >c.text 2>c.err || fail "(c) text upload of a stored blob: $(head -n2 c.err)"
grep -q 'not analyzed again' c.text || fail "(c) a text upload of a stored blob does not say so"
# The text views of a served report, with the kernel's source joined here (the
# node's copy): what treg-analyze prints for the file, but the header line and
# the page link.
views=(--lines --peak --asm --source-dir "$TREG_CORPUS/src")
tc fetch "$(sha256sum "$one" | cut -c1-64)" "${views[@]}" >c.views 2>c.err ||
  fail "(c) tregc fetch with the text views: $(head -n2 c.err)"
"$TREG_ANALYZE" "${views[@]}" "$one" >c.views.local
# (tregc's last line is the report's page on the server)
grep -q "^  page: https://127.0.0.1:$port/r/" c.views || fail "(c) tregc fetch prints no page link"
diff <(tail -n +2 c.views | grep -v '^  page: ') <(tail -n +2 c.views.local) >c.views.diff ||
  fail "(c) tregc's text views differ from treg-analyze's: $(head -n6 c.views.diff)"
grep -q '^ *[0-9a-f]\+ .*|.*| [sv]_' c.views || fail "(c) tregc --asm printed no live-range strip"
echo "$prog: (c) tregc fetch --lines --peak --asm: $(wc -l <c.views) lines, as treg-analyze prints them"
wait_requests GET /v1/reports/ $((gets_before + nlocal + 2)) # the text upload's GET, the fetch's
(($(requests POST /v1/analyze) == posts_before)) || fail "(c) a text upload of a stored blob sent it"
stored=$(svc field c.json stored_before)
if [[ $stored == *true* ]]; then
  [[ $stored != *false* && $stored != *null* ]] || fail "(c) not every re-upload says stored_before: $stored"
  how="tregc says stored_before for all"
else
  how="tregc does not show stored_before"
fi
echo "$prog: (c) the same $nlocal blobs again: $res, no store file written or replaced ($how);"
echo "$prog: (c) the server log shows $gets GET /v1/reports/{hash} and no POST /v1/analyze: no blob sent again"

# ---------------------------------------------------------------- (d)
rc=0
timeout 60 "$TREGC" --server "https://127.0.0.1:$port" --ca "$certs/ca.pem" --token "wrong-$token" \
  upload "$one" >d.out 2>d.err || rc=$?
((rc == 1)) || fail "(d) tregc with a wrong token exited $rc (expected 1): $(head -n3 d.err)"
grep -q 401 d.err || fail "(d) tregc with a wrong token did not print the 401: $(head -n3 d.err)"
(($(wc -l <d.err) == 1)) || fail "(d) more than one line on stderr for a 401: $(head -n4 d.err)"
echo "$prog: (d) wrong token: tregc exit 1, '$(cat d.err)'"
code=$(curl_status d.body -X POST --data-binary @"$one" -H 'Content-Type: application/x-protobuf' \
  "https://127.0.0.1:$port/v1/analyze") || true
[[ $code == 401 ]] || fail "(d) curl without a token got HTTP $code, expected 401"
echo "$prog: (d) no token at all (curl): HTTP 401"

# ---------------------------------------------------------------- (e)
big=$work/big/big_kernel
mkdir -p "$big"
cp "$one" "$big/big_kernel.hsaco"
head -c $((max_body + 4096)) /dev/zero >>"$big/big_kernel.hsaco"
rc=0
tc upload "$big/big_kernel.hsaco" >e.out 2>e.err || rc=$?
((rc != 0)) || fail "(e) an upload over --max-body succeeded"
grep -q 413 e.err || fail "(e) an upload over --max-body did not print the 413: $(head -n3 e.err)"
echo "$prog: (e) a $((max_body / 1048576)) MiB + 4 KiB code object over --max-body $max_body: tregc exit $rc, '$(head -n1 e.err)'"
code=$(curl_status e.body -X POST --data-binary @"$big/big_kernel.hsaco" \
  -H "Authorization: Bearer $token" -H 'Content-Type: application/x-protobuf' \
  "https://127.0.0.1:$port/v1/analyze") || true
[[ $code == 413 ]] || fail "(e) curl with a body over --max-body got HTTP $code, expected 413"
echo "$prog: (e) the same body from curl: HTTP 413"

# ---------------------------------------------------------------- (f)
# Field 1 (bytes) whose length varint never ends, then a truncated field.
printf '\x0a\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01\x12\x05ab' >f.bad
code=$(curl_status f.body -X POST --data-binary @f.bad -H "Authorization: Bearer $token" \
  -H 'Content-Type: application/x-protobuf' "https://127.0.0.1:$port/v1/analyze") || true
[[ $code == 400 ]] || fail "(f) a malformed protobuf got HTTP $code, expected 400"
printf 'garbage' >f.bad2
code2=$(curl_status f.body2 -X POST --data-binary @f.bad2 -H "Authorization: Bearer $token" \
  -H 'Content-Type: application/x-protobuf' "https://127.0.0.1:$port/v1/analyze") || true
[[ $code2 == 400 ]] || fail "(f) the protobuf 'garbage' got HTTP $code2, expected 400"
kill -0 "$server_pid" 2>/dev/null || fail "(f) tregd died after a malformed protobuf: $(tail -n3 "$log")"
code=$(curl_status f.health -H "Authorization: Bearer $token" "https://127.0.0.1:$port/v1/health") || true
[[ $code == 200 ]] || fail "(f) /v1/health after malformed bodies: HTTP $code"
tc health >f.tc 2>&1 || fail "(f) tregc health after malformed bodies: $(head -n2 f.tc)"
tc --format json fetch "${hashes[0]}" >f.fetch.json 2>f.err || fail "(f) fetch after malformed bodies: $(head -n2 f.err)"
echo "$prog: (f) malformed protobuf bodies: HTTP 400 twice; then health 200 and a fetch still served"
stop_server

# ---------------------------------------------------------------- (g)
store2=$work/store2
start_server "$store2"
n=64
client_pids=()
for ((i = 0; i < n; i++)); do
  e=${entries[i % ${#entries[@]}]}
  tc --format json upload "$e" >"g.$i.json" 2>"g.$i.err" &
  client_pids+=($!)
done
failed=0
for ((i = 0; i < n; i++)); do
  rc=0
  wait "${client_pids[i]}" || rc=$?
  if ((rc != 0)); then
    echo "$prog: (g) client $i (${entries[i % ${#entries[@]}]}) exited $rc: $(head -n2 "g.$i.err")" >&2
    failed=$((failed + 1))
  fi
done
client_pids=()
((failed == 0)) || fail "(g) $failed of $n concurrent uploads failed"
for ((i = 0; i < n; i++)); do
  res=$(svc check local.map "g.$i.json" "(g) client $i" --count 1) || fail "(g) client $i: $res"
done
distinct=$((n < ${#entries[@]} ? n : ${#entries[@]}))
nfiles=$(find "$store2/reports" -name '*.report' | wc -l)
((nfiles == distinct)) || fail "(g) $nfiles report files in the store after $distinct distinct uploads"
echo "$prog: (g) $n concurrent uploads ($distinct distinct entries, $((n - distinct)) repeats): all exit 0, each equals treg-analyze; $nfiles reports stored"
stop_server

# ---------------------------------------------------------------- (h)
store3=$work/store3
start_server "$store3"
killed_pid=$server_pid
# At least 32 uploads: every entry, then entries again with --reanalyze, which
# replaces stored reports (a rename over an existing file) while the kill comes.
nburst=$((${#entries[@]} > 32 ? ${#entries[@]} : 32))
client_pids=()
for ((i = 0; i < nburst; i++)); do
  again=()
  ((i < ${#entries[@]})) || again=(--reanalyze)
  tc --format json upload "${again[@]}" "${entries[i % ${#entries[@]}]}" >"h.$i.json" 2>"h.$i.err" &
  client_pids+=($!)
done
# Kill once a few uploads have been acknowledged, or after 3 s.
for ((t = 0; t < 60; t++)); do
  done_n=$(find . -maxdepth 1 -name 'h.*.json' -size +0 | wc -l)
  ((done_n >= 3)) && break
  sleep 0.05
done
disown "$server_pid" # no "Killed" job notice from bash
kill -KILL "$server_pid"
# Workers die with their master (PR_SET_PDEATHSIG): give them 3 s, as one
# in an fsync may take a moment to see the signal.
alive() { ps -e -o pgid=,stat=,pid=,args= | awk -v g="$killed_pid" '$1 == g && $2 !~ /^Z/'; }
for ((t = 0; t < 30; t++)); do
  [[ -z $(alive) ]] && break
  sleep 0.1
done
survivors=$(alive)
if [[ -n $survivors ]]; then
  kill -KILL -- "-$killed_pid" 2>/dev/null || true
  fail "(h) tregd processes outlived the SIGKILLed master by 3 s: $survivors"
fi
server_pid=""
echo "$prog: (h) no tregd worker outlived the SIGKILLed master"
acked=()
for ((i = 0; i < nburst; i++)); do
  wait "${client_pids[i]}" 2>/dev/null || true
  while read -r h; do acked+=("$h"); done < <(svc hashes "h.$i.json")
done
client_pids=()
nacks=${#acked[@]}
mapfile -t acked < <(printf '%s\n' "${acked[@]}" | sed '/^$/d' | LC_ALL=C sort -u)
echo "$prog: (h) SIGKILL after ${done_n} completed uploads; $nacks of $nburst uploads acknowledged (${#acked[@]} distinct blobs)"
start_server "$store3"
for h in "${acked[@]}"; do
  tc --format json fetch "$h" >h.fetch.json 2>h.err || fail "(h) acknowledged report $h is not fetchable after restart: $(head -n2 h.err)"
  res=$(svc check local.map h.fetch.json "(h) $h" --count 1) || fail "(h) acknowledged report $h: $res"
done
echo "$prog: (h) every acknowledged report (${#acked[@]}) fetched after restart and equal to treg-analyze's"
mapfile -t present < <(find "$store3/reports" -type f | LC_ALL=C sort)
: >h.files
for f in "${present[@]}"; do
  b=${f##*/}
  [[ $b =~ ^[0-9a-f]{64}\.report$ ]] || fail "(h) a file that is not a report is visible under reports/: $f"
  [[ ${f%/*} == */reports/${b:0:2} ]] || fail "(h) report file in the wrong shard: $f"
  tail -c +41 "$f" >h.payload # past the header: magic and checksum
  [[ $(python3 "$pbwire" report-key h.payload) == "${b%.report}" ]] ||
    fail "(h) report file $b is not named by its own key"
  h=$(python3 "$pbwire" report h.payload | sed -n 's/^hash=\([0-9a-f]*\) .*/\1/p')
  echo "$h" >>h.files
  tc --format json fetch "$h" >h.fetch.json 2>h.err || fail "(h) report file $b is not fetchable: $(head -n2 h.err)"
  res=$(svc check local.map h.fetch.json "(h) $b" --count 1) || fail "(h) stored report $b is not intact: $res"
done
LC_ALL=C sort -o h.files h.files
leftovers=$(find "$store3/tmp" -type f ! -name "*.lock" 2>/dev/null | wc -l)
echo "$prog: (h) ${#present[@]} report files in the store, all whole and equal to treg-analyze's; $leftovers temp files left in tmp/"
# Every page of the listing.
offset=0
: >h.indexed.unsorted
for ((pages = 0; pages < 100; pages++)); do
  tc --format json list --limit 50 --offset "$offset" >h.list.json 2>h.err ||
    fail "(h) tregc list --offset $offset: $(head -n2 h.err)"
  svc list_hashes h.list.json >>h.indexed.unsorted
  # each row names the uploading team (the tokens file's "test") and the inputs digest
  python3 - h.list.json <<'PY' || fail "(h) tregc list rows without their team or inputs"
import json, re, sys
rows = json.load(open(sys.argv[1]))["reports"]
bad = [r for r in rows if r.get("team") != "test" or not re.fullmatch(r"[0-9a-f]{64}", r.get("inputs", ""))]
sys.exit(f"{len(bad)} rows, e.g. {bad[0]}" if bad else 0)
PY
  offset=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1])).get("next_offset", 0))' h.list.json)
  ((offset > 0)) || break
done
LC_ALL=C sort h.indexed.unsorted >h.indexed
cmp -s h.indexed h.files ||
  fail "(h) the index and the report files differ: $(diff h.indexed h.files | head -n4)"
echo "$prog: (h) the index lists exactly the $(wc -l <h.files) report files present"
stop_server
echo "$prog: PASS"

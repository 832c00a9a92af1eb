#!/usr/bin/env bash
# tregc upload --samples against a real tregd on 127.0.0.1: the server
# places a profile's PC samples on its stored report and keeps them as the
# team's, the report itself unchanged.  The samples are the ones
# test_samples.sh writes (rocprofv3's layouts for a real gfx90a matmul,
# texts from llvm-objdump-22).  Checked:
#   - upload --samples (JSON and rocpd): every row's samples as written,
#     the same rows treg-analyze --samples gives;
#   - the report file in the store is byte for byte the one before; an
#     upload without --samples shows no samples; the team's set is kept
#     beside it (reports/ab/KEY.tTAG.samples), the latest replacing it;
#   - GET /v1/reports/HASH?inputs=&samples=1 gives the report with them,
#     another team a 404; the report's page carries them;
#   - samples of another build: refused (422, one line naming the offset),
#     nothing kept; a profile with none in the code object: a note and
#     exit 1; --samples on fetch: a usage error.
set -euo pipefail

prog=test_samples_server
# shellcheck source=tests/cli/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
require_analyzer
command -v python3 >/dev/null 2>&1 || skip "python3 is needed to write the samples"
command -v curl >/dev/null 2>&1 || skip "curl is needed for GET ?samples=1"
work=$(mktemp -d "${TMPDIR:-/tmp}/treg-samples-server.XXXXXX")
# shellcheck source=tests/cli/samples_lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/samples_lib.sh"
A=$TREG_ANALYZE
mkdir -p "$work/srv"
start_tregd "$work/srv"
trap '[[ -z $server_pid ]] || kill -KILL -- "-$server_pid" 2>/dev/null || true; rm -rf "$work"' EXIT
store=$work/srv/store

python3 "$work/write.py" "$work/stochastic.json" stochastic
python3 "$work/to_rocpd.py" "$work/stochastic.json" "$work/stochastic.db"

# the report first, without samples: its file in the store
tregc_to --format json upload "$hsaco" >"$work/plain.out" 2>"$work/plain.err" ||
  fail "upload: $(cat "$work/plain.err")"
! grep -q '"samples"' "$work/plain.out" || fail "a report without samples shows samples"
report_sums() { find "$store/reports" -name '*.report' -exec sha256sum {} + | sort; }
report_sums >"$work/reports.before"
[[ -s $work/reports.before ]] || fail "no report file in the store"

for f in stochastic.json stochastic.db; do
  tregc_to --format json upload --samples "$work/$f" "$hsaco" >"$work/$f.out" 2>"$work/$f.err" ||
    fail "upload --samples $f: exit $?: $(cat "$work/$f.err")"
  check "$work/$f.out" "$work/stochastic.json.want"
  grep -q "PC samples placed (the profile's code object 2; 0 outside its kernels, 0 elsewhere)" "$work/$f.err" ||
    fail "upload --samples $f: $(cat "$work/$f.err")"
  echo "$prog: ok: upload --samples $f: every row's samples as written"
done
# --hot through tregc: the kernel's samples as the server placed them
tregc_to upload --hot --samples "$work/stochastic.json" "$hsaco" >"$work/hot.txt" 2>/dev/null || fail "upload --hot --samples"
total=$(python3 -c 'import json,sys; print(sum(v[0] for v in json.load(open(sys.argv[1])).values()))' "$work/stochastic.json.want")
grep -q "hot lines, by $total PC samples" "$work/hot.txt" || fail "tregc --hot: $(head -c 600 "$work/hot.txt")"
echo "$prog: ok: tregc upload --hot --samples: the hot lines by the $total samples placed"
# the same rows as treg-analyze's own join
"$A" --format json --samples "$work/stochastic.json" "$hsaco" >"$work/local.out" 2>/dev/null
python3 - "$work/local.out" "$work/stochastic.json.out" <<'PY' || fail "tregd's rows differ from treg-analyze's"
import json, sys
a, b = (json.load(open(p))["reports"][0]["kernels"][0] for p in sys.argv[1:3])
key = lambda k: [(r["address"], r.get("samples"), r.get("issued"), r.get("stalled"), r.get("stall_reasons")) for r in k["rows"]]
assert key(a) == key(b), "rows"
assert a["samples"] == b["samples"] and a["samples_kind"] == b["samples_kind"] == "stochastic"
PY
echo "$prog: ok: the server's rows equal treg-analyze --samples'"

report_sums >"$work/reports.after"
cmp -s "$work/reports.before" "$work/reports.after" || fail "the report file changed: $(diff "$work/reports.before" "$work/reports.after")"
kept=$(find "$store/reports" -name '*.t*.samples')
[[ $(grep -c . <<<"$kept") == 1 ]] || fail "kept sample sets: '$kept'"
tregc_to --format json upload "$hsaco" >"$work/plain2.out" 2>/dev/null || fail "upload again"
! grep -q '"samples"' "$work/plain2.out" || fail "an upload without --samples shows the kept samples"
echo "$prog: ok: the report file unchanged, one set kept beside it, an upload without --samples shows none"

# GET ?samples=1: the report with the kept samples; another team: 404
hash=$(sha256sum "$hsaco" | cut -c1-64)
inputs=$(python3 -c 'import json,sys,re; d=json.load(open(sys.argv[1])); print(re.search(r"inputs=([0-9a-f]{64})", json.dumps(d)).group(1))' "$work/stochastic.json.out")
get() { # TOKEN OUT: prints the HTTP status
  curl -sS --max-time 60 --cacert "$work/srv/certs/ca.pem" -H "Authorization: Bearer $1" -o "$2" \
    -w '%{http_code}' "https://127.0.0.1:$port/v1/reports/$hash?inputs=$inputs&samples=1"
}
[[ $(get "$tregd_token" "$work/get.pb") == 200 ]] || fail "GET ?samples=1: $(head -c 300 "$work/get.pb")"
python3 - "$work/get.pb" "$TREG_SOURCE_ROOT/tests/cli" "$work/stochastic.json.want" <<'PY' || fail "GET ?samples=1: see above"
import json, sys
sys.path.insert(0, sys.argv[2])
import pbwire
rep = pbwire.parse(open(sys.argv[1], "rb").read())
k = pbwire.parse(rep[12][0])
want = json.load(open(sys.argv[3]))
assert k[65][0] == sum(v[0] for v in want.values()), (k.get(65), "kernel samples")
PY
other=$(head -c 24 /dev/urandom | od -An -tx1 | tr -d ' \n')
printf 'other %s\n' "$("$TREGD" hash-token "$other" | grep -oE '[0-9a-f]{64}' | head -n1)" >>"$work/srv/tokens"
kill -HUP "$server_pid"
wait_for 5 grep -q '"tokens reloaded"' "$work/srv/tregd.log" || fail "tregd did not reload its tokens"
TREGC_TOKEN=$other tregc_to upload "$hsaco" >/dev/null 2>&1 || fail "the other team's upload"
code=$(get "$other" "$work/get-other.pb")
if [[ $code != 404 ]] || ! grep -q "your team sent no PC samples for this report" "$work/get-other.pb"; then
  fail "another team's GET ?samples=1: $code $(head -c 200 "$work/get-other.pb")"
fi
echo "$prog: ok: GET ?samples=1: the kernel's samples as sent; another team's: 404"
# the other team's own samples: kept apart, the first team's file untouched
cp "$kept" "$work/kept.a"
python3 "$work/write.py" "$work/host.json" host_trap
TREGC_TOKEN=$other tregc_to --format json upload --samples "$work/host.json" "$hsaco" >"$work/host.out" 2>"$work/host.err" ||
  fail "the other team's upload --samples: $(cat "$work/host.err")"
check "$work/host.out" "$work/host.json.want"
cmp -s "$kept" "$work/kept.a" || fail "the other team's samples changed the first team's"
[[ $(find "$store/reports" -name '*.t*.samples' | grep -c .) == 2 ]] || fail "not one set per team"
[[ $(get "$other" "$work/get-b.pb") == 200 && $(get "$tregd_token" "$work/get-a.pb") == 200 ]] || fail "GET ?samples=1 per team"
cmp -s "$work/get.pb" "$work/get-a.pb" || fail "the first team's GET ?samples=1 changed after the other team's samples"
echo "$prog: ok: each team's samples kept apart: the other team's own set, the first team's file and answer unchanged"

# a malformed set on the wire: 400, one message; an oversized body: 413
python3 - "$work/bad.pb" "$hash" "$inputs" "$TREG_SOURCE_ROOT/tests/cli" <<'PY'
import sys
sys.path.insert(0, sys.argv[4])
from pbwire import varint, field_bytes
packed = lambda num, vals: field_bytes(num, b"".join(varint(v) for v in vals))
bad = packed(1, [2, 2]) + packed(2, [256]) + packed(3, [1, 1]) + packed(4, [0, 0]) + packed(5, [0, 0])
open(sys.argv[1], "wb").write(field_bytes(1, sys.argv[2].encode()) + field_bytes(2, sys.argv[3].encode()) + field_bytes(3, bad))
PY
post() { # FILE OUT: prints the HTTP status
  curl -sS --max-time 60 --cacert "$work/srv/certs/ca.pem" -H "Authorization: Bearer $tregd_token" \
    -H "Content-Type: application/x-protobuf" --data-binary "@$1" -o "$2" -w '%{http_code}' \
    "https://127.0.0.1:$port/v1/samples"
}
code=$(post "$work/bad.pb" "$work/bad.out")
if [[ $code != 400 ]] || ! grep -q "PcSampleSet: its columns differ in length" "$work/bad.out"; then
  fail "a malformed set: $code $(head -c 200 "$work/bad.out")"
fi
head -c $((17 << 20)) /dev/zero >"$work/big.pb"
code=$(post "$work/big.pb" "$work/big.out")
[[ $code == 413 ]] || fail "a 17 MiB body: $code $(head -c 200 "$work/big.out")"
cmp -s "$kept" "$work/kept.a" || fail "a refused set changed the kept one"
echo "$prog: ok: a malformed set: 400 naming the problem; a 17 MiB body: 413; the kept set unchanged"

# samples of another build: 422, one line naming the offset, nothing kept
python3 "$work/write.py" "$work/text.json" stochastic text
cp "$kept" "$work/kept.before"
rc=0
tregc_to upload --samples "$work/text.json" "$hsaco" >"$work/text.out" 2>"$work/text.err" || rc=$?
if ((rc != 1)) || ! grep -q "matmul_kernel.hsaco: --samples .*text.json: the samples are not of this build: at offset 0x[0-9a-f]* (matmul_kernel+0x[0-9a-f]*) the profile has 's_nop 7'" "$work/text.err"; then
  fail "another build's samples: exit $rc, $(cat "$work/text.err")"
fi
cmp -s "$kept" "$work/kept.before" || fail "another build's samples replaced the kept ones"
echo "$prog: ok: another build's samples refused in one line, the kept set unchanged"

# none in this code object: a note, exit 1
python3 - "$work/stochastic.json" "$work/far.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
for s in d["rocprofiler-sdk-tool"][0]["buffer_records"]["pc_sample_stochastic"]:
    s["record"]["pc"]["code_object_offset"] += 1 << 24
json.dump(d, open(sys.argv[2], "w"))
PY
rc=0
tregc_to upload --samples "$work/far.json" "$hsaco" >/dev/null 2>"$work/far.err" || rc=$?
if ((rc != 1)) || ! grep -q "note: --samples .*far.json: none of the profile's samples is in this code object's kernels; shown without samples" "$work/far.err" ||
  ! grep -q "^tregc: --samples .*far.json: no code object given has this profile's samples$" "$work/far.err"; then
  fail "a profile of another program: exit $rc, $(cat "$work/far.err")"
fi
rc=0
tregc_to fetch --samples "$work/stochastic.json" "$hash" >/dev/null 2>"$work/fetch.err" || rc=$?
if ((rc != 2)) || ! grep -q "and --samples are for upload" "$work/fetch.err"; then
  fail "fetch --samples: exit $rc, $(cat "$work/fetch.err")"
fi
rc=0
tregc_to upload --samples "$work/nothing.json" "$hsaco" >/dev/null 2>"$work/nothing.err" || rc=$?
if ((rc != 2)) || [[ $(grep -c . "$work/nothing.err") != 1 ]] || ! grep -q "^tregc: --samples .*nothing.json: cannot open it" "$work/nothing.err"; then
  fail "a missing profile: exit $rc, $(cat "$work/nothing.err")"
fi
echo "$prog: ok: a profile of another program (note, exit 1), fetch --samples and a missing file (usage, one line)"
stop_tregd
echo "$prog: ok"

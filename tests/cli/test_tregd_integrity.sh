#!/usr/bin/env bash
# Reports nobody can poison or corrupt (issue 11, F1 and F7), over real TLS
# on 127.0.0.1 with two teams:
#   F1  a report is a function of its inputs: another team's upload of the
#       same code object with another Triton .json, another file name and
#       reanalyze=1 makes its own report and leaves the first byte for
#       byte; the hash alone answers the first uploaded; every team's upload
#       is recorded and listed; --visibility team shows a team only what it
#       uploaded, with its own names.
#   F7  a report that fails its checksum is answered as an error, never its
#       bytes, and repaired by the next upload; a deleted one leaves the
#       listing; an index SQLite cannot read (header, or pages) is rebuilt
#       at start from the report files.
# Needs TREGD and TREG_FIXTURES (CTest sets them).
set -euo pipefail
prog=test_tregd_integrity
# shellcheck source=tests/cli/lib.sh
source "$(dirname "$0")/lib.sh"

[[ -n ${TREGD:-} && -x $TREGD ]] || fail "TREGD is not set or not executable (CTest sets it)"
[[ -n ${TREG_FIXTURES:-} ]] || fail "TREG_FIXTURES is not set"
fixture=$TREG_FIXTURES/gfx90a/loop_kernel.hsaco
[[ -f $fixture ]] || fail "fixture missing: $fixture"
for tool in curl openssl python3 sha256sum; do
  command -v "$tool" >/dev/null || skip "$tool is not installed"
done

work=$(mktemp -d)
pid=
cleanup() {
  stop_server
  mountpoint -q "$work/small" 2>/dev/null && umount "$work/small"
  [[ -n ${KEEP_WORK:-} ]] && cp "$work/tregd.log" /tmp/tregd-integrity.log
  rm -rf "$work"
}
trap cleanup EXIT

self_signed "$work"

# Two teams: tregd names the teams of --token flags token-1, token-2.
t1=$(openssl rand -hex 24)
t2=$(openssl rand -hex 24)
store=$work/store
start_server() {
  rm -f "$work/port"
  "$TREGD" --listen 127.0.0.1:0 --port-file "$work/port" --cert "$work/cert.pem" \
    --key "$work/key.pem" --store "$store" --token "$t1" --token "$t2" --workers 2 \
    --timeout 30 "$@" 2>>"$work/tregd.log" &
  pid=$!
  wait_port "$work/port" "$pid" "$work/tregd.log"
  url=https://127.0.0.1:$(cat "$work/port")
}
# as TOKEN METHOD PATH OUT [curl args...]: prints the HTTP status.
as() {
  local token=$1 method=$2 path=$3 out=$4
  shift 4
  curl -sS --max-time 60 --cacert "$work/cert.pem" -X "$method" -o "$out" -w '%{http_code}' \
    -H "Authorization: Bearer $token" "$@" "$url$path"
}
post() { as "$1" POST /v1/analyze "$3" -H 'Content-Type: application/x-protobuf' --data-binary "@$2"; }

hash=$(sha256sum "$fixture" | cut -d' ' -f1)
# Two Triton .json for the same code object: the second's LDS lets one
# workgroup per CU run, so its launch occupancy is lower.
printf '{"num_warps": 4, "shared": 0}' >"$work/a.json"
printf '{"num_warps": 4, "shared": 65536}' >"$work/b.json"
inputs_a=$(pb inputs "" "$work/a.json" -)
inputs_b=$(pb inputs "" "$work/b.json" -)

start_server
curl -sS --cacert "$work/cert.pem" -o "$work/health.bin" "$url/v1/health"
read -r av lv < <(pb versions "$work/health.bin")
key_a=$(pb key "$hash" "$inputs_a" "$av" "$lv")
key_b=$(pb key "$hash" "$inputs_b" "$av" "$lv")
file_a=$store/reports/${key_a:0:2}/$key_a.report
file_b=$store/reports/${key_b:0:2}/$key_b.report

# ---- F1: poisoning ----
pb upload "$fixture" loop_kernel.hsaco json="$work/a.json" host=node-a >"$work/up-a.bin"
code=$(post "$t1" "$work/up-a.bin" "$work/r-a.bin")
[[ $code == 200 ]] || fail "team 1's upload: HTTP $code"
meta_a=$(pb meta upload-response "$work/r-a.bin")
[[ $meta_a == "team=token-1 file=loop_kernel.hsaco host=node-a "* ]] || fail "team 1's report: $meta_a"
[[ -f $file_a ]] || fail "no report file under its key $key_a"
code=$(as "$t1" GET "/v1/reports/$hash?inputs=$inputs_a" "$work/a.bin")
[[ $code == 200 ]] || fail "fetch by inputs: HTTP $code"

# Before: the key was the hash alone, and this replaced team 1's report for
# everyone (occupancy 8 -> 1).  Now it is a report of its own.
pb upload "$fixture" evil.hsaco json="$work/b.json" host=node-b reanalyze >"$work/up-b.bin"
code=$(post "$t2" "$work/up-b.bin" "$work/r-b.bin")
[[ $code == 200 ]] || fail "team 2's upload: HTTP $code"
meta_b=$(pb meta upload-response "$work/r-b.bin")
[[ $meta_b == "team=token-2 file=evil.hsaco host=node-b "* ]] || fail "team 2's report: $meta_b"
[[ ${meta_a##* waves=} != "${meta_b##* waves=}" ]] ||
  fail "the two .json give the same occupancy (${meta_a##* }): the test shows nothing"
[[ -f $file_b ]] || fail "no report file under its key $key_b"
for query in "?inputs=$inputs_a" ""; do
  code=$(as "$t1" GET "/v1/reports/$hash$query" "$work/a2.bin")
  [[ $code == 200 ]] || fail "fetch$query after team 2's upload: HTTP $code"
  cmp -s "$work/a.bin" "$work/a2.bin" ||
    fail "team 2's upload changed what GET /v1/reports/$hash$query answers: $(pb meta report "$work/a2.bin")"
done
# reanalyze with team 1's own inputs: analyzed and answered, nothing stored
pb upload "$fixture" again.hsaco json="$work/a.json" host=node-b reanalyze >"$work/up-a2.bin"
code=$(post "$t2" "$work/up-a2.bin" "$work/r-a2.bin")
[[ $code == 200 && $(pb upload-response "$work/r-a2.bin") == *" stored_before=0" ]] ||
  fail "reanalyze of stored inputs: HTTP $code"
code=$(as "$t1" GET "/v1/reports/$hash?inputs=$inputs_a" "$work/a3.bin")
if [[ $code != 200 ]] || ! cmp -s "$work/a.bin" "$work/a3.bin"; then
  fail "a reanalyze changed the stored report: HTTP $code $(pb meta report "$work/a3.bin")"
fi
echo "$prog: ok: F1: team 2's upload (other .json, other name, reanalyze) made its own report" \
  "(${meta_b##* }, team 1's ${meta_a##* }); team 1's answers stayed byte for byte"

# every team's upload recorded, and listed with its inputs
code=$(as "$t2" GET /v1/reports "$work/l.bin")
[[ $code == 200 ]] || fail "list: HTTP $code"
teams=$(pb list-teams "$work/l.bin" | LC_ALL=C sort)
want=$(printf '%s\n' "$hash token-1 $inputs_a loop_kernel.hsaco" "$hash token-2 $inputs_b evil.hsaco" | LC_ALL=C sort)
[[ $teams == "$want" ]] || fail "list: $teams"
echo "$prog: ok: the listing names each report's team and inputs"

# ---- F7: damaged and missing files ----
python3 - "$file_a" <<'PY'
import sys
with open(sys.argv[1], "r+b") as f:
    f.seek(-1, 2)
    b = f.read(1)
    f.seek(-1, 2)
    f.write(bytes([b[0] ^ 0x5A]))
PY
sleep 1.1 # past the cache's recheck interval for reports without rows
for q in "" "&rows=0"; do
  code=$(as "$t1" GET "/v1/reports/$hash?inputs=$inputs_a$q" "$work/d.bin")
  [[ $code == 500 && $(pb error "$work/d.bin") == *"is damaged; an upload of the code object repairs it"* ]] ||
    fail "a damaged report$q: HTTP $code $(pb error "$work/d.bin" 2>/dev/null || head -c 80 "$work/d.bin")"
done
grep -q '"stored report fails its checksum' "$work/tregd.log" || fail "no log line for the damaged report"
code=$(post "$t1" "$work/up-a.bin" "$work/r-fix.bin")
[[ $code == 200 && $(pb upload-response "$work/r-fix.bin") == *" stored_before=0" ]] ||
  fail "the repairing upload: HTTP $code"
code=$(as "$t1" GET "/v1/reports/$hash?inputs=$inputs_a" "$work/fixed.bin")
[[ $code == 200 ]] || fail "after the repair: HTTP $code"
tail -c +41 "$file_a" >"$work/payload.bin"
[[ $(pb report-key "$work/payload.bin") == "$key_a" ]] || fail "the repaired file is not the report for its key"
[[ $(pb report "$work/fixed.bin") == "$(pb report "$work/a.bin")" ]] || fail "the repaired report differs"
echo "$prog: ok: F7: a damaged report answered 500 (never its bytes), logged, and repaired by the next upload"

rm "$file_b"
code=$(as "$t2" GET "/v1/reports/$hash?inputs=$inputs_b" "$work/e.bin")
[[ $code == 404 ]] || fail "a deleted report: HTTP $code"
as "$t1" GET /v1/reports "$work/l2.bin" >/dev/null
[[ $(pb list-teams "$work/l2.bin") == "$hash token-1 $inputs_a loop_kernel.hsaco" ]] ||
  fail "a deleted report is still listed: $(pb list-teams "$work/l2.bin")"
echo "$prog: ok: F7: a deleted report answers 404 and leaves the listing"

# a damaged index: the header, then every page past the first
for damage in header pages; do
  stop_server
  python3 - "$store/index.sqlite" "$damage" <<'PY'
import os, sys
path, what = sys.argv[1:3]
size = os.path.getsize(path)
with open(path, "r+b") as f:
    if what == "header":
        f.write(b"\xa5" * 100)
    else:
        f.seek(4096)
        f.write(b"\xa5" * (size - 4096))
PY
  start_server
  grep -q '"index damaged: moved aside' "$work/tregd.log" || fail "no log line for the damaged index ($damage)"
  curl -sS --cacert "$work/cert.pem" -H "Authorization: Bearer $t1" -o "$work/health.bin" "$url/v1/health"
  [[ $(pb health "$work/health.bin") == "status=ok workers=2 reports=1" ]] ||
    fail "after rebuilding a damaged index ($damage): $(pb health "$work/health.bin")"
  code=$(as "$t1" GET "/v1/reports/$hash?inputs=$inputs_a" "$work/r.bin")
  [[ $code == 200 ]] || fail "fetch after rebuilding the index ($damage): HTTP $code"
  [[ -f $store/index.sqlite.damaged ]] || fail "the damaged index was not kept aside"
  sed -i 's/"index damaged: moved aside/"(seen) index damaged/' "$work/tregd.log"
done
echo "$prog: ok: F7: an index with a damaged header, or damaged pages, is rebuilt at start"

# ---- --visibility team ----
stop_server
start_server --visibility team
code=$(as "$t2" GET "/v1/reports/$hash" "$work/e.bin")
[[ $code == 404 ]] || fail "team 2 sees team 1's report: HTTP $code"
code=$(as "$t2" GET "/v1/reports/$hash?inputs=$inputs_a&rows=0" "$work/e.bin")
[[ $code == 404 ]] || fail "team 2 sees team 1's report by its inputs: HTTP $code"
as "$t2" GET /v1/reports "$work/l3.bin" >/dev/null
[[ -z $(pb list-teams "$work/l3.bin") ]] || fail "team 2 lists team 1's report: $(pb list-teams "$work/l3.bin")"
# team 2 proves it has the blob and inputs: the report, under its own names,
# and not "stored before": that team 1 uploaded the same kernel is not team
# 2's to learn (issue 31, finding 7); team 2's own second upload is.
pb upload "$fixture" team2.hsaco json="$work/a.json" host=node-two omit >"$work/up-t2.bin"
code=$(post "$t2" "$work/up-t2.bin" "$work/r-t2.bin")
[[ $code == 200 && $(pb upload-response "$work/r-t2.bin") == *" stored_before=0" ]] ||
  fail "team 2's first upload of team 1's inputs: HTTP $code $(pb upload-response "$work/r-t2.bin" 2>/dev/null) (an existence oracle)"
code=$(post "$t2" "$work/up-t2.bin" "$work/r-t2b.bin")
[[ $code == 200 && $(pb upload-response "$work/r-t2b.bin") == *" stored_before=1" ]] ||
  fail "team 2's second upload: HTTP $code $(pb upload-response "$work/r-t2b.bin" 2>/dev/null)"
[[ $(pb meta upload-response "$work/r-t2.bin") == "team=token-2 file=team2.hsaco host=node-two "* ]] ||
  fail "team 2 was answered team 1's names: $(pb meta upload-response "$work/r-t2.bin")"
for q in "" "?rows=0"; do
  code=$(as "$t2" GET "/v1/reports/$hash$q" "$work/t2.bin")
  [[ $code == 200 && $(pb meta report "$work/t2.bin") == "team=token-2 file=team2.hsaco host=node-two "* ]] ||
    fail "team 2's fetch$q: HTTP $code $(pb meta report "$work/t2.bin" 2>/dev/null)"
  code=$(as "$t1" GET "/v1/reports/$hash$q" "$work/t1.bin")
  [[ $code == 200 && $(pb meta report "$work/t1.bin") == "team=token-1 file=loop_kernel.hsaco host=node-a "* ]] ||
    fail "team 1's fetch$q: HTTP $code $(pb meta report "$work/t1.bin" 2>/dev/null)"
done
as "$t2" GET /v1/reports "$work/l4.bin" >/dev/null
[[ $(pb list-teams "$work/l4.bin") == "$hash token-2 $inputs_a team2.hsaco" ]] ||
  fail "team 2's listing: $(pb list-teams "$work/l4.bin")"
echo "$prog: ok: --visibility team: a team sees only what it uploaded, under its own names; stored_before is its own"

# ---- bounded listings ----
stop_server
start_server --max-list-bytes 4096
for i in 1 2 3 4 5 6; do
  printf '{"num_warps": %d}' "$i" >"$work/n$i.json"
  pb upload "$fixture" "$(printf 'n%.0s' {1..1500})$i.hsaco" json="$work/n$i.json" omit >"$work/up-n.bin"
  code=$(post "$t1" "$work/up-n.bin" "$work/r-n.bin")
  [[ $code == 200 ]] || fail "upload $i for the listing: HTTP $code"
done
code=$(as "$t1" GET "/v1/reports?limit=1000" "$work/l5.bin")
size=$(stat -c %s "$work/l5.bin")
if [[ $code != 200 ]] || ((size > 4096)); then
  fail "a listing past --max-list-bytes: HTTP $code, $size bytes"
fi
page=$(pb list "$work/l5.bin")
[[ $page == "count=2 next=2 "* ]] || fail "a capped listing: $page"
echo "$prog: ok: a listing stops at --max-list-bytes ($size bytes, $page)"
# ---- a full store: 507, without analysis, without paths ----
stop_server
start_server --min-free-mb 1099511627776 # more than any disk has
pb upload "$TREG_FIXTURES/gfx90a/branch_kernel.hsaco" branch_kernel.hsaco >"$work/up-full.bin"
code=$(post "$t1" "$work/up-full.bin" "$work/full.bin")
[[ $code == 507 && $(pb error "$work/full.bin") == "status=507 message=the report store is full: nothing was analyzed or stored" ]] ||
  fail "a full store: HTTP $code $(pb error "$work/full.bin" 2>/dev/null)"
grep -q '"the report store is full: uploads answered 507 without analysis".*MiB free' "$work/tregd.log" ||
  fail "no log line for the full store"
code=$(as "$t1" GET "/v1/reports/$hash?inputs=$inputs_a" "$work/r.bin") # reading goes on
[[ $code == 200 ]] || fail "a stored report while the store is full: HTTP $code"
code=$(post "$t1" "$work/up-a.bin" "$work/r-full.bin") # so do stored inputs
[[ $code == 200 && $(pb upload-response "$work/r-full.bin") == *" stored_before=1" ]] ||
  fail "an upload of stored inputs while the store is full: HTTP $code"
echo "$prog: ok: a store without room answers 507 before analyzing (no path in it), and still serves what it has"

# the real thing, where a small tmpfs can be mounted (root)
mnt=$work/small
mkdir -p "$mnt"
if mount -t tmpfs -o size=8m,nr_inodes=4096 tmpfs "$mnt" 2>/dev/null; then
  stop_server
  store=$mnt/store
  start_server --min-free-mb 0
  code=$(post "$t1" "$work/up-full.bin" "$work/ok.bin")
  [[ $code == 200 ]] || fail "a first upload to the small store: HTTP $code"
  dd if=/dev/zero of="$mnt/fill" bs=64k 2>/dev/null || true # to the last block
  pb upload "$TREG_FIXTURES/gfx90a/mfma_kernel.hsaco" mfma_kernel.hsaco >"$work/up-full2.bin"
  code=$(post "$t1" "$work/up-full2.bin" "$work/full2.bin")
  [[ $code == 507 ]] || fail "a filled tmpfs store: HTTP $code $(pb error "$work/full2.bin" 2>/dev/null)"
  [[ -z $(find "$store/tmp" -type f ! -name '*.lock') ]] || fail "a full store left temp files"
  rm -f "$mnt/fill"
  code=$(post "$t1" "$work/up-full2.bin" "$work/ok2.bin")
  [[ $code == 200 ]] || fail "after making room: HTTP $code"
  stop_server
  umount "$mnt"
  echo "$prog: ok: a filled 8 MiB tmpfs store answers 507, and analyzes again once there is room"
else
  echo "$prog: (cannot mount a tmpfs here: the filled-disk case is left to the --min-free-mb check above)"
fi
stop_server
echo "$prog: PASS"

#!/usr/bin/env bash
# tregd's pages for a browser, end to end over real TLS on 127.0.0.1:
#   - tregc upload sends the source files it can read and prints each report's
#     page link (text: "page: URL"; JSON: "link"); --no-source sends none;
#   - without a session or token every page answers 401 with the sign-in form
#     and no report data (curl: no "treg-data", no kernel name); a bearer
#     token opens a page for a program; a forged cookie does not; a bad
#     POST /v1/sources (a file the report does not name) is refused;
#   - in headless chromium (tests/browser/check_web.mjs): sign in with the team
#     token from a report's link, the page with the kernel's source, the
#     cookie's attributes, the list page's links, no console error; the token
#     revoked (tokens file rewritten, SIGHUP): the sign-in form again.
# Skips (77) without openssl, curl, chromium, node or playwright-core.
set -euo pipefail

prog=test_web
# shellcheck source=tests/cli/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

require_tregd openssl curl setsid python3 node
browser_dir=$TREG_SOURCE_ROOT/tests/browser
[[ -x ${TREG_CHROMIUM:-/usr/bin/chromium} ]] || skip "no chromium (scripts/install-deps.sh)"
[[ -d $browser_dir/node_modules/playwright-core ]] || skip "playwright-core not installed (scripts/install-deps.sh)"
fx=${TREG_FIXTURES:?TREG_FIXTURES is not set (CTest sets it)}
hip_src=$TREG_SOURCE_ROOT/tests/fixtures/src
[[ -f $fx/gfx90a/loop_kernel.hsaco && -f $hip_src/loop_kernel.hip ]] || fail "fixtures missing under $fx"

work=$(mktemp -d "${TMPDIR:-/tmp}/treg-web.XXXXXX")
out=${TREG_TEST_OUTPUT:-$work}/web
mkdir -p "$out"
# TREG_TEST_INDEX (tests/support/with-postgres.sh): the sessions and the
# listing on a PostgreSQL index.
index=()
[[ -z ${TREG_TEST_INDEX:-} ]] || index=(--index "$TREG_TEST_INDEX")
start_tregd "$work" --workers 1 "${index[@]}"
trap 'rm -rf "$work"; [[ -z ${server_pid:-} ]] || kill -KILL -- "-$server_pid" 2>/dev/null || true' EXIT
cd "$work"
base=https://127.0.0.1:$port
c() { timeout 30 curl -sS --cacert "$work/certs/ca.pem" "$@"; }

# --- uploads: sources sent, links printed ---------------------------------------
tregc_to --format json --no-rows --source-dir "$hip_src" upload "$fx/gfx90a/loop_kernel.hsaco" >up1.json 2>up1.err ||
  fail "tregc upload loop_kernel: $(head -n2 up1.err)"
tregc_to --no-source upload "$fx/gfx942/branch_kernel.hsaco" >up2.txt 2>up2.err ||
  fail "tregc upload branch_kernel: $(head -n2 up2.err)"
link1=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["reports"][0]["link"])' up1.json)
[[ $link1 == "$base/r/"*"?inputs="* ]] || fail "the JSON upload's link: $link1"
link2=$(sed -n 's/^  page: //p' up2.txt)
[[ $link2 == "$base/r/"*"?inputs="* ]] || fail "the text upload prints no page link: $(tail -n3 up2.txt)"
nsources=$(find "$work/store/reports" -name '*.sources' | wc -l)
((nsources == 1)) || fail "$nsources source sets stored (loop_kernel's alone expected)"
echo "$prog: ok: uploads print their page links; loop_kernel's source stored, --no-source sent none"
# A Python kernel from the corpus, its source from the corpus's src/.
py_entry="" py_line="" py_kernel=""
if [[ -d $TREG_CORPUS/triton-cache && -d $TREG_CORPUS/src ]]; then
  py_entry=$(find "$TREG_CORPUS/triton-cache" -name 'matmul_kernel.hsaco' | LC_ALL=C sort | head -n1)
fi
if [[ -n $py_entry ]]; then
  tregc_to --format json --no-rows --source-dir "$TREG_CORPUS/src" upload "$py_entry" >up3.json 2>up3.err ||
    fail "tregc upload $py_entry: $(head -n2 up3.err)"
  link3=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["reports"][0]["link"])' up3.json)
  py_kernel=matmul_kernel
  py_line=$(grep -m1 'tl.program_id' "$TREG_CORPUS"/src/kernels_a.py | sed 's/^ *//')
else
  echo "$prog: note: no corpus at $TREG_CORPUS; the Python source case is skipped"
fi

# --- no session: the sign-in form, no report data ---------------------------------
path1=${link1#"$base"}
for p in "$path1" / "/r/$(printf '%064d' 0)"; do
  code=$(c -o page.html -w '%{http_code}' "$base$p")
  [[ $code == 401 ]] || fail "GET $p without a session: HTTP $code"
  grep -q 'name="token"' page.html || fail "GET $p without a session: no sign-in form"
  if grep -q 'treg-data\|loop_kernel' page.html; then fail "GET $p without a session carries report data"; fi
done
code=$(c -o page.html -w '%{http_code}' -H "Cookie: __Host-treg_session=$(printf 'a%.0s' {1..64})" "$base$path1")
[[ $code == 401 ]] || fail "a forged session cookie: HTTP $code"
code=$(c -o page.html -w '%{http_code}' -H "Authorization: Bearer $tregd_token" "$base$path1")
if [[ $code != 200 ]] || ! grep -q 'id="treg-data"' page.html; then fail "a bearer token on the page: HTTP $code"; fi
grep -q 'void loop_kernel(float \*out, const float \*in, int n, int m)' page.html || fail "loop_kernel's page lacks its source"
echo "$prog: ok: without a session 401 and the sign-in form only; a forged cookie 401; a bearer token opens the page, with its source"

# A SourcesRequest naming a file the report does not: refused.
python3 - "$work/srcreq.bin" "${path1#/r/}" <<'PY'
import sys, urllib.parse
hash_, inputs = sys.argv[2].split("?inputs=")
def field(n, b):
    out, v = bytes([(n << 3) | 2]), len(b)
    while True:
        out += bytes([(v & 0x7f) | (0x80 if v > 0x7f else 0)])
        v >>= 7
        if not v:
            break
    return out + b
f = field(1, b"/etc/passwd") + field(2, b"root:x:0:0")
open(sys.argv[1], "wb").write(field(1, hash_.encode()) + field(2, inputs.encode()) + field(3, f))
PY
code=$(c -o e.bin -w '%{http_code}' -H "Authorization: Bearer $tregd_token" -H 'Content-Type: application/x-protobuf' \
  --data-binary @"$work/srcreq.bin" "$base/v1/sources")
[[ $code == 400 ]] || fail "POST /v1/sources of a file the report does not name: HTTP $code"
echo "$prog: ok: POST /v1/sources of a file the report does not name: 400"

# --- the browser ------------------------------------------------------------------
python3 - "$work/expect.json" "$base" "$tregd_token" "$work/revoked" "$path1" "${link2#"$base"}" \
  "${link3:-}" "$py_kernel" "$py_line" "$base" <<'PY'
import json, sys
dst, base, token, revoke, p1, p2, p3, pyk, pyl = sys.argv[1:10]
reports = [{"link": p1, "kernel": "loop_kernel", "source_line": "for (int j = 0; j < m; ++j) {"},
           {"link": p2, "kernel": "branch_kernel", "source_line": None}]
if p3:
    reports.append({"link": p3[len(base):], "kernel": pyk, "source_line": pyl})
json.dump({"base": base, "token": token, "reports": reports, "revoke": revoke}, open(dst, "w"))
PY
node "$browser_dir/check_web.mjs" "$work/expect.json" "$out" &
node_pid=$!
# The browser asks (revoked.ask) when the token is to go: the tokens file
# without the team, then SIGHUP.
for ((i = 0; i < 1200; i++)); do
  [[ -f $work/revoked.ask ]] && break
  kill -0 "$node_pid" 2>/dev/null || break
  sleep 0.1
done
if [[ -f $work/revoked.ask ]]; then
  printf 'other %s\n' "$("$TREGD" hash-token "$(openssl rand -hex 24)" | grep -oE '[0-9a-f]{64}' | head -n1)" >"$work/tokens"
  kill -HUP "$server_pid"
  wait_for 5 grep -q '"tokens reloaded"' "$work/tregd.log" || fail "tregd did not reload its tokens"
  touch "$work/revoked"
fi
wait "$node_pid" || fail "the pages failed in chromium (screenshots in $out)"
echo "$prog: ok: signed in from a link, the pages and their sources, the list, the cookie, revocation"

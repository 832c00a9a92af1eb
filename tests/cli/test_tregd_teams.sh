#!/usr/bin/env bash
# tregd's teams and web surface against the second attack round (issue 31),
# over real TLS on 127.0.0.1, two teams (alpha, beta), stock tregc and curl.
# Each finding is one check, named by its number in the issue:
#   1  --visibility team: beta, holding a copy of alpha's code object, uploads
#      it with --no-source: its page shows none of alpha's source text;
#   2  beta sends its own (fake) text for a kernel first: alpha's later
#      upload of the real text is stored and shown to alpha, beta keeps its
#      own; alpha's own later, different text: the first stays and tregc
#      says so; --visibility all: beta's text on a report alpha uploaded
#      without source is shown to alpha as "the text team beta sent", and
#      alpha's own text wins for alpha once sent; a team that never uploaded
#      the report cannot attach text (404);
#   3  POST /login and /logout from another origin (Origin, Sec-Fetch-Site)
#      refused, nothing set; logout ends the session on the server (the
#      browser half: tests/browser/check_csrf.mjs);
#   4  wrong bearer tokens and sign-ins: 401s, then 429 with Retry-After per
#      address with backoff (the right token too, until it passes); past the
#      server-wide bound an address never seen to succeed waits while a known
#      one is served (addresses 127.0.0.2-12: curl --interface);
#   5  Strict-Transport-Security on every answer (pages, /v1/, errors);
#   6  the cookie is __Host-treg_session (Path=/, Secure, no Domain); a request
#      with two session cookies, or the old name, is signed in as nobody;
#   7  stored_before and tregc's "not analyzed again" are the team's own;
#   8  Cache-Control: no-store on /v1/; the report page's script by hash, no
#      'unsafe-inline'; sessions per token bounded (the oldest ends).
# Every check runs and the failures are listed at the end, so a tregd built
# from before the fixes shows which findings it still has.
# Skips (77) without openssl, curl, python3; the browser half without chromium,
# node or playwright-core.
set -euo pipefail

prog=test_tregd_teams
# shellcheck source=tests/cli/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

require_tregd openssl curl setsid python3
fx=${TREG_FIXTURES:?TREG_FIXTURES is not set (CTest sets it)}
for k in loop_kernel branch_kernel call_kernel spill_kernel mfma_kernel; do
  [[ -f $fx/gfx90a/$k.hsaco ]] || fail "fixture missing: $fx/gfx90a/$k.hsaco"
done
work=$(mktemp -d "${TMPDIR:-/tmp}/treg-teams.XXXXXX")
out=${TREG_TEST_OUTPUT:-$work}/teams
mkdir -p "$out"
attacker_pid=""
cleanup() {
  [[ -z $attacker_pid ]] || kill "$attacker_pid" 2>/dev/null || true
  [[ -z ${server_pid:-} ]] || kill -KILL -- "-$server_pid" 2>/dev/null || true
  rm -rf "$work"
}
start_tregd "$work" --workers 1 --visibility team
trap cleanup EXIT
cd "$work"
base=https://127.0.0.1:$port
c() { timeout 30 curl -sS --cacert "$work/certs/ca.pem" "$@"; }

failures=()
finding() { # finding N MESSAGE: a failure of the finding, listed at the end
  echo "$prog: FAIL: finding $1: $2" >&2
  failures+=("$1")
}
# ok_since COUNT MESSAGE: "ok" when no finding failed since failures had COUNT
ok_since() {
  local before=$1
  shift
  ((${#failures[@]} > before)) || echo "$prog: ok: $*"
}

# Two teams: alpha (start_tregd's token) and beta.
tok_a=$tregd_token
tok_b=$(openssl rand -hex 32)
{
  printf 'alpha %s\n' "$("$TREGD" hash-token "$tok_a" | grep -oE '[0-9a-f]{64}' | head -n1)"
  printf 'beta %s\n' "$("$TREGD" hash-token "$tok_b" | grep -oE '[0-9a-f]{64}' | head -n1)"
} >"$work/tokens"
kill -HUP "$server_pid"
wait_for 5 grep -q '"tokens reloaded"' "$work/tregd.log" || fail "tregd did not reload its tokens"
as_a() { tregc_to "$@"; }
as_b() { TREGC_TOKEN=$tok_b tregc_to "$@"; }
# link_of JSON: the first report's page path
link_of() { python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["reports"][0]["link"][len(sys.argv[2]):])' "$1" "$base"; }
# page TOKEN PATH OUT: the page as that team's program sees it; prints the status
page() { c -o "$3" -w '%{http_code}' -H "Authorization: Bearer $1" "$base$2"; }
# send_text TOKEN LINK DWARF_PATH TEXT_FILE OUT: a SourcesRequest as any client
# could send it; prints the status
send_text() {
  local link=$2 hash inputs
  hash=${link#/r/}
  inputs=${hash#*\?inputs=}
  hash=${hash%%\?*}
  pb sources "$hash" "$inputs" "$3" "$4" >"$work/src.bin"
  c -o "$5" -w '%{http_code}' -H "Authorization: Bearer $1" -H 'Content-Type: application/x-protobuf' \
    --data-binary @"$work/src.bin" "$base/v1/sources"
}
src_of() { # the DWARF path tregc reads for kernel K
  "$TREG_ANALYZE" --format json "$fx/gfx90a/$1.hsaco" |
    python3 -c 'import json,sys; print(json.load(sys.stdin)["reports"][0]["source_files"][0])'
}
real_line='void loop_kernel(float \*out, const float \*in, int n, int m)'

# --- 1 and 7: beta's copy of alpha's kernel ----------------------------------------
as_a --format json --no-rows upload "$fx/gfx90a/loop_kernel.hsaco" >a1.json 2>a1.err || fail "alpha's upload: $(head -n2 a1.err)"
as_b --no-source upload "$fx/gfx90a/loop_kernel.hsaco" >b1.txt 2>b1.err || fail "beta's upload: $(head -n2 b1.err)"
link_a1=$(link_of a1.json)
link_b1=$(sed -n 's/^  page: //p' b1.txt)
link_b1=${link_b1#"$base"}
if [[ $(page "$tok_a" "$link_a1" pa1.html) != 200 ]] || ! grep -q "$real_line" pa1.html; then
  fail "alpha's page lacks alpha's source (the test's premise)"
fi
code=$(page "$tok_b" "$link_b1" pb1.html)
if [[ $code != 200 ]]; then
  finding 1 "beta's own page: HTTP $code"
elif grep -q "$real_line" pb1.html; then
  finding 1 "beta's page (beta sent no source) shows alpha's source text"
else
  echo "$prog: ok: 1: beta's page of a copy of alpha's kernel shows none of alpha's source"
fi
as_b --no-source upload "$fx/gfx90a/loop_kernel.hsaco" >b1b.txt 2>&1 || true
if grep -q 'not analyzed again' b1.txt; then
  finding 7 "tregc tells beta that another team uploaded the kernel: $(grep 'not analyzed' b1.txt | head -n1)"
elif ! grep -q 'not analyzed again' b1b.txt; then
  finding 7 "beta's own second upload is not 'not analyzed again'"
else
  echo "$prog: ok: 7: beta's first upload of alpha's kernel is not 'not analyzed again', its second is"
fi

# --- 2: first writer (team visibility) ----------------------------------------------
as_b --format json --no-rows --no-source upload "$fx/gfx90a/branch_kernel.hsaco" >b2.json 2>b2.err || fail "beta's upload: $(head -n2 b2.err)"
printf 'FAKE TEXT FROM BETA\n' >fake.hip
code=$(send_text "$tok_b" "$(link_of b2.json)" "$(src_of branch_kernel)" fake.hip sr.bin)
[[ $code == 200 && $(pb sources-response sr.bin) == "stored=1 kept_older=0" ]] ||
  fail "beta's text for its own upload: HTTP $code $(pb sources-response sr.bin 2>/dev/null)"
as_a --format json --no-rows upload "$fx/gfx90a/branch_kernel.hsaco" >a2.json 2>a2.err || fail "alpha's upload: $(head -n2 a2.err)"
page "$tok_a" "$(link_of a2.json)" pa2.html >/dev/null
page "$tok_b" "$(link_of b2.json)" pb2.html >/dev/null
if grep -q 'FAKE TEXT FROM BETA' pa2.html || ! grep -q 'branch_kernel' pa2.html || grep -q 'kept the source text' a2.err; then
  finding 2 "alpha's page after beta sent its text first: $(grep -c 'FAKE TEXT' pa2.html) fake lines; tregc: $(head -c 200 a2.err)"
elif ! grep -q 'FAKE TEXT FROM BETA' pb2.html; then
  finding 2 "beta's own text is gone from beta's page"
else
  echo "$prog: ok: 2: beta's text sent first stays beta's; alpha's upload stores and shows alpha's own"
fi
# alpha's own text, then a different one: the first stays, tregc says so
as_a --format json --no-rows --no-source upload "$fx/gfx90a/call_kernel.hsaco" >a3.json 2>a3.err || fail "alpha's upload: $(head -n2 a3.err)"
printf 'EARLIER TEXT FROM ALPHA\n' >old.hip
send_text "$tok_a" "$(link_of a3.json)" "$(src_of call_kernel)" old.hip sr3.bin >/dev/null
as_a --no-rows upload "$fx/gfx90a/call_kernel.hsaco" >a3b.txt 2>a3b.err || fail "alpha's second upload: $(head -n2 a3b.err)"
page "$tok_a" "$(link_of a3.json)" pa3.html >/dev/null
if ! grep -q 'note: the server kept the source text your team sent earlier; 1 of 1 file differ' a3b.err; then
  finding 2 "tregc says nothing when the server kept alpha's earlier text: $(head -c 300 a3b.err)"
elif ! grep -q 'EARLIER TEXT FROM ALPHA' pa3.html; then
  finding 2 "alpha's page does not show the text the server kept"
else
  echo "$prog: ok: 2: alpha's own earlier text stays and tregc says so ($(grep -o 'note: .*' a3b.err | head -c 80)...)"
fi

# --- 4 at the defaults: 5 wrong tokens pass, the 6th makes the address wait -------------
codes=""
for i in 1 2 3 4 5 6 7; do
  codes+="$(c -o /dev/null -w '%{http_code}' --interface 127.0.0.20 -H "Authorization: Bearer wrong-$i" "$base/v1/reports") "
done
if [[ $codes == "401 401 401 401 401 401 429 " ]]; then
  echo "$prog: ok: 4: 7 wrong tokens from one address at the defaults: $codes"
else
  finding 4 "7 wrong tokens from one address at the defaults: $codes"
fi

# --- 6 and 3: cookies and sign-in, as curl sees them ---------------------------------
login() { # login OUT [curl args]: POST /login with alpha's token; prints the status
  local o=$1
  shift
  c -o /dev/null -D "$o" -w '%{http_code}' --data-urlencode "token=$tok_a" --data-urlencode next=/ "$@" "$base/login"
}
code=$(login h-login.txt -H "Origin: $base")
cookie=$(grep -i '^set-cookie: __Host-treg_session=[0-9a-f]' h-login.txt | head -n1 | tr -d '\r' || true)
id=${cookie#*=}
id=${id%%;*}
if [[ $code != 303 || -z $cookie ]]; then
  finding 6 "a sign-in from tregd's own origin: HTTP $code, cookie '$(grep -i '^set-cookie' h-login.txt | head -n1)'"
elif [[ $cookie != *'; Path=/;'* || $cookie != *'; Secure'* || $cookie != *'HttpOnly'* || $cookie == *'Domain'* ]]; then
  finding 6 "the session cookie: $cookie"
else
  listed() { c -o /dev/null -w '%{http_code}' "$@" "$base/"; }
  [[ $(listed -H "Cookie: __Host-treg_session=$id") == 200 ]] || finding 6 "the session cookie opens nothing"
  [[ $(listed -H "Cookie: __Host-treg_session=$id; __Host-treg_session=$(printf '0%.0s' {1..64})") == 401 ]] ||
    finding 6 "a request with two session cookies was signed in"
  [[ $(listed -H "Cookie: __Host-treg_session=$(printf '0%.0s' {1..64})" -H "Cookie: __Host-treg_session=$id") == 401 ]] ||
    finding 6 "two session cookies in two Cookie headers were signed in"
  [[ $(listed -H "Cookie: treg_session=$id") == 401 ]] || finding 6 "the old cookie name still signs in"
  echo "$prog: ok: 6: __Host-treg_session (Path=/, Secure, HttpOnly, no Domain); two session cookies, or the old name: signed in as nobody"
fi
n=${#failures[@]}
for h in "Origin: https://evil.example" "Origin: https://127.0.0.1:1" "Origin: null" "Sec-Fetch-Site: cross-site" "Sec-Fetch-Site: same-site"; do
  code=$(login h-csrf.txt -H "$h")
  if [[ $code != 403 ]] || grep -qi '^set-cookie' h-csrf.txt; then
    finding 3 "POST /login with '$h': HTTP $code $(grep -i '^set-cookie' h-csrf.txt | head -n1)"
  fi
  code=$(c -o /dev/null -D h-out.txt -w '%{http_code}' -X POST -H "$h" -H "Cookie: __Host-treg_session=$id" "$base/logout")
  if [[ $code != 403 ]] || grep -qi '^set-cookie' h-out.txt; then
    finding 3 "POST /logout with '$h': HTTP $code"
  fi
done
if [[ -n $id ]]; then
  [[ $(c -o /dev/null -w '%{http_code}' -H "Cookie: __Host-treg_session=$id" "$base/") == 200 ]] ||
    finding 3 "a refused cross-site sign-out ended the session"
  c -o /dev/null -X POST -H "Origin: $base" -H "Cookie: __Host-treg_session=$id" "$base/logout"
  [[ $(c -o /dev/null -w '%{http_code}' -H "Cookie: __Host-treg_session=$id" "$base/") == 401 ]] ||
    finding 3 "after the sign-out the session's cookie still opens the list"
fi
ok_since "$n" "3: sign-in and sign-out from another origin (5 kinds) refused without a cookie; sign-out ends the session"

# --- 8: sessions per token ----------------------------------------------------------
ids=()
for i in $(seq 1 34); do
  login h-s.txt -H "Origin: $base" >/dev/null
  ids+=("$(grep -io '^set-cookie: __Host-treg_session=[0-9a-f]*' h-s.txt | head -n1 | sed 's/.*=//' || true)")
done
first=$(c -o /dev/null -w '%{http_code}' -H "Cookie: __Host-treg_session=${ids[0]}" "$base/")
last=$(c -o /dev/null -w '%{http_code}' -H "Cookie: __Host-treg_session=${ids[33]}" "$base/")
rows=$(python3 -c 'import sqlite3,sys; print(sqlite3.connect(sys.argv[1]).execute("select count(*) from sessions").fetchone()[0])' "$work/store/index.sqlite")
if [[ $first != 401 || $last != 200 ]] || ((rows > 32)); then
  finding 8 "34 sign-ins with one token: the first session $first, the last $last, $rows sessions kept"
else
  echo "$prog: ok: 8: 34 sign-ins with one token keep $rows sessions: the oldest ended, the newest open"
fi

# --- 5 and 8: headers on every answer ------------------------------------------------
n=${#failures[@]}
for spec in "/v1/health|" "/v1/reports|$tok_a" "/v1/reports|" "/v1/reports/zz|$tok_a" "/login|" "/|" "$link_a1|$tok_a"; do
  p=${spec%%|*} t=${spec#*|}
  extra=()
  [[ -z $t ]] || extra=(-H "Authorization: Bearer $t")
  c -o /dev/null -D hdr.txt "${extra[@]}" "$base$p" >/dev/null
  status=$(head -n1 hdr.txt | tr -d '\r')
  grep -qi '^strict-transport-security: max-age=31536000' hdr.txt || finding 5 "GET $p ($status): no Strict-Transport-Security"
  grep -qi '^cache-control: no-store' hdr.txt || finding 8 "GET $p ($status): no Cache-Control: no-store"
done
ok_since "$n" "5, 8: Strict-Transport-Security and Cache-Control: no-store on 7 kinds of answer (200, 401, 400, pages)"
c -o report.html -D hdr.txt -H "Authorization: Bearer $tok_a" "$base$link_a1"
csp=$(grep -i '^content-security-policy:' hdr.txt | tr -d '\r')
python3 - report.html "$csp" <<'PY' || finding 8 "the report page's script policy (above)"
import base64, hashlib, re, sys
page, header = open(sys.argv[1], encoding="utf-8").read(), sys.argv[2]
meta = re.search(r'http-equiv="Content-Security-Policy" content="([^"]*)"', page).group(1)
scripts = re.findall(r"<script>(.*?)</script>", page, re.S)
for name, policy in (("header", header), ("meta", meta)):
    src = re.search(r"script-src ([^;]*)", policy)
    if not src or "unsafe-inline" in src.group(1):
        sys.exit(f"{name} policy allows inline script: {policy}")
    for s in scripts:
        h = "'sha256-%s'" % base64.b64encode(hashlib.sha256(s.encode()).digest()).decode()
        if h not in src.group(1):
            sys.exit(f"{name} policy does not name the page's script {h}: {src.group(1)}")
print(f"test_tregd_teams: ok: 8: the report page's script by its hash ({len(scripts)} script), no 'unsafe-inline'")
PY

# --- the browser: login and logout CSRF, cookie tossing, an injected script ------------
browser_dir=$TREG_SOURCE_ROOT/tests/browser
if [[ -x ${TREG_CHROMIUM:-/usr/bin/chromium} && -d $browser_dir/node_modules/playwright-core ]] && command -v node >/dev/null; then
  # beta's session, for the attacker's cookie
  c -o /dev/null -D h-b.txt --data-urlencode "token=$tok_b" -H "Origin: $base" "$base/login"
  id_b=$(grep -io '^set-cookie: [_a-z-]*treg_session=[0-9a-f]*' h-b.txt | head -n1 | sed 's/.*=//' || true)
  python3 "$TREG_SOURCE_ROOT/tests/cli/attacker_origin.py" "$work/certs/server.pem" "$work/certs/server.key" \
    "$work/aport" "$base" "$tok_b" "${id_b:-0}" &
  attacker_pid=$!
  wait_for 10 test -s "$work/aport" || fail "the attacker's origin did not start"
  # (call_kernel: a report alpha alone uploaded, which beta's session cannot open)
  python3 - "$work/csrf.json" "$base" "https://127.0.0.1:$(cat "$work/aport")" "$tok_a" "$(link_of a3.json)" <<'PY'
import json, sys
dst, base, attacker, token, link = sys.argv[1:6]
json.dump({"base": base, "attacker": attacker, "token": token, "team": "alpha", "other_team": "beta",
           "link": link, "kernel": "call_kernel"}, open(dst, "w"))
PY
  if node "$browser_dir/check_csrf.mjs" "$work/csrf.json" "$out" >csrf.out 2>&1; then
    sed 's/^/  /' csrf.out
  else
    sed 's/^/  /' csrf.out
    grep -q 'check_csrf: FAIL:' csrf.out || finding browser "check_csrf.mjs failed"
    while read -r why; do
      case $why in
        *"CSRF"* | *"sign-out"*) finding 3 "in chromium: $why" ;;
        *"tossing"* | *"__Host"*) finding 6 "in chromium: $why" ;;
        *"inline script"*) finding 8 "in chromium: $why" ;;
        *) finding browser "$why" ;;
      esac
    done < <(grep 'check_csrf: FAIL:' csrf.out)
  fi
else
  echo "$prog: note: no chromium/node/playwright-core: the browser half (check_csrf.mjs) is skipped"
fi

# --- 2 under --visibility all --------------------------------------------------------
stop_tregd
launch_tregd --workers 1 --auth-free-failures 3 --auth-max-delay 4 --auth-server-failures 12
base=https://127.0.0.1:$port
n=${#failures[@]}
as_a --format json --no-rows --no-source upload "$fx/gfx90a/spill_kernel.hsaco" >a4.json 2>a4.err || fail "alpha's upload: $(head -n2 a4.err)"
as_b --format json --no-rows --no-source upload "$fx/gfx90a/spill_kernel.hsaco" >b4.json 2>b4.err || fail "beta's upload: $(head -n2 b4.err)"
printf 'FAKE SPILL TEXT FROM BETA\n' >fake2.hip
send_text "$tok_b" "$(link_of b4.json)" "$(src_of spill_kernel)" fake2.hip sr4.bin >/dev/null
page "$tok_a" "$(link_of a4.json)" pa4.html >/dev/null
if grep -q 'FAKE SPILL TEXT FROM BETA' pa4.html && ! grep -q '"src_from":"team beta"' pa4.html; then
  finding 2 "--visibility all: beta's text on alpha's report is shown to alpha unattributed"
fi
as_a --no-rows upload "$fx/gfx90a/spill_kernel.hsaco" >a4b.txt 2>a4b.err || fail "alpha's second upload: $(head -n2 a4b.err)"
page "$tok_a" "$(link_of a4.json)" pa4b.html >/dev/null
if grep -q 'FAKE SPILL TEXT FROM BETA' pa4b.html || ! grep -q 'spill_kernel' pa4b.html; then
  finding 2 "--visibility all: after alpha sent its own text, alpha's page still shows beta's"
fi
as_a --format json --no-rows --no-source upload "$fx/gfx90a/mfma_kernel.hsaco" >a5.json 2>a5.err || fail "alpha's upload: $(head -n2 a5.err)"
code=$(send_text "$tok_b" "$(link_of a5.json)" "$(src_of mfma_kernel)" fake2.hip sr5.bin)
[[ $code == 404 ]] || finding 2 "--visibility all: beta attached text to a report only alpha uploaded: HTTP $code"
ok_since "$n" "2: --visibility all: another team's text is named as theirs; a team's own wins for it; no text without an upload"

# --- 4: wrong tokens, slowed down -----------------------------------------------------
# (the server-wide count is per minute of CLOCK_MONOTONIC, which Python's
# time.monotonic reads on Linux: start well inside one)
sec=$(python3 -c 'import time; print(int(time.monotonic()) % 60)')
((sec < 40)) || sleep $((61 - sec))
# The first wait past the free failures is 1 s counted in whole seconds of
# CLOCK_MONOTONIC: the requests after it must land in the same second, so
# each run of them starts just past a second's start.
second_start() { python3 -c 'import time; time.sleep(1.02 - time.monotonic() % 1)'; }
bearer() { # bearer TOKEN [curl args]: GET /v1/reports; prints the status
  local t=$1
  shift
  c -o /dev/null -D h4.txt -w '%{http_code}' -H "Authorization: Bearer $t" "$@" "$base/v1/reports"
}
[[ $(bearer "$tok_a") == 200 ]] || fail "alpha's token refused before the test"
codes=""
second_start
for i in 1 2 3 4 5; do codes+="$(bearer "wrong-$i") "; done
retry=$(grep -i '^retry-after:' h4.txt | tr -dc '0-9')
right=$(bearer "$tok_a")
if [[ $codes != "401 401 401 401 429 " || -z $retry || $right != 429 ]]; then
  finding 4 "5 wrong tokens from one address: $codes(Retry-After '${retry}'), then the right one: $right"
else
  sleep "$retry"
  right=$(bearer "$tok_a")
  [[ $right == 200 ]] || finding 4 "the right token after Retry-After ${retry}s: HTTP $right"
  echo "$prog: ok: 4: wrong tokens from one address: $codes; the right one waits too, then passes after Retry-After ${retry}s"
fi
# the sign-in form from another address, as a browser's
formcodes=""
second_start
for i in 1 2 3 4 5; do
  formcodes+="$(c -o /dev/null -w '%{http_code}' --interface 127.0.0.2 --data-urlencode "token=wrong-$i" -H "Origin: $base" "$base/login") "
done
[[ $formcodes == "401 401 401 401 429 " ]] || finding 4 "5 wrong sign-ins from 127.0.0.2: $formcodes"
# server-wide: 12 failures a minute; 127.0.0.2 made 4 (its 5th was refused
# unread), 127.0.0.3-10 make 8 more; then an address never seen waits, a
# known one (127.0.0.1: alpha's) is served
for i in $(seq 3 10); do bearer wrong --interface "127.0.0.$i" >/dev/null; done
new=$(bearer "$tok_b" --interface 127.0.0.11)
known=$(bearer "$tok_a")
if [[ $new != 429 || $known != 200 ]]; then
  finding 4 "past the server-wide bound: a new address with beta's right token $new, alpha's known address $known"
else
  echo "$prog: ok: 4: sign-ins: $formcodes; past 12 failures a minute a new address waits (429), a known one is served"
fi
grep -q '"a wrong bearer token"' "$work/tregd.log" || finding 4 "wrong tokens are not logged"

stop_tregd
if ((${#failures[@]})); then
  fail "findings not fixed: $(printf '%s\n' "${failures[@]}" | sort -u | tr '\n' ' ')"
fi
echo "$prog: ok"

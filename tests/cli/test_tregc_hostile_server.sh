#!/usr/bin/env bash
# tregc against a hostile server (tests/cli/hostile_server.py, real TLS on
# 127.0.0.1 with a certificate from deploy/make-certs.sh):
#   - F8: a server dripping its headers a byte a second: `tregc --timeout 3`
#     gives up after about 3 s (not when the server stops), one line, exit 1;
#   - F9: a 2 MB answer declaring 1,000,000 empty kernels is refused before it
#     is unpacked (one line naming its cost), tregc's peak RSS stays small
#     (15 GB was measured before the check);
#   - a 503 with Retry-After: 3600: tregc does not sleep past --timeout.
set -uo pipefail
prog=test_tregc_hostile_server
# shellcheck source=tests/cli/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
build=$(cd "$(dirname "${TREG_ANALYZE:-build/tools/treg-analyze}")/.." && pwd)
TREGC=${TREGC:-$build/client/tregc}
[[ -x $TREGC ]] || skip "tregc is not built (looked for $TREGC)"
for t in python3 openssl; do command -v "$t" >/dev/null || skip "$t not found"; done
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
out=${TREG_TEST_OUTPUT:-${TMPDIR:-/tmp}}/tregc_hostile_server
rm -rf "$out"
mkdir -p "$out"
"$TREG_SOURCE_ROOT/deploy/make-certs.sh" "$out/certs" 127.0.0.1 >/dev/null || fail "deploy/make-certs.sh failed"
server_pid=""
trap '[[ -z $server_pid ]] || kill "$server_pid" 2>/dev/null || true' EXIT
checks=0

serve() { # MODE: a hostile server in the background; sets server_pid and port
  [[ -z $server_pid ]] || kill "$server_pid" 2>/dev/null
  rm -f "$out/port"
  python3 "$here/hostile_server.py" "$1" "$out/certs/server.pem" "$out/certs/server.key" "$out/port" \
    2>"$out/server.log" &
  server_pid=$!
  wait_port "$out/port" "$server_pid" "$out/server.log"
  port=$(cat "$out/port")
}
# run_tregc NAME ARGS...: tregc against the hostile server, timed, with its peak RSS
run_tregc() {
  local name=$1
  shift
  python3 - "$out/$name" "$TREGC" --server "https://127.0.0.1:$port" --ca "$out/certs/ca.pem" \
    --token t "$@" <<'PY'
import resource, subprocess, sys, time
t0 = time.monotonic()
with open(sys.argv[1] + ".out", "w") as o, open(sys.argv[1] + ".err", "w") as e:
    rc = subprocess.run(sys.argv[2:], stdout=o, stderr=e, timeout=120).returncode
peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss // 1024
open(sys.argv[1] + ".fig", "w").write(f"{rc} {time.monotonic() - t0:.1f} {peak}\n")
PY
  read -r rc secs peak <"$out/$name.fig"
}

serve drip
run_tregc drip --timeout 3 health
[[ $rc -eq 1 && $(wc -l <"$out/drip.err") -eq 1 ]] || fail "drip: exit $rc: $(cat "$out/drip.err")"
grep -q "no complete answer within 3 s (--timeout)" "$out/drip.err" || fail "drip: $(cat "$out/drip.err")"
awk -v s="$secs" 'BEGIN { exit !(s < 8) }' || fail "drip: tregc took $secs s with --timeout 3"
checks=$((checks + 1))
echo "$prog: ok: a server dripping its headers: tregc --timeout 3 gave up after $secs s"

serve kernels
run_tregc kernels --format json fetch "$(printf '%064d' 7)"
[[ $rc -eq 1 && $(wc -l <"$out/kernels.err") -eq 1 ]] || fail "kernels: exit $rc: $(cat "$out/kernels.err")"
grep -q "the server's answer of 2000010 bytes would take [0-9]* MiB to unpack: refused" "$out/kernels.err" ||
  fail "kernels: $(cat "$out/kernels.err")"
((peak < 200)) || fail "kernels: tregc peak RSS $peak MiB"
checks=$((checks + 1))
echo "$prog: ok: 1,000,000 empty kernels in 2 MB: refused unpacked ($(grep -o '[0-9]* MiB' "$out/kernels.err")), peak RSS $peak MiB"

serve busy
run_tregc busy --timeout 4 health
[[ $rc -eq 1 ]] || fail "busy: exit $rc: $(cat "$out/busy.err")"
awk -v s="$secs" 'BEGIN { exit !(s < 8) }' || fail "busy: tregc took $secs s with --timeout 4 (Retry-After: 3600)"
grep -q "503" "$out/busy.err" || fail "busy: $(cat "$out/busy.err")"
checks=$((checks + 1))
echo "$prog: ok: 503 with Retry-After: 3600: tregc answered within --timeout 4 ($secs s): $(cat "$out/busy.err")"

echo "$prog: PASS ($checks checks)"

#!/usr/bin/env bash
# tregc watch against a real tregd, with cache entries written the way
# Triton writes them (tests/cli/triton_write.py: temporary folders, renames,
# the group file last): an entry already in the cache is left alone; a new
# one is sent only once its group file is there, with one line per kernel
# (name, target, VGPR peak/allocated, waves, spills, hash) that says what
# treg-analyze says of the same file; while the server is away the entry is
# tried again with backoff and sent when the server is back (same port); a
# full queue drops with a line; SIGTERM stops the watch cleanly (exit 0 and
# a tally).
set -euo pipefail

prog=test_watch
# shellcheck source=tests/cli/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

require_analyzer
[[ -x ${TREGC:-} && -x ${TREGD:-} ]] || skip "TREGC and TREGD are needed (CTest sets them)"
command -v openssl >/dev/null 2>&1 || skip "openssl is needed for the test server's certificates"
fx=${TREG_FIXTURES:-}
[[ -d $fx/triton/add_kernel && -d $fx/triton-like/loop_kernel-gfx90a ]] ||
  skip "no Triton-like fixtures at ${fx:-(TREG_FIXTURES unset)}"
work=$(mktemp -d "${TMPDIR:-/tmp}/treg-watch.XXXXXX")
watch_pid=""
cleanup() {
  [[ -z $watch_pid ]] || kill -KILL "$watch_pid" 2>/dev/null || true
  [[ -z ${server_pid:-} ]] || kill -KILL -- "-$server_pid" 2>/dev/null || true
  rm -rf "$work"
}
start_tregd "$work"
trap cleanup EXIT
cache=$work/cache
mkdir -p "$cache"
cp -r "$fx/triton-like/loop_kernel-gfx906" "$cache/OLDENTRY" # there before the watch

# waitfor FILE PATTERN WHAT: FILE gets a line matching PATTERN within 30 s.
waitfor() {
  local tries=600
  until grep -qE "$2" "$1" 2>/dev/null; do
    ((--tries > 0)) || fail "$3: nothing matching '$2' in 30 s: $(tail -5 "$1" 2>/dev/null) (stderr: $(tail -3 "$work/watch.err"))"
    kill -0 "$watch_pid" 2>/dev/null || fail "$3: tregc watch died: $(tail -5 "$work/watch.err")"
    sleep 0.05
  done
}

TREG_CONFIG=/dev/null setsid "$TREGC" --server "https://127.0.0.1:$port" --ca "$tregd_dir/certs/ca.pem" \
  --token "$tregd_token" --timeout 5 watch "$cache" >"$work/watch.out" 2>"$work/watch.err" &
watch_pid=$!
waitfor "$work/watch.err" "watching $cache" "start"

# expect_line SRC_HSACO: the watch printed that code object's line, as treg-analyze sees it.
expect_line() {
  local hsaco=$1 want
  want=$(python3 - "$TREG_ANALYZE" "$hsaco" <<'PY'
import hashlib, json, subprocess, sys
a, f = sys.argv[1:]
d = json.loads(subprocess.run([a, "--format", "json", "--no-rows", f], check=True,
                              capture_output=True, text=True).stdout)
r = d["reports"][0]
k = r["kernels"][0]
h = hashlib.sha256(open(f, "rb").read()).hexdigest()
o = k["occupancy"]
print(f'{k["name"]}  {r["target"]}  VGPR {k["vgpr"]["peak_live"]}/{k["vgpr"]["allocated"]}  '
      f'waves {o["waves_per_simd"]}/{o["max_waves"]} ({o["limited_by"]})  '
      f'spills {k["spill_instructions"]}  {h[:12]}')
PY
)
  waitfor "$work/watch.out" "^$(sed 's/[][()*.^$/]/\\&/g' <<<"$want")" "the line of $hsaco"
}

# --- an entry written the Triton way: sent after its group file, not before ------------
python3 "$TREG_SOURCE_ROOT/tests/cli/triton_write.py" "$cache" ENTRYONE "$fx/triton/add_kernel" \
  --pause 0.2 --hold "$work/go1" &
writer=$!
until [[ -f $cache/ENTRYONE/add_kernel.amdgcn && -f $cache/ENTRYONE/add_kernel.llir ]]; do sleep 0.05; done
sleep 1.5 # every file but the group one is there: nothing may be sent yet
[[ -z ${DEBUG:-} ]] || { ls -la "$cache" "$cache/ENTRYONE"; cat /proc/$watch_pid/status | head -3; }
[[ ! -s $work/watch.out ]] || fail "sent before the group file: $(cat "$work/watch.out")"
touch "$work/go1"
wait "$writer"
expect_line "$cache/ENTRYONE/add_kernel.hsaco"
grep -q loop_kernel "$work/watch.out" && fail "the entry that was there before the watch was sent"
echo "$prog: ok: a Triton-written entry sent once its group file landed: $(head -1 "$work/watch.out")"

# --- the server away, then back on the same port ---------------------------------------
stop_tregd
python3 "$TREG_SOURCE_ROOT/tests/cli/triton_write.py" "$cache" ENTRYTWO "$fx/triton-like/loop_kernel-gfx90a"
waitfor "$work/watch.err" "could not take $cache/ENTRYTWO: again in 1 s" "a first retry"
waitfor "$work/watch.err" "could not take $cache/ENTRYTWO: again in 2 s" "a doubled backoff"
setsid "$TREGD" --listen "127.0.0.1:$port" --cert "$work/certs/server.pem" --key "$work/certs/server.key" \
  --store "$work/store" --tokens-file "$work/tokens" 2>>"$work/tregd.log" &
server_pid=$!
expect_line "$cache/ENTRYTWO/loop_kernel.hsaco"
echo "$prog: ok: server away: retried with backoff (1 s, 2 s, ...), sent when it came back"

# --- SIGTERM: a clean stop with a tally ---------------------------------------------------
kill -TERM "$watch_pid"
rc=0
wait "$watch_pid" || rc=$?
watch_pid=""
((rc == 0)) || fail "SIGTERM: exit $rc: $(tail -3 "$work/watch.err")"
grep -q "watch stopped: 2 entries sent, [1-9][0-9]* retries, 0 dropped" "$work/watch.err" ||
  fail "no tally: $(tail -3 "$work/watch.err")"
lines=$(wc -l <"$work/watch.out")
((lines == 2)) || fail "$lines kernel lines, not 2: $(cat "$work/watch.out")"
echo "$prog: ok: SIGTERM: exit 0, $(grep -o 'watch stopped.*' "$work/watch.err")"

# --- a bounded queue: with the server away, what does not fit is dropped, saying so --------
cache2=$work/cache2
mkdir -p "$cache2"
TREG_CONFIG=/dev/null TREGC_WATCH_QUEUE=1 "$TREGC" --server https://127.0.0.1:1 --timeout 2 \
  watch "$cache2" >"$work/watch.out" 2>"$work/watch.err" &
watch_pid=$!
waitfor "$work/watch.err" "watching $cache2" "the second watch"
python3 "$TREG_SOURCE_ROOT/tests/cli/triton_write.py" "$cache2" A "$fx/triton/add_kernel"
waitfor "$work/watch.err" "could not take $cache2/A" "the first entry queued"
python3 "$TREG_SOURCE_ROOT/tests/cli/triton_write.py" "$cache2" B "$fx/triton/add_kernel"
waitfor "$work/watch.err" "1 entries already wait: $cache2/B dropped" "a full queue"
kill -INT "$watch_pid"
rc=0
wait "$watch_pid" || rc=$?
watch_pid=""
((rc == 0)) || fail "SIGINT: exit $rc"
grep -q "1 complete entry not sent" "$work/watch.err" || fail "no word of the entry left: $(tail -2 "$work/watch.err")"
grep -q "watch stopped: 0 entries sent, [1-9][0-9]* retr[a-z]*, 1 dropped" "$work/watch.err" ||
  fail "tally: $(tail -1 "$work/watch.err")"
echo "$prog: ok: a queue of 1 with the server away: the second entry dropped with a line; SIGINT exits 0"
echo "$prog: ok"

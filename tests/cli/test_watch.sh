#!/usr/bin/env bash
# tregc watch against a real tregd, with cache entries written the way
# Triton writes them (tests/cli/triton_write.py: temporary names, renames,
# the group file last): an entry already in the cache is left alone; a new
# one is sent only once its group file is there, with one line per kernel
# (name, target, VGPR peak/allocated, waves, spills, hash) that says what
# treg-analyze says of the same file.  The order of the files does not
# matter: with the group file first (and every file under a temporary
# *.tmp.pid_123_abc name first) the entry is sent once, whole, never by a
# temporary name; with the group last or absent it is sent too.  A .hsaco
# that first appears empty, or cut short, is sent once it is whole.  While
# the server is away the entry is tried again with backoff and sent when the
# server is back (same port); a full queue drops with a line; an entry that
# never becomes whole is given up with one line (a folder of no kernel
# quietly); SIGTERM stops the watch cleanly (exit 0 and a tally).
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
writer=""
cleanup() {
  [[ -z $watch_pid ]] || kill -KILL "$watch_pid" 2>/dev/null || true
  [[ -z $writer ]] || kill -KILL "$writer" 2>/dev/null || true
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
writer=""
expect_line "$cache/ENTRYONE/add_kernel.hsaco"
grep -q loop_kernel "$work/watch.out" && fail "the entry that was there before the watch was sent"
echo "$prog: ok: a Triton-written entry sent once its group file landed: $(head -1 "$work/watch.out")"

# expect_stored HSACO: the server's report of that code object was stored
# under the file's final name (no temporary one was sent first) and holds
# the Triton options of its .json (the .json went along).
expect_stored() {
  local hsaco=$1 hash
  hash=$(sha256sum "$hsaco" | cut -d' ' -f1)
  TREG_CONFIG=/dev/null tregc_to --timeout 10 --format json --no-rows fetch "$hash" \
    >"$work/fetched.json" 2>"$work/fetched.err" || fail "fetch $hsaco: $(tail -2 "$work/fetched.err")"
  python3 - "$work/fetched.json" "$hsaco" <<'PY' || fail "the stored report of $hsaco (above)"
import json, sys
doc, hsaco = sys.argv[1:]
r = json.load(open(doc))["reports"][0]
meta = json.load(open(hsaco[:-len(".hsaco")] + ".json"))
if r.get("file") != hsaco:
    sys.exit(f'stored as {r.get("file")}, not {hsaco}')
if (r.get("triton") or {}).get("num_warps") != meta["num_warps"]:
    sys.exit(f'not the options of its .json (num_warps {meta["num_warps"]}): {r.get("triton")}')
PY
}

# sent_once HSACO: one line for that code object, and not "stored before".
sent_once() {
  local short n
  short=$(sha256sum "$1" | cut -c1-12)
  n=$(grep -c "  $short" "$work/watch.out" || true)
  ((n == 1)) || fail "$1: $n lines for $short, not 1: $(cat "$work/watch.out")"
  ! grep -q "  $short  (stored before)" "$work/watch.out" || fail "$1: sent twice"
}

# --- the order of the files does not matter -------------------------------------------------
# No group file at all: sent after the quiet period (written first, so that
# the other cases run meanwhile).
python3 "$TREG_SOURCE_ROOT/tests/cli/triton_write.py" "$cache" NOGROUP \
  "$fx/triton-like/loop_kernel-gfx942" --group none

# (a) the .hsaco appears empty under its final name (the group file and the
# rest already there) and is written later: nothing is sent for the empty
# file, the entry is sent once it is filled.
python3 "$TREG_SOURCE_ROOT/tests/cli/triton_write.py" "$cache" EMPTYFIRST "$fx/triton/softmax_kernel" \
  --hsaco empty --fill "$work/fill-a" &
writer=$!
wait_for 30 test -s "$cache/EMPTYFIRST/__grp__softmax_kernel.json" || fail "(a): no group file written"
[[ ! -s $cache/EMPTYFIRST/softmax_kernel.hsaco ]] || fail "(a): the .hsaco is not empty yet"
sleep 0.5 # not an assertion: time for a watcher that would take the empty file to do so
touch "$work/fill-a"
wait "$writer"
writer=""
expect_line "$cache/EMPTYFIRST/softmax_kernel.hsaco"
! grep -F "$cache/EMPTYFIRST" "$work/watch.err" || fail "(a): the empty .hsaco was tried"
sent_once "$cache/EMPTYFIRST/softmax_kernel.hsaco"
expect_stored "$cache/EMPTYFIRST/softmax_kernel.hsaco"
echo "$prog: ok: (a) a .hsaco that appeared empty: nothing tried until it was written, then sent once"

# (a') the .hsaco appears cut short (half its bytes): the server cannot read
# it, and the entry is tried again, and sent, once the file is whole.
python3 "$TREG_SOURCE_ROOT/tests/cli/triton_write.py" "$cache" HALFFIRST \
  "$fx/triton-like/spill_kernel-gfx90a" --hsaco half --fill "$work/fill-a2" &
writer=$!
waitfor "$work/watch.err" "$cache/HALFFIRST could not be sent as it is: tried again when it changes" \
  "(a') the cut-short .hsaco refused"
touch "$work/fill-a2"
wait "$writer"
writer=""
expect_line "$cache/HALFFIRST/spill_kernel.hsaco"
sent_once "$cache/HALFFIRST/spill_kernel.hsaco"
expect_stored "$cache/HALFFIRST/spill_kernel.hsaco"
echo "$prog: ok: (a') a .hsaco cut short: refused, then sent once it was whole"

# (b) Triton 2's way, each file as <file>.tmp.pid_123_abc then renamed, and
# the group file FIRST: sent once every file the group names is there, once,
# and never by a temporary name.
python3 "$TREG_SOURCE_ROOT/tests/cli/triton_write.py" "$cache" GROUPFIRST \
  "$fx/triton-like/branch_kernel-gfx90a" --style name --tmp-id 123_abc --group first --pause 0.2
expect_line "$cache/GROUPFIRST/branch_kernel.hsaco"
sent_once "$cache/GROUPFIRST/branch_kernel.hsaco"
expect_stored "$cache/GROUPFIRST/branch_kernel.hsaco"
echo "$prog: ok: (b) temporary names and the group file first: sent once, whole, by its final names"

# (c) the group file last (Triton's order, temporary names as in (b)), and
# none at all.
python3 "$TREG_SOURCE_ROOT/tests/cli/triton_write.py" "$cache" GROUPLAST \
  "$fx/triton-like/branch_kernel-gfx942" --style name --tmp-id 123_abc
expect_line "$cache/GROUPLAST/branch_kernel.hsaco"
sent_once "$cache/GROUPLAST/branch_kernel.hsaco"
expect_stored "$cache/GROUPLAST/branch_kernel.hsaco"
expect_line "$cache/NOGROUP/loop_kernel.hsaco"
sent_once "$cache/NOGROUP/loop_kernel.hsaco"
expect_stored "$cache/NOGROUP/loop_kernel.hsaco"
! grep -F "tmp.pid" "$work/watch.out" "$work/watch.err" || fail "a temporary name was taken for a file"
echo "$prog: ok: (c) the group file last, and none at all (after the quiet period): sent"

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
grep -q "watch stopped: 7 entries sent, [1-9][0-9]* retries, 0 dropped, 0 given up" "$work/watch.err" ||
  fail "no tally: $(tail -3 "$work/watch.err")"
lines=$(wc -l <"$work/watch.out")
((lines == 7)) || fail "$lines kernel lines, not 7: $(cat "$work/watch.out")"
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
# --- entries that never become whole: given up with one line each ---------------------------
# (no server needed: nothing here reaches it)
cache3=$work/cache3
mkdir -p "$cache3"
TREG_CONFIG=/dev/null TREGC_WATCH_GIVE_UP_MS=1500 "$TREGC" --server https://127.0.0.1:1 --timeout 2 \
  watch "$cache3" >"$work/watch.out" 2>"$work/watch.err" &
watch_pid=$!
waitfor "$work/watch.err" "watching $cache3" "the third watch"
mkdir "$cache3/EMPTY" "$cache3/GARBAGE" "$cache3/LAUNCHER"
cp "$fx/triton/add_kernel/add_kernel.json" "$cache3/EMPTY/"
: >"$cache3/EMPTY/add_kernel.hsaco" # never written
cp "$fx/triton/add_kernel/add_kernel.json" "$cache3/GARBAGE/"
echo '{"child_paths": {}}' >"$cache3/GARBAGE/__grp__add_kernel.json"
head -c 4096 /dev/urandom >"$work/garbage"
mv "$work/garbage" "$cache3/GARBAGE/add_kernel.hsaco" # no code object, never replaced
head -c 100 /dev/urandom >"$cache3/LAUNCHER/hip_utils.so" # Triton's launcher: no kernel
waitfor "$work/watch.err" "gave up on $cache3/EMPTY: add_kernel.hsaco is empty, and nothing changed for 1 s" \
  "the entry whose .hsaco stays empty"
waitfor "$work/watch.err" "$cache3/GARBAGE could not be sent as it is" "the unreadable .hsaco tried"
waitfor "$work/watch.err" "gave up on $cache3/GARBAGE: attempt [0-9] could not send it, and nothing changed" \
  "the entry whose .hsaco cannot be read"
kill -INT "$watch_pid"
rc=0
wait "$watch_pid" || rc=$?
watch_pid=""
((rc == 0)) || fail "SIGINT: exit $rc"
for e in EMPTY GARBAGE; do
  n=$(grep -c "gave up on $cache3/$e:" "$work/watch.err" || true)
  ((n == 1)) || fail "$n give-up lines for $e, not 1: $(cat "$work/watch.err")"
done
! grep -F "$cache3/LAUNCHER" "$work/watch.err" || fail "a folder of no kernel was given up aloud"
grep -q "watch stopped: 0 entries sent, 0 retries, 0 dropped, 2 given up" "$work/watch.err" ||
  fail "tally: $(tail -1 "$work/watch.err")"
echo "$prog: ok: an empty .hsaco and an unreadable one given up with one line each, a launcher's folder quietly"
echo "$prog: ok"

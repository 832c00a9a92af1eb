#!/usr/bin/env bash
# client/triton/treg_capture.py, Triton's compilation listener, against a
# real tregd, with a stand-in triton package (tests/cli/triton_stub: the
# listener contract of Triton 3.4-3.8, compile() of a real cache entry from
# tests/data/triton-cache) and tests/cli/triton_stub/capture_prog.py as the
# user's program.  Each entry compiled gives exactly one stderr line whose
# kernel, target, VGPR allocated/peak, waves, spills and link are what
# tregc fetch says of that report; the same entry compiled again (fresh or
# a hit, on the main thread or on worker threads) gives no second line.
# Turned on by `python -m treg_capture SCRIPT ARGS` (argv passed, exit
# status kept) and `-m MODULE`, or by TREG_CAPTURE=1 with the .pth in a
# site-packages folder (without it, or with 0, the .pth does nothing: no
# module imported, no listener).  A listener the program set before or
# after is called too.  Server down or tregc missing: the program's output
# and status intact, one failure line.  A full queue (a tregc that hangs):
# one drop line, the listener calls return at once, the exit wait gives up
# after TREG_CAPTURE_WAIT with one line and the hung tregc is killed.
# Malformed listener arguments never raise.
set -euo pipefail

prog=test_capture
# shellcheck source=tests/cli/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

require_tregd python3 openssl
module_dir=$TREG_SOURCE_ROOT/client/triton
stub=$TREG_SOURCE_ROOT/tests/cli/triton_stub
driver=$stub/capture_prog.py
data=$TREG_SOURCE_ROOT/tests/data/triton-cache
[[ -f $module_dir/treg_capture.py && -f $module_dir/treg_capture.pth ]] || fail "no treg_capture.py/.pth in $module_dir"
python=$(python3 -c 'import sys; print(sys.executable)') # the interpreter, not a shim
timeout=$(command -v timeout)

work=$(mktemp -d "${TMPDIR:-/tmp}/treg-capture.XXXXXX")
cleanup() {
  [[ -z ${server_pid:-} ]] || kill -KILL -- "-$server_pid" 2>/dev/null || true
  rm -rf "$work"
}
start_tregd "$work"
trap cleanup EXIT
cd "$work"

# Three entries of three kernels, in a cache of the test's own.
cache=$work/cache
mkdir -p "$cache"
A=$cache/3EB5ITNVJJEASVGOOFNBKD6OBZIVKCNTM3VGAWZY5Z3USBCVGDFQ # matmul_kernel gfx942
B=$cache/6PXARFIDWJV2VE23G5PG54INSBNQOGIWENUR354VZX42AYLVYWFA # attn_fwd gfx942
C=$cache/MD4F523L5PVMIKLU6IIZMAM7ASER47Q6J6JG6ABYSLCTRQZ3BBMA # softmax_kernel gfx90a
for e in "$A" "$B" "$C"; do cp -r "$data/$(basename "$e")" "$e"; done
all3=(matmul_kernel:gfx942 attn_fwd:gfx942 softmax_kernel:gfx90a)

# tregc reads the server, token and CA from its own environment.
export TREG_SERVER=https://127.0.0.1:$port TREG_CA=$tregd_dir/certs/ca.pem TREG_TOKEN=$tregd_token \
  TREG_CONFIG=/dev/null TREG_TREGC=$TREGC TRITON_CACHE_DIR=$cache
unset TREG_CAPTURE TREG_CAPTURE_WAIT TREG_CAPTURE_QUEUE PYTHONSTARTUP
export PYTHONDONTWRITEBYTECODE=1 # no __pycache__ in the source tree

# py NAME PYTHONPATH [ENV=VALUE...] -- ARGS...: python3 ARGS with that
# PYTHONPATH; $work/NAME.out/.err, its status in st.
py() {
  local name=$1 path=$2
  shift 2
  local envs=()
  while [[ $1 != -- ]]; do envs+=("$1"); shift; done
  shift
  st=0
  env PYTHONPATH="$path" "${envs[@]}" "$timeout" 120 "$python" "$@" \
    >"$work/$name.out" 2>"$work/$name.err" || st=$?
}
# run NAME [ENV=VALUE...] -- ARGS...: py with the stub and the module importable
run() {
  local name=$1
  shift
  py "$name" "$stub:$module_dir" "$@"
}

# check_lines NAME KERNEL:TARGET...: NAME.err is exactly one capture line
# per KERNEL:TARGET given (in any order), each with the figures and link
# that tregc fetch gives for the report it links to.
check_lines() {
  local name=$1 h
  shift
  mkdir -p "$work/fetch"
  while read -r h; do
    tregc_to --format json --no-rows fetch "$h" >"$work/fetch/$h.json" ||
      fail "$name: tregc fetch $h failed (stderr: $(head -c 400 "$work/$name.err"))"
  done < <(grep -oE '/r/[0-9a-f]{64}' "$work/$name.err" | cut -c4- | sort -u)
  python3 - "$work/$name.err" "$work/fetch" "$port" "$@" <<'PY' || fail "$name: the capture lines are not the server's figures (above)"
import json, re, sys
err, fetched, port, want = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:]
lines = open(err).read().splitlines()
line_re = re.compile(r"^treg: (\S+) (\S+): VGPR (\d+) allocated, (\d+) peak; (\d+) waves?/SIMD"
                     r"(?: \(\d+ at launch: \w+\))?; (?:no spills|(\d+) spill instructions?); "
                     r"(https://127\.0\.0\.1:%s/r/([0-9a-f]{64})\S*)$" % port)
bad = []
if len(lines) != len(want):
    bad.append("%d lines on stderr, wanted %d: %r" % (len(lines), len(want), lines))
got = []
for line in lines:
    m = line_re.match(line)
    if not m:
        bad.append("not a capture line: %r" % line)
        continue
    name, target, alloc, peak, waves, spills, link, h = m.groups()
    got.append("%s:%s" % (name, target))
    r = json.load(open("%s/%s.json" % (fetched, h)))["reports"][0]
    k = [k for k in r["kernels"] if k["name"] == name]
    if not k:
        bad.append("%s: report %s has no kernel of that name" % (line, h))
        continue
    k = k[0]
    mine = (target, int(alloc), int(peak), int(waves), int(spills or 0), link)
    theirs = (r["target"], k["vgpr"]["allocated"], k["vgpr"]["peak_live"],
              k["occupancy"]["waves_per_simd"], k["spill_instructions"], r["link"])
    if mine != theirs:
        bad.append("%s: the line says %r, tregc fetch %r" % (name, mine, theirs))
if sorted(got) != sorted(want):
    bad.append("kernels %r, wanted %r" % (sorted(got), sorted(want)))
for b in bad:
    print("check_lines:", b, file=sys.stderr)
sys.exit(1 if bad else 0)
PY
}

# out_has NAME TEXT: NAME.out has a line starting with TEXT.
out_has() {
  grep -qF -- "$2" "$work/$1.out" || fail "$1: no '$2' on stdout: $(head -c 600 "$work/$1.out")"
}

# 1. python -m treg_capture SCRIPT ARGS: three entries, each compiled
# fresh and hit, one again: three lines; argv and the exit status kept.
run script -- -m treg_capture "$driver" --exit 3 fresh:"$A" hit:"$A" fresh:"$B" fresh:"$C" hit:"$C" \
  fresh:"$A" hit:"$B" --some-flag
((st == 3)) || fail "python -m treg_capture SCRIPT: status $st, wanted the script's 3: $(tail -c 600 "$work/script.err")"
out_has script "argv: --exit 3 fresh:$A hit:$A fresh:$B fresh:$C hit:$C fresh:$A hit:$B --some-flag name: __main__"
out_has script "compiled 7"
check_lines script "${all3[@]}"

# 2. python -m treg_capture -m MODULE ARGS (the driver as a module; a hit,
# in a new process: one line again).
run module -- -m treg_capture -m capture_prog --exit 4 hit:"$A"
((st == 4)) || fail "python -m treg_capture -m MODULE: status $st, wanted 4: $(tail -c 600 "$work/module.err")"
out_has module "argv: --exit 4 hit:$A name: __main__"
check_lines module matmul_kernel:gfx942

# 3. Worker threads: three fresh compiles at once, then hits on threads.
run threads -- -m treg_capture "$driver" --threads fresh:"$A" fresh:"$B" fresh:"$C"
((st == 0)) || fail "threads: status $st: $(tail -c 600 "$work/threads.err")"
check_lines threads "${all3[@]}"
run threadhits -- -m treg_capture "$driver" --threads hit:"$A" hit:"$B" hit:"$C" hit:"$A"
((st == 0)) || fail "threads, hits: status $st: $(tail -c 600 "$work/threadhits.err")"
check_lines threadhits "${all3[@]}"

# 4. A listener set before enable() is still called, and ours too.
run before -- "$driver" --before --enable fresh:"$C" hit:"$C"
((st == 0)) || fail "listener before: status $st: $(tail -c 600 "$work/before.err")"
out_has before "user listener: softmax_kernel hit=False"
out_has before "user listener: softmax_kernel hit=True"
check_lines before softmax_kernel:gfx90a

# 5. The .pth in a site-packages folder: TREG_CAPTURE=1 turns the capture
# on (installed when triton.knobs is imported; a listener the program sets
# after that is called too); unset or 0 it does nothing.  The user site
# (PYTHONUSERBASE) when this python has one, else a sitecustomize that
# adds the folder as site does.
if "$python" -c 'import site, sys; sys.exit(0 if site.ENABLE_USER_SITE else 1)'; then
  site_env=(PYTHONUSERBASE="$work/userbase")
  site_path=
  sp=$(env "${site_env[@]}" "$python" -c 'import site; print(site.getusersitepackages())')
else
  mkdir -p "$work/sitecustom"
  sp=$work/site-packages
  printf 'import site\nsite.addsitedir(%s)\n' "'$sp'" >"$work/sitecustom/sitecustomize.py"
  site_env=(PYTHONNOUSERSITE=1)
  site_path=:$work/sitecustom
fi
mkdir -p "$sp"
cp "$module_dir/treg_capture.py" "$module_dir/treg_capture.pth" "$sp/"
# prun NAME [ENV=VALUE...] -- ARGS...: as run, the module from the site folder only
prun() {
  local name=$1
  shift
  py "$name" "$stub$site_path" "${site_env[@]}" "$@"
}
prun pth TREG_CAPTURE=1 -- "$driver" --state --after fresh:"$B" hit:"$B" fresh:"$A"
((st == 0)) || fail "TREG_CAPTURE=1 with the .pth: status $st: $(tail -c 600 "$work/pth.err")"
out_has pth "treg_capture imported: True"
out_has pth "listener: <treg_capture listener, then <function user_listener"
out_has pth "user listener: attn_fwd hit=False"
out_has pth "user listener: attn_fwd hit=True"
out_has pth "user listener: matmul_kernel hit=False"
check_lines pth attn_fwd:gfx942 matmul_kernel:gfx942
for v in unset 0 ""; do
  if [[ $v == unset ]]; then prun off -- "$driver" --state fresh:"$B"; else prun off TREG_CAPTURE="$v" -- "$driver" --state fresh:"$B"; fi
  ((st == 0)) || fail "TREG_CAPTURE=$v with the .pth: status $st: $(tail -c 600 "$work/off.err")"
  out_has off "treg_capture imported: False"
  out_has off "listener: None"
  [[ ! -s $work/off.err ]] || fail "TREG_CAPTURE=$v: the .pth did something: $(head -c 600 "$work/off.err")"
done

# 6. Malformed listener arguments: the listener returns every time, the
# program goes on; a real entry before them still gets its line.
run garbage TRITON_CACHE_DIR="$work/nocache" -- -m treg_capture "$driver" fresh:"$A" --garbage
((st == 0)) || fail "garbage: status $st: $(tail -c 800 "$work/garbage.err")"
out_has garbage "garbage: the listener returned every time"
out_has garbage "compiled 1"
! grep -q Traceback "$work/garbage.err" || fail "garbage: a traceback: $(head -c 800 "$work/garbage.err")"
! grep -qv '^treg: ' "$work/garbage.err" || fail "garbage: a line not the capture's: $(head -c 800 "$work/garbage.err")"
grep '^treg: matmul_kernel gfx942: VGPR' "$work/garbage.err" >"$work/garbage_line.err" || true
check_lines garbage_line matmul_kernel:gfx942

# 7. A full queue: a tregc that hangs holds the worker; 70 new entries, the
# listener returns at once, one line says entries were dropped; at exit
# the wait gives up after TREG_CAPTURE_WAIT=1 s with one line, and the
# hung tregc is killed.
cat >"$work/hung-tregc" <<EOF
#!/bin/sh
echo \$\$ >>"$work/hung.pids"
exec sleep 60
EOF
chmod +x "$work/hung-tregc"
python3 - "$A" "$work/many" <<'PY'
import json, os, shutil, sys
src, dst = sys.argv[1], sys.argv[2]
for i in range(70):
    d = os.path.join(dst, "E%02d" % i)
    shutil.copytree(src, d)
    meta = json.load(open(os.path.join(d, "matmul_kernel.json")))
    meta["hash"] = "%064x" % (i + 1)
    json.dump(meta, open(os.path.join(d, "matmul_kernel.json"), "w"))
PY
many=()
for ((i = 0; i < 70; i++)); do many+=("fresh:$(printf '%s/E%02d' "$work/many" "$i")"); done
t0=$(date +%s%N)
run full TREG_TREGC="$work/hung-tregc" TREG_CAPTURE_WAIT=1 -- -m treg_capture "$driver" --timing "${many[@]}"
t1=$(date +%s%N)
((st == 0)) || fail "full queue: status $st: $(tail -c 600 "$work/full.err")"
out_has full "compiled 70"
slowest=$(sed -n 's/^slowest listener call: \([0-9]*\) us$/\1/p' "$work/full.out")
[[ -n $slowest ]] || fail "full queue: no timing: $(cat "$work/full.out")"
((slowest < 500000)) || fail "full queue: a listener call took $slowest us: it must only queue"
((t1 - t0 < 20000000000)) || fail "full queue: the program took $(((t1 - t0) / 1000000)) ms with TREG_CAPTURE_WAIT=1"
[[ $(grep -c 'upload queue is full (64 entries waiting)' "$work/full.err") == 1 ]] ||
  fail "full queue: not one drop line: $(head -c 800 "$work/full.err")"
grep -qE '^treg: gave up waiting after 1 s \(TREG_CAPTURE_WAIT\) with 6[45] uploads not done$' "$work/full.err" ||
  fail "full queue: no give-up line for 64 or 65 uploads: $(head -c 800 "$work/full.err")"
[[ $(grep -c '' "$work/full.err") == 2 ]] || fail "full queue: other lines: $(head -c 800 "$work/full.err")"
[[ $(grep -c '' "$work/hung.pids") == 1 ]] || fail "full queue: $(grep -c '' "$work/hung.pids") tregc runs, wanted 1"
hung=$(cat "$work/hung.pids")
hung_gone() { ! kill -0 "$hung" 2>/dev/null; }
wait_for 5 hung_gone || fail "full queue: the hung tregc ($hung) was left running"

# one_failure NAME WHAT ERE: NAME's stderr is one line, matching ERE.
one_failure() {
  if [[ $(grep -c '' "$work/$1.err") != 1 ]] || ! grep -qE "$3" "$work/$1.err"; then
    fail "$2: not one failure line: $(head -c 800 "$work/$1.err")"
  fi
}

# 8. tregc missing: one failure line, the program's output intact.
mkdir -p "$work/nobin"
run notregc PATH="$work/nobin" TREG_TREGC= -- -m treg_capture "$driver" fresh:"$A" fresh:"$B"
((st == 0)) || fail "no tregc: status $st: $(tail -c 600 "$work/notregc.err")"
out_has notregc "compiled 2"
one_failure notregc "no tregc" \
  '^treg: could not send matmul_kernel \(.*\): tregc not found \(set TREG_TREGC, or put tregc on PATH\); later failures are not reported$'

# 9. The server down: exit 0, output intact, one line with tregc's own.
stop_tregd
run down -- -m treg_capture "$driver" --exit 0 fresh:"$A" fresh:"$B" fresh:"$C"
((st == 0)) || fail "server down: status $st: $(tail -c 600 "$work/down.err")"
out_has down "compiled 3"
one_failure down "server down" \
  "^treg: could not send [a-z_]+ \(.*\): tregc: cannot connect to 127\.0\.0\.1:$port: .*; later failures are not reported$"

echo "$prog: PASS"

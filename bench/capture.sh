#!/usr/bin/env bash
# What client/triton/treg_capture.py (Triton's compilation listener) costs
# the user's process, per compiled kernel, with the stand-in triton package
# of tests/cli/triton_stub and bench/capture_bench.py doing the measuring:
#   .pth     the .pth line at every interpreter start when TREG_CAPTURE is
#            unset (us, in process), and `python3 -c pass` with and without
#            the .pth in the user site (ms, best of 40 starts each)
#   listener the call compile() makes (reading knobs.compilation.listener
#            and calling it) per kernel: an empty listener, ours on a new
#            entry (queued), on an entry already seen, and chained to the
#            program's own listener; the worker held by a tregc that hangs,
#            so that only the calls are timed.  Target: a few us, nothing
#            next to a compile (tens of ms and up)
#   worker   every entry of the corpus (folders with a .hsaco and a .json)
#            through the listener to a real tregd on loopback, waiting for
#            every line: the process CPU time (all its threads, not the
#            tregc children) less the main thread's, per kernel, i.e. what
#            the worker thread takes from the user's process; the tregc
#            children's CPU and the wall time per kernel beside it.  Twice:
#            "fresh" (the server analyzes each) and "stored" (it has them)
#
#   bench/capture.sh [CORPUS_DIR]   (default: ../shared/corpus next to the repo)
#
# Builds nothing: tregc and tregd are TREGC and TREGD, else build-bench/'s,
# else build/'s (the figures are the Python side's; the binaries only
# change the wall times).  A throwaway CA, token and store (tests/cli/
# lib.sh's start_tregd), removed at exit.  Figures are reported, not
# asserted: the exit status is 0 whenever the bench ran.  CTest does not
# run it.
set -euo pipefail

# shellcheck source=bench/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
bench_corpus "${1:-}"
prog=bench-capture
TREG_SOURCE_ROOT=$root
# shellcheck source=tests/cli/lib.sh
. "$root/tests/cli/lib.sh"
for b in build-bench build; do
    if [[ -z ${TREGC:-} && -x $root/$b/client/tregc ]]; then TREGC=$root/$b/client/tregc; fi
    if [[ -z ${TREGD:-} && -x $root/$b/server/tregd ]]; then TREGD=$root/$b/server/tregd; fi
done
if [[ ! -x ${TREGC:-} || ! -x ${TREGD:-} ]]; then
    echo "bench: tregc/tregd not built (set TREGC and TREGD, or build build/); skipped"
    exit 0
fi
for tool in python3 openssl; do
    command -v "$tool" >/dev/null || { echo "bench: $tool not found" >&2; exit 1; }
done
python=$(python3 -c 'import sys; print(sys.executable)')
bench_py=$root/bench/capture_bench.py
export PYTHONPATH=$root/tests/cli/triton_stub:$root/client/triton
unset TREG_CAPTURE TREG_CAPTURE_QUEUE TREG_CAPTURE_WAIT
export PYTHONDONTWRITEBYTECODE=1 # no __pycache__ in the source tree

# The corpus's cache entries: folders of a .hsaco with a .json beside it.
entries=()
while IFS= read -r d; do
    compgen -G "$d/*.json" >/dev/null && entries+=("$d")
done < <(printf '%s\n' "${files[@]}" | xargs -d '\n' dirname -- | LC_ALL=C sort -u)
if ((${#entries[@]} == 0)); then
    echo "bench: no Triton cache entries (.hsaco with .json) under $corpus; skipped"
    exit 0
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/treg-capture-bench.XXXXXX")
cleanup() {
    [[ -z ${server_pid:-} ]] || kill -KILL -- "-$server_pid" 2>/dev/null || true
    rm -rf "$work"
}
start_tregd "$work"
trap cleanup EXIT
field() { sed -n "s/.*\b$1=\([^ ]*\).*/\1/p" <<<"$2"; }

echo "== .pth, TREG_CAPTURE unset ($("$python" --version 2>&1))"
pth=$("$python" "$bench_py" pth "$root/client/triton/treg_capture.pth")
usersite=$(PYTHONUSERBASE=$work/with "$python" -c 'import site; print(site.getusersitepackages())')
mkdir -p "$usersite" "$work/without"
cp "$root/client/triton/treg_capture.py" "$root/client/triton/treg_capture.pth" "$usersite/"
start=$(PYTHONPATH='' "$python" "$bench_py" startup "$work/with" "$work/without")
printf '  the line: %s us per start; python3 -c pass: %s ms with the .pth, %s ms without\n' \
    "$(field pth_us "$pth")" "$(field with_ms "$start")" "$(field without_ms "$start")"

echo "== listener call per kernel (10000 calls, best of 3 rounds)"
cat >"$work/hung-tregc" <<EOF
#!/bin/sh
: >"$work/hung.ready"
exec sleep 120
EOF
chmod +x "$work/hung-tregc"
q=$(TREG_TREGC=$work/hung-tregc TREG_CAPTURE_QUEUE=100000 TREG_CAPTURE_WAIT=0 \
    "$python" "$bench_py" enqueue 10000 "$work/hung.ready")
empty=$(field empty_us "$q")
for k in new seen chained; do
    v=$(field "${k}_us" "$q")
    printf '  %-8s %7.2f us  (%5.1fx an empty listener, %.2f us)\n' "$k" "$v" \
        "$(awk -v a="$v" -v b="$empty" 'BEGIN { print a / b }')" "$empty"
done

echo "== worker, per kernel, against tregd on loopback (${#entries[@]} entries of $corpus;"
echo "   lines: one per kernel hash, folders of the same hash count once)"
export TREG_SERVER=https://127.0.0.1:$port TREG_CA=$tregd_dir/certs/ca.pem TREG_TOKEN=$tregd_token \
    TREG_CONFIG=/dev/null TREG_TREGC=$TREGC
printf '  %-7s %8s %14s %13s %13s %10s\n' run lines worker_cpu_us main_cpu_us tregc_cpu_us wall_ms
for run in fresh stored; do
    out=$(TREG_CAPTURE_QUEUE=100000 "$python" "$bench_py" upload "${entries[@]}")
    first=$(head -n1 <<<"$out")
    printf '  %-7s %4s/%-3s %14s %13s %13s %10s\n' "$run" "$(field lines "$first")" "$(field kernels "$first")" \
        "$(field worker_cpu_us "$first")" "$(field main_cpu_us "$first")" "$(field tregc_cpu_us "$first")" \
        "$(field wall_ms "$first")"
    tail -n +2 <<<"$out" | head -n 5
done
stop_tregd

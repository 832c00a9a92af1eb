#!/usr/bin/env bash
# The one-file tregc against the dynamic one, same script, same server:
# start-to-upload, from exec to exit, of `tregc upload ENTRY` for an entry
# the server already has (exec, loading, name and CA lookup, the TLS
# handshake, the GET that finds the report), and of `tregc --version`
# (exec and loading alone), each the median of N runs taken in turn
# (static, dynamic, static, ...); and the two files' sizes.  Prints the
# static/dynamic ratios.
#
#   bench/tregc_static.sh [N]     (default 40 runs each)
#
# Builds (Release, build-bench/) tregd, tregc and the static tregc.  Figures
# are reported, not asserted; CTest does not run it.
set -euo pipefail
# shellcheck source=bench/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
n=${1:-40}
build=$root/build-bench
cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$build" -j"$(nproc)" --target tregd tregc tregc_static >/dev/null 2>&1
dyn=$build/client/tregc
sta=$build/tregc-static/client/tregc
entry=$root/tests/data/triton-cache/3EB5ITNVJJEASVGOOFNBKD6OBZIVKCNTM3VGAWZY5Z3USBCVGDFQ
bench_server_dir static-bench
bench_tregd "$build/server/tregd" "$work/store" "$work/tregd.log" --workers 1
export TREG_SERVER=https://127.0.0.1:$port TREG_TOKEN=$token TREG_CA=$work/certs/ca.pem
"$dyn" upload "$entry" >/dev/null # stored: every timed upload finds it

# ns BIN ARGS...: one run's wall time in nanoseconds
ns() {
    local t0 t1
    t0=$(date +%s%N)
    "$@" >/dev/null 2>&1 || { echo "bench: $* failed" >&2; exit 1; }
    t1=$(date +%s%N)
    echo $((t1 - t0))
}
median() { sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }

for what in version upload; do
    : >"$work/static.$what"
    : >"$work/dynamic.$what"
    for ((i = 0; i < n; i++)); do
        if [[ $what == version ]]; then
            ns "$sta" --version >>"$work/static.$what"
            ns "$dyn" --version >>"$work/dynamic.$what"
        else
            ns "$sta" upload "$entry" >>"$work/static.$what"
            ns "$dyn" upload "$entry" >>"$work/dynamic.$what"
        fi
    done
done
s_size=$(stat -c %s "$sta") d_size=$(stat -c %s "$dyn")
d_libs=$(ldd "$dyn" | grep -c "=>" || true)
printf 'tregc static: %d bytes, one file; dynamic: %d bytes + %d shared libraries\n' \
    "$s_size" "$d_size" "$d_libs"
for what in version upload; do
    s=$(median <"$work/static.$what") d=$(median <"$work/dynamic.$what")
    awk -v w="$what" -v s="$s" -v d="$d" -v n="$n" 'BEGIN {
        printf "%-8s median of %d: static %.2f ms, dynamic %.2f ms, static/dynamic %.2f\n",
            w, n, s / 1e6, d / 1e6, s / d }'
done

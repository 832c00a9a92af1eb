#!/usr/bin/env bash
# The long-branch sweep: tests/cli/test_mir_live.sh (treg-analyze's
# per-instruction VGPR/AGPR/SGPR counts against LLVM's post-RA liveness, by
# the oracle tests/oracle/mir_live.py) with TREG_MIR_LONG_BRANCH=all.  CTest
# runs the corpus at each entry's own arch plus a fixed sample of long-branch
# builds; this runs the corpus plus every distinct .llir of the corpus at
# every one of gfx906, gfx908, gfx90a, gfx942, gfx950 and gfx1100, built with
# llc-22 -amdgpu-s-branch-bits=5 so that branch relaxation emits
# s_getpc_b64/s_add_u32/s_addc_u32/s_setpc_b64 long branches.  Matmul and
# attention kernels with MFMA intrinsics cannot be built for gfx906 or gfx1100
# (nor some gfx942/gfx950 intrinsics for older targets): a build that llc
# rejects ("Cannot select", an intrinsic the target lacks) at an arch other
# than the entry's own is skipped and counted in the table's "skipped" column.
# Prints the test's tables: per target, kernels, aligned rows, the share of
# rows whose hwpe counts all equal the oracle's and per class, peak
# mismatches, undefined reads; then each failing kernel with its worst row.
#
#   bench/mir_live_sweep.sh [TREG_ANALYZE]   (default: build/tools/treg-analyze)
#
# The test's environment applies: TREG_MIR_JOBS (default nproc),
# TREG_MIR_FILTER (ERE on the entry path), TREG_CORPUS (default
# ../shared/corpus next to the checkout), TREG_LLC_CACHE (llc's outputs are
# cached there, so a second sweep runs llc only for what changed),
# TREG_MIR_MIN_PCT, TREG_MIR_MIN_PCT_GFX1100, TREG_MIR_KEEP=1.
# 88 corpus kernels + 402 long-branch builds (67 distinct .llir files x 6
# arches), of which llc rejects 188; measured with TREG_MIR_JOBS=1, the corpus
# set's llc outputs already cached, on a machine shared with another job:
# 1,860 s (31 min).
# Figures are reported, not asserted: the exit status is 0 whenever the sweep
# ran, whatever the agreement (the last line says whether the test's
# thresholds were met).  CTest does not run it.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
treg=${1:-$root/build/tools/treg-analyze}
if [[ ! -x $treg ]]; then
    echo "bench: treg-analyze not found or not executable at $treg (build it, or pass its path)" >&2
    exit 1
fi
treg=$(cd "$(dirname "$treg")" && pwd)/$(basename "$treg")

start=$(date +%s)
rc=0
TREG_ANALYZE=$treg TREG_MIR_LONG_BRANCH=all bash "$root/tests/cli/test_mir_live.sh" || rc=$?
secs=$(($(date +%s) - start))
case $rc in
0) echo "bench: mir_live_sweep: every threshold met (${secs}s)" ;;
1) echo "bench: mir_live_sweep: thresholds MISSED, failures listed above (${secs}s)" ;;
77) echo "bench: mir_live_sweep: skipped (the reason is above)" ;;
*)
    echo "bench: mir_live_sweep: test_mir_live.sh exited $rc (${secs}s)" >&2
    exit "$rc"
    ;;
esac
exit 0

#!/usr/bin/env bash
# What placing runtime PC samples costs (treg-analyze --samples): a profile
# of N samples in rocprofv3's stochastic JSON layout (and the same samples
# in a rocpd database) for the real gfx90a matmul of tests/data, each
# sample on one of its instructions with llvm-objdump-22's text (the
# writers of tests/cli/samples_lib.sh, the records repeated to N).
#   json    treg-analyze --format json --samples FILE, less the same run
#           without samples (the analysis): the profile read, summed and
#           joined, in samples per second; against python3's
#           json.load(open(FILE)) of the same file (the reading alone, no
#           join): the ratio treg / python
#   rocpd   the same samples from the rocpd database (SQLite sums them)
#   memory  the peak RSS of each (GNU time), for the JSON's tree
#
#   bench/samples.sh [N]    (default 300000 samples, about 110 MB of JSON)
#
# Builds nothing: treg-analyze is TREG_ANALYZE, else build-bench/'s, else
# build/'s.  Best of 3 wall times each.  Figures are reported, not
# asserted; CTest does not run it.
set -euo pipefail

# shellcheck source=bench/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
n=${1:-300000}
for b in build-bench build; do
    if [[ -z ${TREG_ANALYZE:-} && -x $root/$b/tools/treg-analyze ]]; then
        TREG_ANALYZE=$root/$b/tools/treg-analyze
    fi
done
[[ -x ${TREG_ANALYZE:-} ]] || { echo "bench-samples: no treg-analyze built; skipped"; exit 0; }
command -v llvm-objdump-22 >/dev/null || { echo "bench-samples: no llvm-objdump-22; skipped"; exit 0; }
[[ -x /usr/bin/time ]] || { echo "bench-samples: no /usr/bin/time (GNU time); skipped"; exit 0; }
work=$(mktemp -d "${TMPDIR:-/tmp}/treg-bench-samples.XXXXXX")
trap 'rm -rf "$work"' EXIT
TREG_SOURCE_ROOT=$root
fail() { echo "bench-samples: $*" >&2; exit 1; }
skip() { echo "bench-samples: $*; skipped"; exit 0; }
# shellcheck source=tests/cli/samples_lib.sh
. "$root/tests/cli/samples_lib.sh"

python3 "$work/write.py" "$work/seed.json" stochastic
python3 - "$work/seed.json" "$work/big.json" "$n" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
recs = d["rocprofiler-sdk-tool"][0]["buffer_records"]["pc_sample_stochastic"]
n = int(sys.argv[3])
d["rocprofiler-sdk-tool"][0]["buffer_records"]["pc_sample_stochastic"] = [recs[i % len(recs)] for i in range(n)]
json.dump(d, open(sys.argv[2], "w"))
PY
python3 "$work/to_rocpd.py" "$work/big.json" "$work/big.db"
A=$TREG_ANALYZE
"$A" --format json --samples "$work/big.json" "$hsaco" >/dev/null 2>"$work/check.err" ||
    fail "treg-analyze --samples: $(cat "$work/check.err")"

base=$(best_of "$A" --format json "$hsaco")
with_json=$(best_of "$A" --format json --samples "$work/big.json" "$hsaco")
with_db=$(best_of "$A" --format json --samples "$work/big.db" "$hsaco")
py=$(best_of python3 -c 'import json, sys; json.load(open(sys.argv[1]))' "$work/big.json")
rss() { /usr/bin/time -f %M "$@" 2>&1 >/dev/null | tail -n1; }
rss_base=$(rss "$A" --format json -j 1 "$hsaco")
rss_json=$(rss "$A" --format json -j 1 --samples "$work/big.json" "$hsaco")
rss_db=$(rss "$A" --format json -j 1 --samples "$work/big.db" "$hsaco")
rss_py=$(rss python3 -c 'import json, sys; json.load(open(sys.argv[1]))' "$work/big.json")

awk -v n="$n" -v mb="$(stat -c %s "$work/big.json")" -v dbmb="$(stat -c %s "$work/big.db")" \
    -v base="$base" -v j="$with_json" -v d="$with_db" -v py="$py" \
    -v rb="$rss_base" -v rj="$rss_json" -v rd="$rss_db" -v rp="$rss_py" 'BEGIN {
    tj = j - base; td = d - base
    printf "bench-samples: %d samples of a gfx90a matmul (2001 instructions): JSON %.1f MB, rocpd %.1f MB\n", n, mb / 1e6, dbmb / 1e6
    printf "  analysis alone          %7.3f s\n", base
    printf "  JSON read + join        %7.3f s  %9.0f samples/s  (peak RSS %d MB; the analysis alone %d MB)\n", tj, n / tj, rj / 1024, rb / 1024
    printf "  python3 json.load       %7.3f s  %9.0f samples/s  (peak RSS %d MB; reading only)\n", py, n / py, rp / 1024
    printf "  treg / python           %7.2f\n", tj / py
    printf "  rocpd read + join       %7.3f s  %9.0f samples/s  (peak RSS %d MB)\n", td, n / td, rd / 1024
}'

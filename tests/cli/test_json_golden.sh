#!/usr/bin/env bash
# treg-analyze's JSON against the golden documents in tests/golden/json/, field
# by field: the report's schema and its figures stay what they were while the
# code that writes them changes.
#
# Inputs: the repository's tests/data (whatever $TREG_CORPUS names: the
# goldens are of these entries): every cache entry without rows, and three
# entries (softmax gfx906, add gfx950, matmul gfx90a) with their per-instruction
# rows.  The tool runs inside tests/data on relative paths, so the documents
# do not depend on where the checkout is.
# Asserts:
#   corpus.norows.json.gz equals `treg-analyze --format json --no-rows .`;
#   rows.json.gz equals `treg-analyze --format json` on the three entries;
#   each difference is printed with its path (tests/support/json_compare.py).
# llvm_version (the installed LLVM's patch release) is left out of the
# comparison; another LLVM major decodes other targets and other code, so the
# test skips there.  UPDATE_GOLDEN=1 ctest -R json_golden rewrites the files.
#
# Environment (set by CTest, see tests/CMakeLists.txt): TREG_ANALYZE,
# TREG_SOURCE_ROOT.
set -euo pipefail

prog=test_json_golden
# shellcheck source=tests/cli/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

require_analyzer
command -v python3 >/dev/null 2>&1 || skip "python3 is needed to compare JSON"
data=$TREG_SOURCE_ROOT/tests/data
[[ -d $data/triton-cache ]] || fail "no cache entries under $data"
golden=$TREG_SOURCE_ROOT/tests/golden/json
compare=$TREG_SOURCE_ROOT/tests/support/json_compare.py
update=${UPDATE_GOLDEN:-0}

work=$(mktemp -d "${TMPDIR:-/tmp}/treg-json.XXXXXX")
trap 'rm -rf "$work"' EXIT

cd "$data"
rows_entries=(gfx906-llc22/MD4F523L5PVMIKLU6IIZMAM7* triton-cache-targets/YWQ22HCUUZSUP7VC*
  triton-cache/SUJBNLZWAZC7NO5J3T3LVKCK*)
for e in "${rows_entries[@]}"; do
  [[ -d $e ]] || fail "$data has no entry $e (tests/data/curate.sh keeps it)"
done
# The linked LLVM first: another major decodes other targets (LLVM 19 no
# gfx950), so its JSON is another document.
rc_norows=0 rc_rows=0
"$TREG_ANALYZE" --format json --no-rows . >"$work/corpus.norows.json" 2>"$work/err.norows" ||
  rc_norows=$?
"$TREG_ANALYZE" --format json "${rows_entries[@]}" >"$work/rows.json" 2>"$work/err.rows" || rc_rows=$?
major=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["reports"][0]["llvm_version"].split(".")[0])' \
  "$work/rows.json" 2>/dev/null) || fail "treg-analyze printed no JSON report: $(tail -n2 "$work/err.rows")"
want=$(cat "$golden/llvm-major")
if [[ $update != 1 && $major != "$want" ]]; then
  skip "the goldens were written with LLVM $want; this build links LLVM $major, which decodes other targets"
fi
((rc_norows == 0)) || fail "treg-analyze --no-rows on $data failed: $(tail -n2 "$work/err.norows")"
((rc_rows == 0)) || fail "treg-analyze on ${rows_entries[*]} failed: $(tail -n2 "$work/err.rows")"
if [[ $update == 1 ]]; then
  mkdir -p "$golden"
  for f in corpus.norows rows; do
    gzip -9n <"$work/$f.json" >"$golden/$f.json.gz"
  done
  echo "$major" >"$golden/llvm-major"
  echo "$prog: rewrote $golden (LLVM $major)"
  exit 0
fi

bad=0
for f in corpus.norows rows; do
  if ! python3 "$compare" --ignore llvm_version "$golden/$f.json.gz" "$work/$f.json" >"$work/$f.diff"; then
    echo "$prog: $f.json differs from $golden/$f.json.gz:" >&2
    sed 's/^/  /' "$work/$f.diff" >&2
    bad=1
  fi
done
((bad == 0)) || fail "the JSON changed (UPDATE_GOLDEN=1 rewrites the goldens when the change is meant)"
kernels=$(python3 -c 'import json,sys; print(sum(len(r["kernels"]) for r in json.load(open(sys.argv[1]))["reports"]))' \
  "$work/corpus.norows.json")
echo "$prog: ok: $kernels kernels without rows and 3 with rows equal the goldens field by field"

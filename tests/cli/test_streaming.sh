#!/usr/bin/env bash
# Whole caches through treg-analyze: the JSON is one document written kernel
# by kernel, memory does not grow with the number of files, analyses run in
# a few long-lived child processes (one per -j, not one per file), the
# output keeps the input's order whatever -j, and a code object that
# crashes LLVM costs its own line of error and one new child, nothing else.
#
# Caches are assembled here from the fixtures ($TREG_FIXTURES): each entry a
# folder with a code object (and its .json and .amdgcn when the fixture has
# them), as Triton lays out ~/.triton/cache.  Memory is the peak resident set
# of the process tree (GNU time); the process count is strace's.  Under the
# sanitizers (TREG_SANITIZE=ON) the resident-set figures are the sanitizer's
# and only their growth is checked.
set -euo pipefail

prog=test_streaming
# shellcheck source=tests/cli/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

require_analyzer
command -v python3 >/dev/null 2>&1 || skip "python3 is needed to read treg-analyze's JSON"
[[ -x /usr/bin/time ]] || skip "GNU time (/usr/bin/time, Debian's time) is needed for the memory checks"
command -v strace >/dev/null 2>&1 || skip "strace is needed to count treg-analyze's processes"
fx=${TREG_FIXTURES:-}
[[ -n $fx && -f $fx/gfx906/loop_kernel.hsaco ]] ||
  skip "no fixtures at ${fx:-(TREG_FIXTURES unset)}; run tests/fixtures/make-fixtures.sh DIR"
A=$TREG_ANALYZE
work=$(mktemp -d "${TMPDIR:-/tmp}/treg-streaming.XXXXXX")
trap '[[ -n ${KEEP:-} ]] || rm -rf "$work"' EXIT

mapfile -t objs < <(find "$fx/gfx906" "$fx/gfx90a" "$fx/gfx942" "$fx/triton" -name '*.hsaco' |
  LC_ALL=C sort)
((${#objs[@]} >= 8)) || fail "only ${#objs[@]} fixture code objects"

# cache DIR N: N entries, the fixtures round robin.
cache() {
  local dir=$1 n=$2 i src stem e
  mkdir -p "$dir"
  for ((i = 0; i < n; i++)); do
    src=${objs[i % ${#objs[@]}]}
    stem=${src%.hsaco}
    e=$dir/$(printf 'E%05d' "$i")
    mkdir "$e"
    ln "$src" "$e/" 2>/dev/null || cp "$src" "$e/"
    for s in json amdgcn; do
      [[ -f $stem.$s ]] && { ln "$stem.$s" "$e/" 2>/dev/null || cp "$stem.$s" "$e/"; }
    done
  done
  return 0
}

# Under ASan, freed memory waits in a quarantine (256 MiB) before reuse:
# without one, the resident set is the program's.
quiet_asan=${ASAN_OPTIONS:+$ASAN_OPTIONS:}quarantine_size_mb=0

# peak_kib OUT ARGS...: runs treg-analyze, stdout to OUT; prints its peak KiB.
peak_kib() {
  local out=$1
  shift
  ASAN_OPTIONS=$quiet_asan /usr/bin/time -f '%M' -o "$out.time" "$A" "$@" >"$out" 2>"$out.err" ||
    fail "treg-analyze $* failed: $(head -c 400 "$out.err")"
  tail -n 1 "$out.time"
}

# reports FILE: report count, error count and row count of a JSON document.
reports() {
  python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
print(len(d["reports"]), len(d["errors"]),
      sum(len(k["rows"]) for r in d["reports"] for k in r["kernels"]))' "$1"
}

# --- memory: flat in the number of files ------------------------------------------
small=$work/small big=$work/big
cache "$small" "${#objs[@]}"
cache "$big" $((10 * ${#objs[@]}))
k_small=$(peak_kib "$work/small.json" --format json "$small")
k_big=$(peak_kib "$work/big.json" --format json "$big")
read -r n_small e_small rows_small < <(reports "$work/small.json")
read -r n_big e_big rows_big < <(reports "$work/big.json")
((n_small == ${#objs[@]} && e_small == 0)) || fail "small cache: $n_small reports, $e_small errors"
((n_big == 10 * ${#objs[@]} && e_big == 0)) || fail "big cache: $n_big reports, $e_big errors"
((rows_big == 10 * rows_small)) || fail "big cache: $rows_big rows, not 10 x $rows_small"
growth=$(((k_big - k_small) / 1024))
((growth < 16)) ||
  fail "peak memory grew by $growth MiB from ${#objs[@]} to $n_big files ($k_small -> $k_big KiB)"
if [[ ${TREG_SANITIZE:-OFF} != ON ]]; then
  ((k_big < 256 * 1024)) || fail "peak memory $((k_big / 1024)) MiB for $n_big files (cap 256 MiB)"
fi
echo "$prog: ok: $n_small files peak $((k_small / 1024)) MiB, $n_big files $((k_big / 1024)) MiB ($rows_big rows)"

# --- the same document whatever -j --------------------------------------------------
for j in 1 3; do
  "$A" -j"$j" --format json "$big" >"$work/j$j.json" 2>"$work/j$j.err" || fail "-j$j failed"
  cmp -s "$work/j$j.json" "$work/big.json" || fail "-j$j wrote another document than the default"
done
"$A" -j1 "$small" >"$work/t1.txt" 2>&1 || fail "text -j1 failed"
"$A" -j3 "$small" >"$work/t3.txt" 2>&1 || fail "text -j3 failed"
cmp -s "$work/t1.txt" "$work/t3.txt" || fail "the text output depends on -j"
echo "$prog: ok: JSON and text identical for -j1, -j2 (default here or per core) and -j3"

# children COMMAND...: the processes COMMAND forked (strace: clones that
# signal their parent at exit, as fork's do; threads and LeakSanitizer's
# tracer are not counted).
children() {
  # LeakSanitizer cannot run under ptrace: no leak check in these runs
  ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0 strace -f -qq -e trace=clone,clone3,fork,vfork -o "$work/strace" "$@" >"$work/st.out" \
    2>"$work/st.err" || true
  grep -E '^[0-9]+ +((clone|clone3)\(.*SIGCHLD|v?fork\()' "$work/strace" |
    grep -Ec '= [0-9]+$' || true
}

n=$(children "$A" -j2 --format json "$big")
((n == 2)) || fail "-j2 over $n_big files forked $n processes, not 2"
echo "$prog: ok: -j2 over $n_big files: 2 child processes"

# --- a crash costs one line and one child --------------------------------------------
mfma=$fx/gfx942/mfma_kernel.hsaco
if [[ -f $mfma ]] && command -v llvm-objdump-22 >/dev/null 2>&1 && ((${TREG_LLVM_MAJOR:-22} >= 22)); then
  at=$(first_insn_addr "$mfma" gfx942 v_mfma)
  [[ -n $at ]] || fail "no v_mfma in $mfma"
  crashing=$work/crashing
  cache "$crashing" 12
  mkdir "$crashing/E00005b"
  # A gfx942 MFMA with a literal src2 segfaults LLVM 22 (llvm-objdump-22 too).
  patch "$mfma" "$crashing/E00005b/mfma_kernel.hsaco" "$(text_write "$at" "(0xd3bf8000, 0x03ff2d32)")"
  export ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}handle_segv=0
  n=$(children "$A" -j2 --format json "$crashing")
  cp "$work/st.out" "$work/crash.json"
  # 2, and 1 more when the one that died is needed again (it is replaced lazily)
  ((n >= 2 && n <= 3)) || fail "a crash among 13 files: $n processes forked, not 2 or 3"
  read -r nr ne _ < <(reports "$work/crash.json")
  ((nr == 12 && ne == 1)) || fail "a crash among 13 files: $nr reports and $ne errors, not 12 and 1"
  python3 - "$work/crash.json" <<'PY' || fail "the crash's error or the order of reports is wrong"
import json, sys
d = json.load(open(sys.argv[1]))
e = d["errors"][0]
assert e["file"].endswith("E00005b/mfma_kernel.hsaco"), e
assert "the analysis crashed" in e["message"], e
files = [r["file"] for r in d["reports"]]
assert files == sorted(files), files
PY
  mapfile -t lines <"$work/st.err"
  if ((${#lines[@]} != 1)) || [[ ${lines[0]} != *"E00005b/mfma_kernel.hsaco: the analysis crashed"* ]]; then
    fail "stderr of the crashing run: $(cat "$work/st.err")"
  fi
  echo "$prog: ok: a crashing code object among 13: 1 error line, 12 reports in order, $n processes"
else
  echo "$prog: note: no LLVM-crashing input here (needs LLVM 22 and $mfma); crash part skipped"
fi
# --- tregc: the same document, and the same flat memory, from a server ------------------
if [[ -x ${TREGC:-} && -x ${TREGD:-} ]] && command -v openssl >/dev/null 2>&1; then
  start_tregd "$work"
  trap '[[ -z $server_pid ]] || kill -KILL -- "-$server_pid" 2>/dev/null || true
        [[ -n ${KEEP:-} ]] || rm -rf "$work"' EXIT
  # tregc_k OUT DIR: peak KiB of tregc uploading DIR with --format json.
  tregc_k() {
    ASAN_OPTIONS=$quiet_asan /usr/bin/time -f '%M' -o "$1.time" timeout 300 "$TREGC" --server "https://127.0.0.1:$port" \
      --ca "$tregd_dir/certs/ca.pem" --token "$tregd_token" upload --format json "$2" \
      >"$1" 2>"$1.err" || fail "tregc upload $2 failed: $(head -c 400 "$1.err")"
    tail -n 1 "$1.time"
  }
  c_small=$(tregc_k "$work/c-small.json" "$small")
  c_big=$(tregc_k "$work/c-big.json" "$big")
  read -r m e r < <(reports "$work/c-big.json")
  ((m == n_big && e == 0 && r == rows_big)) ||
    fail "tregc upload of $n_big entries: $m reports, $e errors, $r rows (treg-analyze: $rows_big rows)"
  growth=$(((c_big - c_small) / 1024))
  ((growth < 16)) || fail "tregc's peak memory grew by $growth MiB ($c_small -> $c_big KiB)"
  # a folder in text mode: one tally line, not a summary per code object
  tregc_to upload "$small" >"$work/tally.txt" 2>"$work/tally.err" || fail "text upload: $(head -3 "$work/tally.err")"
  grep -qx "$n_small code objects: 0 analyzed, $n_small already stored, 0 failed; tregc list shows them, --summary prints each" \
    "$work/tally.txt" || fail "no tally: $(head -3 "$work/tally.txt")"
  if grep -q "not analyzed again" "$work/tally.txt"; then fail "summaries printed with the tally"; fi
  tregc_to upload --summary "$small" >"$work/each.txt" 2>&1 || fail "upload --summary"
  (($(grep -c "not analyzed again" "$work/each.txt") == n_small)) || fail "--summary: not one summary per code object"
  # the same cache as a site: a page per report, one index
  tregc_to upload --format html -o "$work/site/" "$small" >/dev/null 2>"$work/site.err" ||
    fail "tregc upload --format html -o DIR/: $(head -c 300 "$work/site.err")"
  pages=$(find "$work/site/kernels" -name '*.html' | wc -l)
  if ((pages != n_small)) || ! grep -q "$n_small kernels in" "$work/site/index.html"; then
    fail "tregc's site: $pages pages for $n_small entries"
  fi
  stop_tregd
  echo "$prog: ok: tregc upload -o DIR/: $pages pages and an index"
  echo "$prog: ok: tregc upload --format json: ${#objs[@]} entries peak $((c_small / 1024)) MiB," \
    "$n_big entries $((c_big / 1024)) MiB"
else
  echo "$prog: note: TREGC/TREGD not set: the tregc part is skipped"
fi
echo "$prog: ok"

#!/usr/bin/env bash
# Caches written by newer Triton (tests/data/triton-cache-newer, ORIGIN.md):
#   - TRITON_STORE_BINARY_ONLY (3.4+): an entry of .source, .hsaco, .json and
#     its group file only: the report equals, figure for figure, the full
#     entry's (tests/data/triton-cache), and says what it could not read;
#   - Triton 3.7.1's .json and Triton main's (schedule_hint "",
#     llvm_fn_attrs [], global_scratch_size/align, no "amdgpu-waves-per-eu"
#     in the .llir for waves_per_eu 0): read as they are, nothing invented;
#   - the what-if reads waves_per_eu 0 as no budget, whether the .llir says
#     "0, 0" (3.6 to 3.8) or nothing (main): the shipped row has no budget,
#     and both .llir build to the same budgets and registers;
#   - an "amdgpu-waves-per-eu" set through llvm_fn_attrs (3.8+; a code object
#     llc-22 builds here with it, as Triton applies it last) is the kernel's
#     budget: occupancy limited by it, the what-if's shipped row at it, the
#     text naming it; the same code object with llvm_fn_attrs [] is not;
#   - warp specialisation (3.7+): a .ttgir with ttg.total-num-warps and a
#     .json whose num_warps is that total: num_warps said as the layouts',
#     the total beside;
#   - tregc upload sends the three entries, and tregc watch takes each once
#     though their group files name the paths of the machine that compiled
#     them (/root/.triton/cache/...): children found by file name.
set -euo pipefail

prog=test_triton_newer
# shellcheck source=tests/cli/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
require_analyzer
command -v python3 >/dev/null 2>&1 || skip "python3 is needed to read the JSON"
data=$TREG_SOURCE_ROOT/tests/data
newer=$data/triton-cache-newer
binonly=$newer/3EB5ITNVJJEASVGOOFNBKD6OBZIVKCNTM3VGAWZY5Z3USBCVGDFQ
v371=$newer/MD4F523L5PVMIKLU6IIZMAM7ASER47Q6J6JG6ABYSLCTRQZ3BBMA
vmain=$newer/BPPSWMTVKUWIJ546MIGZSHRISPX6AHXVGWZV7HYEYYLWZ6ZRQSQQ
work=$(mktemp -d "${TMPDIR:-/tmp}/treg-newer.XXXXXX")
trap 'rm -rf "$work"' EXIT
A=$TREG_ANALYZE
# (a dry run of the JSON for one report: python3 - FILE... <<'PY')
check() { python3 - "$@" || fail "see above"; }

# --- binary only ---------------------------------------------------------------
"$A" --format json --no-rows "$binonly/matmul_kernel.hsaco" >"$work/bin.json"
"$A" --format json --no-rows "$data/triton-cache/${binonly##*/}/matmul_kernel.hsaco" >"$work/full.json"
check "$work/bin.json" "$work/full.json" <<'PY'
import json, sys
b, f = (json.load(open(p))["reports"][0] for p in sys.argv[1:3])
assert b["triton"]["triton_version"] == "3.6.0", b["triton"]
kb, kf = b["kernels"][0], f["kernels"][0]
for key in ("vgpr", "agpr", "sgpr", "occupancy", "spill_instructions", "scratch_bytes", "loops"):
    assert kb.get(key) == kf.get(key), (key, kb.get(key), kf.get(key))
assert "no .ttgir" in kb["categories_note"], kb["categories_note"]
assert f["kernels"][0]["categories_source"] == "ttgir"
PY
echo "$prog: ok: a binary-only entry reports as its full entry does (categories from the machine code, said)"

# --- 3.7.1 and main's .json ------------------------------------------------------
"$A" --format json --no-rows "$v371/softmax_kernel.hsaco" >"$work/371.json"
"$A" --format json --no-rows "$vmain/add_kernel.hsaco" >"$work/main.json"
"$A" "$vmain/add_kernel.hsaco" >"$work/main.txt"
check "$work/371.json" "$work/main.json" <<'PY'
import json, sys
t, m = (json.load(open(p))["reports"][0]["triton"] for p in sys.argv[1:3])
assert t["triton_version"] == "3.7.1" and t["num_warps"] == 8 and t["total_warps"] == 0, t
assert t["global_scratch_size"] == 0 and "llvm_fn_attrs" not in t, t
assert m["triton_version"] == "3.8.0" and m["global_scratch_size"] == 0 and "llvm_fn_attrs" not in m, m
assert m["waves_per_eu"] == 0, m
PY
! grep -Eq "llvm_fn_attrs|global scratch|warp specialisation" "$work/main.txt" ||
  fail "main's defaults said as if set: $(grep -E "llvm_fn_attrs|global scratch|warp spec" "$work/main.txt")"
echo "$prog: ok: 3.7.1's and main's .json read (global_scratch_size 0, llvm_fn_attrs [] not said)"

# --- the what-if: waves_per_eu 0 is no budget, "0, 0" or no attribute -------------
if ((${TREG_LLVM_MAJOR:-22} < 22)); then
  echo "$prog: note: LLVM $TREG_LLVM_MAJOR cannot read Triton's LLVM 22 IR: the what-if part is not run"
elif "$A" --what-if --format json --no-rows "$vmain/add_kernel.hsaco" >"$work/wi-main.json" 2>"$work/wi.err"; then
  "$A" --what-if --format json --no-rows "$data/triton-cache/${vmain##*/}/add_kernel.hsaco" \
    >"$work/wi-36.json" 2>>"$work/wi.err" || fail "what-if of the 3.6 add_kernel: $(cat "$work/wi.err")"
  "$A" --what-if "$vmain/add_kernel.hsaco" >"$work/wi-main.txt"
  check "$work/wi-main.json" "$work/wi-36.json" <<'PY'
import json, sys
rows = [json.load(open(p))["reports"][0]["kernels"][0]["what_if"] for p in sys.argv[1:3]]
for r in rows:
    assert r[0]["kind"] == "shipped" and r[0]["waves_per_eu"] == 0, r[0]
    assert r[1]["kind"] == "recompiled" and r[1]["compiled"], r[1]
    assert r[1]["vgpr"] == r[0]["vgpr"], (r[0]["vgpr"], r[1]["vgpr"])
fig = lambda r: [(x["kind"], x["waves_per_eu"], x["vgpr"]["allocated"], x.get("scratch_bytes", 0)) for x in r]
assert fig(rows[0]) == fig(rows[1]), (fig(rows[0]), fig(rows[1]))
PY
  grep -Eq "^      shipped +[0-9]" "$work/wi-main.txt" || fail "the shipped row: $(grep shipped "$work/wi-main.txt")"
  echo "$prog: ok: what-if: waves_per_eu 0 is no budget, with \"0, 0\" in the .llir or nothing"
elif needs_newer_llvm "$work/wi.err"; then :; else
  fail "what-if of main's add_kernel: $(head -c 300 "$work/wi.err")"
fi

# --- a budget set through llvm_fn_attrs (3.8+) ------------------------------------
LLC=${LLC:-llc-22} LLD=${LLD:-ld.lld-22}
if command -v "$LLC" >/dev/null && command -v "$LLD" >/dev/null; then
  e=$work/attrs
  cp -r "$vmain" "$e"
  sed -i 's/"amdgpu-flat-work-group-size"="1,256"/& "amdgpu-waves-per-eu"="2,2"/' "$e/add_kernel.llir"
  grep -q '"amdgpu-waves-per-eu"="2,2"' "$e/add_kernel.llir" || fail "the attribute was not set"
  "$LLC" -mtriple=amdgcn-amd-amdhsa -mcpu=gfx90a -O3 -filetype=obj "$e/add_kernel.llir" -o "$e/k.o"
  "$LLD" -shared "$e/k.o" -o "$e/add_kernel.hsaco"
  rm -f "$e/add_kernel.amdgcn" "$e/k.o" # the code object is llc-22's now, not Triton's
  cp "$e/add_kernel.json" "$work/no-attrs.json"
  python3 - "$e/add_kernel.json" <<'PY'
import json, sys
m = json.load(open(sys.argv[1]))
m["llvm_fn_attrs"] = [["amdgpu-waves-per-eu", "2,2"]]
open(sys.argv[1], "w").write(json.dumps(m))
PY
  "$A" --format json --no-rows "$e/add_kernel.hsaco" >"$work/attrs.json"
  "$A" "$e/add_kernel.hsaco" >"$work/attrs.txt"
  cp "$work/no-attrs.json" "$e/add_kernel.json"
  "$A" --format json --no-rows "$e/add_kernel.hsaco" >"$work/no-attrs-report.json"
  check "$work/attrs.json" "$work/no-attrs-report.json" <<'PY'
import json, sys
a, n = (json.load(open(p))["reports"][0] for p in sys.argv[1:3])
assert a["triton"]["llvm_fn_attrs"] == "amdgpu-waves-per-eu=2,2", a["triton"]
oa, on = a["kernels"][0]["occupancy"], n["kernels"][0]["occupancy"]
assert oa["waves_per_simd"] == 2 and oa["limited_by"] == "waves_per_eu", oa
assert on["waves_per_simd"] > 2 and on["limited_by"] != "waves_per_eu", on
PY
  grep -q "^  Triton's llvm_fn_attrs (set on the kernel last): amdgpu-waves-per-eu=2,2$" "$work/attrs.txt" ||
    fail "the text does not name llvm_fn_attrs: $(head -5 "$work/attrs.txt")"
  echo "$prog: ok: llvm_fn_attrs' amdgpu-waves-per-eu=2,2 is the budget (2 waves, limited by it)"
else
  echo "$prog: note: $LLC or $LLD not found: the llvm_fn_attrs build is not run"
fi

# --- warp specialisation's total --------------------------------------------------
e=$work/ws
cp -r "$v371" "$e"
sed -i '0,/"ttg.num-warps" = 8 : i32/s//"ttg.num-warps" = 8 : i32, "ttg.total-num-warps" = 12 : i32/' \
  "$e/softmax_kernel.ttgir"
grep -q '"ttg.total-num-warps" = 12' "$e/softmax_kernel.ttgir" || fail "no module line to add the total to"
sed -i 's/"num_warps": 8,/"num_warps": 12,/' "$e/softmax_kernel.json"
"$A" --format json --no-rows "$e/softmax_kernel.hsaco" >"$work/ws.json"
"$A" "$e/softmax_kernel.hsaco" >"$work/ws.txt"
check "$work/ws.json" <<'PY'
import json, sys
t = json.load(open(sys.argv[1]))["reports"][0]["triton"]
assert t["num_warps"] == 8 and t["total_warps"] == 12, t
PY
grep -q "^  warp specialisation: 12 warps in the workgroup, num_warps 8 in the layouts" "$work/ws.txt" ||
  fail "the text does not say the total: $(head -6 "$work/ws.txt")"
echo "$prog: ok: warp specialisation: num_warps 8 in the layouts, 12 in all"

# --- tregc: upload, and watch with another machine's group paths -------------------
if [[ -x ${TREGC:-} && -x ${TREGD:-} ]] && command -v openssl >/dev/null 2>&1; then
  start_tregd "$work/srv"
  trap '[[ -z $server_pid ]] || kill -KILL -- "-$server_pid" 2>/dev/null || true; rm -rf "$work"' EXIT
  tregc_to --format json --no-rows upload "$newer" >"$work/up.json" 2>"$work/up.err" ||
    fail "upload of triton-cache-newer: $(head -c 300 "$work/up.err")"
  check "$work/up.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
assert not d["errors"], d["errors"]
names = sorted(k["name"] for r in d["reports"] for k in r["kernels"])
assert names == ["add_kernel", "matmul_kernel", "softmax_kernel"], names
PY
  cache=$work/cache
  mkdir "$cache"
  timeout 120 "$TREGC" --server "https://127.0.0.1:$port" --ca "$work/srv/certs/ca.pem" \
    --token "$tregd_token" --timeout 5 watch "$cache" >"$work/watch.out" 2>"$work/watch.err" &
  wpid=$!
  for _ in $(seq 200); do grep -q "watching" "$work/watch.err" && break; sleep 0.05; done
  cp -r "$newer"/[A-Z0-9]* "$cache/"
  for _ in $(seq 600); do (($(wc -l <"$work/watch.out") >= 3)) && break; sleep 0.05; done
  sleep 0.5 # not an assertion: time for a second line of any entry to show
  kill -TERM "$wpid" 2>/dev/null || true
  wait "$wpid" 2>/dev/null || true
  for k in add_kernel matmul_kernel softmax_kernel; do
    n=$(grep -c "$k" "$work/watch.out" || true)
    ((n == 1)) || fail "watch: $n lines for $k, not 1: $(cat "$work/watch.out") $(tail -3 "$work/watch.err")"
  done
  echo "$prog: ok: tregc uploads the three; watch takes each once (group paths of another machine)"
  stop_tregd
fi
echo "$prog: ok"

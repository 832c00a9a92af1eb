#!/usr/bin/env bash
# Hygon DCU targets (all six Hygon's Triton builds for: gfx926, gfx928, gfx936,
# gfx938, gfx92a, gfx946) end to end through treg-analyze.
#
# Upstream LLVM knows none of them, and Hygon machines have no upstream
# EF_AMDGPU_MACH value, so a Hygon code object carries EF_AMDGPU_MACH_NONE (0)
# and names its processor only in the metadata note's amdhsa.target.  Such
# objects are made here from real gfx906 ones (the fixtures'
# gfx906/loop_kernel.hsaco and, when the corpus is present, its gfx906
# softmax_kernel with its .json): e_flags' mach byte set to 0 and
# "amdgcn-amd-amdhsa--gfx906" in the note rewritten to "--gfx9NN" (same length).
#
# For each, treg-analyze --format json must report target gfx9NN, decoded_as
# gfx906, provisional true, a target_note naming both processors and the
# figures that are provisional, and target_figures with the table's row:
# the VGPR budget the waves share per SIMD (256 gfx926, 512 gfx928/92a/946,
# 768 gfx936/938), 256 VGPRs per wave whatever the budget (vgpr.limit 256,
# never "768"), each unverified figure with its reason, and on gfx92a/gfx946
# the LDS dispute (the fork's hardware profile against Triton's allocator).
# The code is the same, so every per-instruction and allocation figure (rows,
# peaks, allocated counts, source lines, peak attribution, scratch, spills)
# equals the unpatched gfx906 object's.  gfx926's occupancy equals gfx906's
# field for field; elsewhere the VGPR bound on waves is recomputed from the
# budget (min(10, budget / align(VGPRs, 4))), the SGPR bounds staying
# gfx906's, and the LDS bound too except on gfx946 (128 KiB).
# Also: mach 0 with no usable target in the note is a one-line "unknown target"
# error; gfx948 (named by Hygon's Triton, no figures anywhere) a one-line
# "not analyzed" refusal; text mode shows "(decoded as gfx906)", the note, one
# "provisional:" line per unverified figure, and the shared budget on the
# occupancy line.
#
# Environment (set by CTest, see tests/CMakeLists.txt): TREG_ANALYZE,
# TREG_FIXTURES, TREG_CORPUS.
set -euo pipefail

prog=test_hygon
# shellcheck source=tests/cli/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

require_analyzer
command -v python3 >/dev/null 2>&1 || skip "python3 is needed to read treg-analyze's JSON"
A=$TREG_ANALYZE

sources=()
fx=${TREG_FIXTURES:-}
if [[ -n $fx && -f $fx/gfx906/loop_kernel.hsaco ]]; then
  sources+=("$fx/gfx906/loop_kernel.hsaco")
else
  echo "$prog: note: no fixtures at ${fx:-(TREG_FIXTURES unset)}; run tests/fixtures/make-fixtures.sh"
fi
softmax=$(find "$TREG_CORPUS/gfx906-llc22" -name softmax_kernel.hsaco -print -quit 2>/dev/null || true)
if [[ -n $softmax ]]; then
  sources+=("$softmax")
else
  echo "$prog: note: no gfx906 softmax_kernel.hsaco under $TREG_CORPUS/gfx906-llc22; fixtures only"
fi
((${#sources[@]} > 0)) || skip "neither the fixtures nor the corpus are here: no gfx906 code object"

work=$(mktemp -d "${TMPDIR:-/tmp}/treg-hygon.XXXXXX")
trap 'rm -rf "$work"' EXIT

# gfx906_patch IN OUT PYTHON: patch (lib.sh) of a gfx906 code object.
gfx906_patch() {
  patch "$1" "$2" "assert b[48] == 0x2f, f'EF_AMDGPU_MACH 0x{b[48]:02x}, not gfx906 0x2f'; $3"
}

# analyze OUT ARGS...: treg-analyze must succeed silently.
analyze() {
  local out=$1
  shift
  local rc=0
  "$A" "$@" >"$out" 2>"$out.err" || rc=$?
  ((rc == 0)) || fail "treg-analyze $* exited $rc: $(cat "$out.err")"
  [[ ! -s $out.err ]] || fail "treg-analyze $* wrote to stderr: $(cat "$out.err")"
}

checks=0
n=0
for src in "${sources[@]}"; do
  n=$((n + 1))
  base=$(basename "$src" .hsaco)
  json=${src%.hsaco}.json
  ref=$work/$n-ref.json
  analyze "$ref" --format json "$src"
  for t in gfx926 gfx928 gfx936 gfx938 gfx92a gfx946; do
    d=$work/$n-$t
    mkdir -p "$d"
    obj=$d/$base.hsaco
    gfx906_patch "$src" "$obj" "b[48] = 0; replace(b'amdgcn-amd-amdhsa--gfx906', b'amdgcn-amd-amdhsa--$t')"
    # Triton's .json next to the .hsaco, so both runs see the same launch.
    [[ -f $json ]] && cp "$json" "$d/$base.json"
    analyze "$d/report.json" --format json "$obj"
    python3 - "$ref" "$d/report.json" "$t" <<'PY' || fail "$src as $t: see above"
import json, sys
ref_doc, hyg_doc = (json.load(open(p)) for p in sys.argv[1:3])
target = sys.argv[3]
budget = {"gfx926": 256, "gfx928": 512, "gfx936": 768, "gfx938": 768, "gfx92a": 512,
          "gfx946": 512}[target]
lds = 131072 if target == "gfx946" else 65536
errors = []
def check(cond, msg):
    if not cond:
        errors.append(msg)

(ref,), (hyg,) = ref_doc["reports"], hyg_doc["reports"]
check(ref["target"] == "gfx906" and ref["decoded_as"] == "gfx906" and not ref["provisional"]
      and "target_note" not in ref, f"unpatched object: {ref['target']}/{ref['decoded_as']}")
check(ref["target_figures"]["unverified"] == [], "gfx906: unverified figures")
check(hyg["target"] == target, f"target {hyg['target']!r}, expected {target!r}")
check(hyg["decoded_as"] == "gfx906", f"decoded_as {hyg['decoded_as']!r}, expected 'gfx906'")
check(hyg["provisional"] is True, f"provisional {hyg['provisional']!r}, expected true")
check(hyg.get("target_id", "").startswith("amdgcn-amd-amdhsa--" + target),
      f"target_id {hyg.get('target_id')!r}")
tf = hyg["target_figures"]
check(tf["vgpr_budget"] == budget and tf["vgprs_per_wave"] == 256 and tf["agprs_per_wave"] == 0
      and tf["vgpr_granule"] == 4 and tf["sgpr_block"] == 8 and tf["max_waves_per_simd"] == 10
      and tf["lds_bytes"] == lds, f"target_figures {tf}")
check("HYGON-AI/triton-das" in tf["source"] and "@" in tf["source"], f"source {tf['source']!r}")
unverified = tf.get("unverified", [])
check(unverified and all(": " in u for u in unverified), f"unverified {unverified}")
check(any(u.startswith("102 SGPRs per wave") for u in unverified), "the SGPR limits not unverified")
check(any(u.startswith(f"VGPR budget {budget} ") for u in unverified) == (target not in ("gfx936", "gfx946")),
      f"{target}: the budget's mark: {unverified}")
check(("lds_note" in tf) == (target in ("gfx92a", "gfx946")), f"lds_note {tf.get('lds_note')!r}")
note = hyg.get("target_note") or ""
check(target in note and "gfx906" in note and "Provisional" in note
      and all(u.split(":")[0] in note for u in unverified),
      f"target_note {note!r} does not name {target} and gfx906 and each provisional figure")

check([k["name"] for k in hyg["kernels"]] == [k["name"] for k in ref["kernels"]], "kernel names differ")
same = ["instructions", "code_bytes", "basic_blocks", "wave_size", "total_vgprs", "accum_offset",
        "workgroup_size", "lds_bytes", "scratch_bytes", "spill_instructions", "undefined_reads",
        "unknown_instructions", "calls", "metadata", "peak_vgpr", "peak_attribution",
        "source_lines", "loops", "spills", "rows"]
for rk, hk in zip(ref["kernels"], hyg["kernels"]):
    name = rk["name"]
    check(hk["target"] == target, f"{name}: kernel target {hk['target']!r}")
    for key in same:
        check(hk[key] == rk[key], f"{name}: {key} differs from gfx906's")
    for c in ("vgpr", "agpr", "sgpr"):
        for f in ("peak_live", "allocated"):
            check(hk[c][f] == rk[c][f], f"{name}: {c}.{f} {hk[c][f]} vs gfx906 {rk[c][f]}")
    check(hk["sgpr"]["limit"] == rk["sgpr"]["limit"] == 102, f"{name}: sgpr.limit")
    check(hk["agpr"]["limit"] == rk["agpr"]["limit"] == 0, f"{name}: agpr.limit")
    check(hk["vgpr"]["limit"] == 256,
          f"{name}: vgpr.limit {hk['vgpr']['limit']}: one wave addresses 256 (budget {budget})")
    ro, ho = rk["occupancy"], hk["occupancy"]
    check(ho["lds_limit_bytes"] == lds, f"{name}: lds_limit_bytes {ho['lds_limit_bytes']}")
    if target == "gfx926":
        # The gfx906 row's figures exactly: same VGPR file.
        check(ho == ro, f"{name}: occupancy {ho} differs from gfx906's {ro}")
        continue
    # Only the VGPR file differs: the VGPR bound on waves is recomputed.
    total = max(hk["total_vgprs"], 1)
    want_vw = 10 if total < 4 else min(max(budget // (-(-total // 4) * 4), 1), 10)
    check(ho["vgpr_waves"] == want_vw, f"{name}: vgpr_waves {ho['vgpr_waves']}, expected {want_vw}")
    same_occ = ["max_waves", "sgpr_waves", "sgprs_to_next", "launch_lds_bytes"]
    if lds == 65536:
        same_occ.append("lds_waves")
    for f in same_occ:
        check(ho[f] == ro[f], f"{name}: occupancy.{f} {ho[f]} vs gfx906 {ro[f]}")
    # No waves_per_eu request on these objects: waves are the least bound.
    want = min(ho["lds_waves"], ho["max_waves"], ho["sgpr_waves"], ho["vgpr_waves"])
    check(ho["waves_per_simd"] == want, f"{name}: waves_per_simd {ho['waves_per_simd']}, expected {want}")
    check(ho["waves_per_simd"] >= ro["waves_per_simd"], f"{name}: fewer waves than on gfx906")
    check(ho["launch_waves_per_simd"] >= ro["launch_waves_per_simd"],
          f"{name}: fewer launch waves than on gfx906")
    if ro["limited_by"] not in ("vgpr", "lds"):
        check(ho["waves_per_simd"] == ro["waves_per_simd"] and ho["limited_by"] == ro["limited_by"],
              f"{name}: not limited by VGPRs on gfx906, yet occupancy differs")
if errors:
    sys.exit("\n".join(errors))
k = hyg["kernels"][0]
print(f"{k['name']}: vgpr {k['vgpr']['peak_live']}/{k['vgpr']['allocated']}/{k['vgpr']['limit']}, "
      f"{k['occupancy']['waves_per_simd']} waves ({k['occupancy']['limited_by']})")
PY
    checks=$((checks + 1))
    echo "$prog: ok: $base as $t"

    # Text mode: the header says what it was decoded as, then the note.
    analyze "$d/report.txt" "$obj"
    head -n1 "$d/report.txt" | grep -qxF "$obj: $t (decoded as gfx906)" ||
      fail "$base as $t, text: header is '$(head -n1 "$d/report.txt")'"
    # The note is a paragraph: line 2 and its continuation lines, indented deeper.
    note=$(awk 'NR == 2 { p = $0; next } NR > 2 && /^    / && !done { p = p " " substr($0, 5); next }
                NR > 2 { done = 1 } END { print p }' "$d/report.txt")
    grep -q "^  note: $t decoded as gfx906: .*Provisional for $t" <<<"$note" ||
      fail "$base as $t, text: no decoded-as note: '$note'"
    grep -q "^  provisional: 102 SGPRs per wave and GFX9's SGPR occupancy steps: " "$d/report.txt" ||
      fail "$base as $t, text: no line for the unverified SGPR limits"
    case $t in
    gfx926) ! grep -q "the waves share" "$d/report.txt" ||
      fail "$base as $t, text: a shared budget where one wave holds it all" ;;
    gfx928 | gfx92a | gfx946) grep -q "^      the waves share 512 VGPRs per SIMD, 256 at most per wave$" "$d/report.txt" ||
      fail "$base as $t, text: the occupancy line does not say the budget is shared" ;;
    *) grep -q "^      the waves share 768 VGPRs per SIMD, 256 at most per wave$" "$d/report.txt" ||
      fail "$base as $t, text: the occupancy line does not say the budget is shared" ;;
    esac
    ! grep -q "limit  768\|limit  512" "$d/report.txt" || fail "$base as $t, text: a budget printed as a limit"
    checks=$((checks + 1))
  done
done

# --- mach 0 and no usable target in the note: one "unknown target" line -----------
src=${sources[0]}
unknown_target() { # WHAT PYTHON KEYWORD
  local obj=$work/unknown-$checks.hsaco rc=0 lines
  gfx906_patch "$src" "$obj" "$2"
  for fmt in text json; do
    rc=0
    "$A" --format "$fmt" "$obj" >"$obj.out" 2>"$obj.err" || rc=$?
    ((rc == 1)) || fail "$1 ($fmt): exit $rc, expected 1"
    mapfile -t lines <"$obj.err"
    ((${#lines[@]} == 1)) || fail "$1 ($fmt): stderr is not one line: $(cat "$obj.err")"
    [[ ${lines[0]} == "treg-analyze: $obj: unknown target"* && ${lines[0]} == *"$3"* ]] ||
      fail "$1 ($fmt): stderr '${lines[0]}'"
  done
  python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
assert d["reports"] == [] and len(d["errors"]) == 1, d
assert d["errors"][0]["message"].startswith("unknown target"), d' "$obj.out" ||
    fail "$1: JSON output"
  checks=$((checks + 1))
  echo "$prog: ok: $1: ${lines[0]}"
}
# gfx948: a name Hygon's Triton uses with no figures anywhere: refused by name.
obj=$work/gfx948.hsaco
gfx906_patch "$src" "$obj" "b[48] = 0; replace(b'amdgcn-amd-amdhsa--gfx906', b'amdgcn-amd-amdhsa--gfx948')"
rc=0
"$A" "$obj" >"$obj.out" 2>"$obj.err" || rc=$?
mapfile -t lines <"$obj.err"
((rc == 1 && ${#lines[@]} == 1)) || fail "gfx948: exit $rc, stderr: $(cat "$obj.err")"
[[ ${lines[0]} == "treg-analyze: $obj: target gfx948 not analyzed: a Hygon processor "*"no register, occupancy or LDS figure"* ]] ||
  fail "gfx948: stderr '${lines[0]}'"
checks=$((checks + 1))
echo "$prog: ok: gfx948: ${lines[0]}"

unknown_target "mach 0, note names gfx9zz" \
  "b[48] = 0; replace(b'amdgcn-amd-amdhsa--gfx906', b'amdgcn-amd-amdhsa--gfx9zz')" "gfx9zz"
unknown_target "mach 0, no amdhsa.target key" \
  "b[48] = 0; replace(b'amdhsa.target', b'amdhsa.targex')" "EF_AMDGPU_MACH 0x0"
unknown_target "mach 0, target id names no processor" \
  "b[48] = 0; replace(b'amdgcn-amd-amdhsa--gfx906', b'amdgcn-amd-amdhsa--hcu906')" "no gfx processor"

# --- a word the substitute ISA cannot decode -----------------------------------------
# A Hygon-only instruction is undecodable as gfx906: treg goes on, counts the word
# and warns; the same word in a real gfx906 object is a one-line error.
OBJDUMP=${OBJDUMP:-llvm-objdump-22}
if command -v "$OBJDUMP" >/dev/null 2>&1; then
  waitcnt=$(first_insn_addr "$src" gfx906 s_waitcnt)
  [[ -n $waitcnt ]] || fail "no s_waitcnt in $src to overwrite"
  garble=$(text_write "$waitcnt" "(0xffffffff,)")
  obj=$work/hygon-garbled.hsaco
  gfx906_patch "$src" "$obj" "b[48] = 0; replace(b'amdgcn-amd-amdhsa--gfx906', b'amdgcn-amd-amdhsa--gfx926'); $garble"
  analyze "$obj.json" --format json "$obj"
  python3 -c 'import json, sys
k = json.load(open(sys.argv[1]))["reports"][0]["kernels"][0]
assert k["undecodable_words"] == 1, k["undecodable_words"]
assert k["unknown_instructions"] >= 1, k["unknown_instructions"]' "$obj.json" ||
    fail "gfx926 with an undecodable word: expected undecodable_words 1"
  analyze "$obj.txt" "$obj"
  grep -Eq "WARNING: lower bound: 1 words could not be decoded as gfx906, the first at \+0x[0-9a-f]+" "$obj.txt" ||
    fail "text mode does not warn about the undecodable word: $(cat "$obj.txt")"
  checks=$((checks + 1))
  echo "$prog: ok: gfx926 object with an undecodable word: analyzed, 1 word counted and warned"

  native=$work/gfx906-garbled.hsaco
  gfx906_patch "$src" "$native" "$garble"
  rc=0
  "$A" "$native" >"$native.out" 2>"$native.err" || rc=$?
  ((rc == 1)) || fail "gfx906 object with an undecodable word: exit $rc, expected 1"
  grep -q "^treg-analyze: $native: .*undecodable instruction word 0xffffffff" "$native.err" ||
    fail "gfx906 object with an undecodable word: stderr '$(cat "$native.err")'"
  checks=$((checks + 1))
  echo "$prog: ok: the same word in a native gfx906 object is an error"
else
  echo "$prog: note: $OBJDUMP not found; undecodable-word case skipped"
fi

echo "$prog: PASS ($checks checks on ${#sources[@]} code objects)"

#!/usr/bin/env bash
# Hygon DCU targets (gfx926, gfx928, gfx936) end to end through treg-analyze.
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
# gfx906, provisional true and a target_note naming both processors and saying
# the figures are provisional; the code is the same, so every per-instruction
# and allocation figure (rows, peaks, allocated counts, source lines, peak
# attribution, scratch, spills) equals the unpatched gfx906 object's.  The
# target table (analyzer/targets/targets.c, FAMILY_HYGON) gives all three rows
# GCN5 figures (10 waves/SIMD, VGPR granule 4, SGPR file 800 / 102 addressable,
# 64 KiB LDS) except the VGPR file: 256 on gfx926, 512 on gfx928, 768 on gfx936.
# So gfx926's occupancy equals gfx906's field for field, while on gfx928/gfx936
# vgpr.limit is the larger file and the VGPR bound on waves is recomputed from
# it (getNumWavesPerEUWithNumVGPRs: min(10, file / align(VGPRs, 4))), the SGPR
# and LDS bounds staying gfx906's.
# Also: mach 0 with no usable target in the note is a one-line "unknown target"
# error, and text mode shows "(decoded as gfx906)" and the note.
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
  for t in gfx926 gfx928 gfx936; do
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
vgpr_file = {"gfx926": 256, "gfx928": 512, "gfx936": 768}[target]
errors = []
def check(cond, msg):
    if not cond:
        errors.append(msg)

(ref,), (hyg,) = ref_doc["reports"], hyg_doc["reports"]
check(ref["target"] == "gfx906" and ref["decoded_as"] == "gfx906" and not ref["provisional"]
      and "target_note" not in ref, f"unpatched object: {ref['target']}/{ref['decoded_as']}")
check(hyg["target"] == target, f"target {hyg['target']!r}, expected {target!r}")
check(hyg["decoded_as"] == "gfx906", f"decoded_as {hyg['decoded_as']!r}, expected 'gfx906'")
check(hyg["provisional"] is True, f"provisional {hyg['provisional']!r}, expected true")
check(hyg.get("target_id", "").startswith("amdgcn-amd-amdhsa--" + target),
      f"target_id {hyg.get('target_id')!r}")
note = hyg.get("target_note") or ""
check(target in note and "gfx906" in note and "provisional" in note,
      f"target_note {note!r} does not name {target} and gfx906 and say provisional")

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
    check(hk["vgpr"]["limit"] == vgpr_file,
          f"{name}: vgpr.limit {hk['vgpr']['limit']}, the table's file is {vgpr_file}")
    ro, ho = rk["occupancy"], hk["occupancy"]
    if target == "gfx926":
        # The gfx906 row's figures exactly: same VGPR file.
        check(ho == ro, f"{name}: occupancy {ho} differs from gfx906's {ro}")
        continue
    # Only the VGPR file differs: the VGPR bound on waves is recomputed.
    total = max(hk["total_vgprs"], 1)
    want_vw = 10 if total < 4 else min(max(vgpr_file // (-(-total // 4) * 4), 1), 10)
    check(ho["vgpr_waves"] == want_vw, f"{name}: vgpr_waves {ho['vgpr_waves']}, expected {want_vw}")
    for f in ("max_waves", "sgpr_waves", "lds_waves", "sgprs_to_next", "launch_lds_bytes"):
        check(ho[f] == ro[f], f"{name}: occupancy.{f} {ho[f]} vs gfx906 {ro[f]}")
    # No waves_per_eu request on these objects: waves are the least bound.
    want = min(ho["lds_waves"], ho["max_waves"], ho["sgpr_waves"], ho["vgpr_waves"])
    check(ho["waves_per_simd"] == want, f"{name}: waves_per_simd {ho['waves_per_simd']}, expected {want}")
    check(ho["waves_per_simd"] >= ro["waves_per_simd"], f"{name}: fewer waves than on gfx906")
    check(ho["launch_waves_per_simd"] >= ro["launch_waves_per_simd"],
          f"{name}: fewer launch waves than on gfx906")
    if ro["limited_by"] != "vgpr":
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
    grep -q "^  note: $t decoded as gfx906: .*provisional" <<<"$note" ||
      fail "$base as $t, text: no decoded-as note: '$note'"
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

#!/usr/bin/env bash
# Hygon's six targets as Hygon's own compiler builds them.
#
# 1. The fork's gfx936 test inputs (tests/data/hygon-triton-das: the
#    .amdgcn texts HYGON-AI/triton-das keeps under test/TritonGPU/hcu/Inputs,
#    written by DTK's clang 17): treg's figures from the text alone equal the
#    compiler's trailer on every one: NumVgprs (vgpr.allocated), NumSgprs
#    (sgpr.allocated), Occupancy (occupancy.waves_per_simd, from the 768
#    budget), VGPRBlocks = ceil(V / vgpr_granule) - 1 and SGPRBlocks =
#    ceil(S / sgpr_block) - 1 with the granules the report states; target
#    gfx936, no instruction on the generic rule, none off the target, and the
#    SGPR limits and the CU's GFX9 figures the only provisional ones.
# 2. The same texts assembled into code objects by upstream tools (llvm-mc-22
#    for gfx906 after the Hygon-only descriptor directives are dropped, then
#    relabelled gfx936 with EF_AMDGPU_MACH 0, as a DTK object carries it):
#    the code object alone gives the text's figures, row for row (registers,
#    reads and writes), kernel for kernel.
# 3. Texts written for gfx946, gfx938 and gfx92a in the shapes of the fork's
#    MLS and MMAC lowering (tests/cli/data/hygon/*.s): the figures their
#    headers work out by hand (allocation, peak and where, SGPRs, occupancy
#    and VGPRs to the next wave from each target's budget), no instruction
#    on the generic rule, none off the target.
# 4. The gfx946 text relabelled gfx928: every gfx946-only family it uses is
#    named (a source shows gfx928 without MLS and without 16-bit MMAC
#    accumulators; nothing shows s_waitcnt_vbcnt on it), in JSON and text.
# 5. A gfx946 WASP/WDRA kernel in the fork's shape (tests/cli/data/hygon/
#    gfx946_wasp_wdra.s, its header works the figures out by hand): three
#    roles found from the code with their wave ids from the dispatch, each
#    role's size, peak, highest VGPR, the backend's comments beside them,
#    the code before the dispatch, and the occupancy the sizes' sum allows
#    (3 waves, not the 5 one .vgpr_count of 88 would say); the same without
#    the s_trap prologue (the compiler's other form); a role naming a VGPR
#    past its size, and a backend comment disagreeing with the code, said.
# 6. Hygon's hand-written gfx936 GEMMs (tests/data/hygon-aiter-das, from
#    HYGON-AI/aiter-das: .macro/.set kernels whose v_mmac operands are
#    register lists v[x+0:x+1:x+2:x+3] without commas): every instruction
#    modelled (no generic rule, nothing off the target, no register read
#    before it is written), the allocation the descriptor's
#    .amdhsa_next_free_vgpr, every v_mmac writing its 4 accumulators and
#    reading them with its 2 + 2 fragments, every ds_read_m32x16_b16 writing
#    4 VGPRs from 1 address.
# 8. The what-if on Hygon: the fork's baseline build (179 VGPRs) with the
#    LLVM IR it was compiled from (tests/data/hygon-triton-das/Inputs/
#    hcu-misched-max-ilp-sched.ll): LLVM 22 cannot build gfx936, so the
#    shipped row (4 waves) and the budgets with what a wave may hold at each
#    from gfx936's 768 per SIMD (5 waves: 152, 6: 128, 7: 108, 8: 96, 9: 84,
#    10: 76), not built, and the note saying why.
# 7. The diff on Hygon: the fork's baseline and max-ILP builds of one kernel
#    (179 and 218 VGPRs of gfx936's 768 per SIMD): 4 waves to 3, the SGPR
#    spills the max-ILP build added, the kernel paired by name.
#
# Environment (set by CTest): TREG_ANALYZE, TREG_SOURCE_ROOT.
set -euo pipefail
prog=test_hygon_targets
# shellcheck source=tests/cli/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
require_analyzer
command -v python3 >/dev/null 2>&1 || skip "python3 is needed to read treg-analyze's JSON"
A=$TREG_ANALYZE
inputs=$TREG_SOURCE_ROOT/tests/data/hygon-triton-das/Inputs
texts=$TREG_SOURCE_ROOT/tests/cli/data/hygon
[[ -d $inputs ]] || fail "no $inputs (the fork's test inputs belong to the repository)"
work=$(mktemp -d "${TMPDIR:-/tmp}/treg-hygon-targets.XXXXXX")
trap 'rm -rf "$work"' EXIT

# --- 1. the fork's inputs against their trailers ---------------------------------
n=0
for f in "$inputs"/*.amdgcn; do
  "$A" --format json "$f" >"$work/t.json" 2>"$work/t.err" || fail "$f: $(cat "$work/t.err")"
  python3 - "$f" "$work/t.json" <<'PY' || fail "$f: see above"
import json, math, re, sys
text = open(sys.argv[1]).read()
trailer = {k: int(v) for k, v in re.findall(r"^; (NumSgprs|NumVgprs|Occupancy|SGPRBlocks|VGPRBlocks): (\d+)$", text, re.M)}
assert len(trailer) == 5, trailer
(r,) = json.load(open(sys.argv[2]))["reports"]
(k,) = r["kernels"]
tf = r["target_figures"]
got = {"NumVgprs": k["vgpr"]["allocated"], "NumSgprs": k["sgpr"]["allocated"],
       "Occupancy": k["occupancy"]["waves_per_simd"],
       "VGPRBlocks": math.ceil(k["vgpr"]["allocated"] / tf["vgpr_granule"]) - 1,
       "SGPRBlocks": math.ceil(k["sgpr"]["allocated"] / tf["sgpr_block"]) - 1}
errors = [f"{key}: treg {got[key]}, trailer {trailer[key]}" for key in trailer if got[key] != trailer[key]]
if r["target"] != "gfx936" or tf["vgpr_budget"] != 768 or k["vgpr"]["limit"] != 256:
    errors.append(f"target {r['target']}, budget {tf['vgpr_budget']}, limit {k['vgpr']['limit']}")
if k["unknown_instructions"] or k.get("off_target"):
    errors.append(f"unknown {k['unknown_instructions']}, off target {k.get('off_target')}")
if [u.split(":")[0] for u in tf["unverified"]] != [
        "102 SGPRs per wave and GFX9's SGPR occupancy steps",
        "4 SIMDs and 16 barrier work-groups per CU, work-item ids unpacked"]:
    errors.append(f"unverified {tf['unverified']}")
if k["metadata"]["trailer_occupancy"] != trailer["Occupancy"]:
    errors.append(f"the trailer as read: {k['metadata']['trailer_occupancy']}")
if errors:
    sys.exit("\n".join(errors))
print(f"  {sys.argv[1].rsplit('/', 1)[1]}: V {got['NumVgprs']} S {got['NumSgprs']} "
      f"occupancy {got['Occupancy']} blocks {got['VGPRBlocks']}/{got['SGPRBlocks']}: as the trailer")
PY
  n=$((n + 1))
done
((n >= 10)) || fail "$n of the fork's inputs, expected 10"
echo "$prog: ok: $n of the fork's gfx936 texts: allocation, SGPRs, occupancy and blocks equal the compiler's trailer"

# --- 2. the same texts as code objects ---------------------------------------------
MC=${MC:-llvm-mc-22}
LLD=${LLD:-ld.lld-22}
if command -v "$MC" >/dev/null && command -v "$LLD" >/dev/null; then
  n=0
  for f in "$inputs"/*.amdgcn; do
    base=$(basename "$f" .amdgcn)
    mkdir -p "$work/co/$base"
    hygon_code_object "$f" "$work/co/$base/k.hsaco" "$MC" "$LLD"
    "$A" --format json --no-assembly "$work/co/$base/k.hsaco" >"$work/co.json" ||
      fail "$base: the code object alone"
    "$A" --format json "$f" >"$work/text.json" || fail "$base: the text"
    python3 - "$work/co.json" "$work/text.json" "$base" <<'PY' || fail "$base: code object and text differ (above)"
import json, sys
(co,), (tx,) = (json.load(open(p))["reports"] for p in sys.argv[1:3])
errors = []
if co["target"] != "gfx936" or co["decoded_as"] != "gfx906":
    errors.append(f"code object: target {co['target']}, decoded as {co['decoded_as']}")
if co["target_figures"] != tx["target_figures"]:
    errors.append("target_figures differ")
for kc, kt in zip(co["kernels"], tx["kernels"]):
    for key in ("name", "instructions", "code_bytes", "vgpr", "sgpr", "agpr", "occupancy", "total_vgprs",
                "scratch_bytes", "spill_instructions", "undefined_reads", "unknown_instructions",
                "basic_blocks", "loops"):
        if kc[key] != kt[key] and key != "loops":
            errors.append(f"{key}: {kc[key]} != {kt[key]}")
    if [(l["peak_vgpr"], l["peak_sgpr"], l["instructions"]) for l in kc["loops"]] != \
       [(l["peak_vgpr"], l["peak_sgpr"], l["instructions"]) for l in kt["loops"]]:
        errors.append("loops differ")
    if kc["undecodable_words"] or kc["instruction_source"] != "code object":
        errors.append(f"{kc['undecodable_words']} undecodable words, source {kc['instruction_source']}")
    rows = lambda k: [(r["address"], r["vgpr"], r["sgpr"], r["reads"], r["writes"]) for r in k["rows"]]
    rc, rt = rows(kc), rows(kt)
    diff = [(a, b) for a, b in zip(rc, rt) if a != b]
    if len(rc) != len(rt) or diff:
        errors.append(f"{len(rc)} rows vs {len(rt)}; first difference {diff[:1]}")
if errors:
    sys.exit("\n".join(errors))
k = co["kernels"][0]
print(f"  {sys.argv[3]}: {k['instructions']} instructions, rows equal, VGPR peak {k['vgpr']['peak_live']}")
PY
    n=$((n + 1))
  done
  echo "$prog: ok: $n texts assembled by $MC and relabelled gfx936: the code object alone gives the text's report, row for row"
else
  echo "$prog: note: $MC or $LLD not found (Debian's llvm-22, lld-22): the code-object half skipped"
fi

# --- 3. texts for gfx946, gfx938, gfx92a in the fork's shapes ------------------------
# file target budget allocated peak peak_address sgprs waves to_next
cases=(
  "gfx946_mls_mmac.s gfx946 512 214 15 0x50 14 2 46"
  "gfx938_mls_fp8.s gfx938 768 179 19 0x6c 16 4 27"
  "gfx92a_fp4_padbyte.s gfx92a 512 130 14 0x48 12 3 2"
)
for c in "${cases[@]}"; do
  read -r file target budget alloc peak at sgprs waves next <<<"$c"
  "$A" --format json "$texts/$file" >"$work/h.json" 2>"$work/h.err" || fail "$file: $(cat "$work/h.err")"
  [[ ! -s $work/h.err ]] || fail "$file: treg-analyze wrote to stderr: $(cat "$work/h.err")"
  python3 - "$work/h.json" "$target" "$budget" "$alloc" "$peak" "$at" "$sgprs" "$waves" "$next" <<'PY' ||
import json, sys
doc = json.load(open(sys.argv[1]))
target = sys.argv[2]
budget, alloc, peak, at, sgprs, waves, nxt = (int(x, 0) for x in sys.argv[3:10])
(r,) = doc["reports"]
(k,) = r["kernels"]
want = {"target": target, "vgpr_budget": budget, "vgpr.allocated": alloc, "vgpr.limit": 256,
        "vgpr.peak_live": peak, "peak address": at, "sgpr.allocated": sgprs,
        "waves_per_simd": waves, "vgprs_to_next": nxt, "trailer occupancy": waves,
        "unknown_instructions": 0, "off_target": [], "undefined_reads": 0}
got = {"target": r["target"], "vgpr_budget": r["target_figures"]["vgpr_budget"],
       "vgpr.allocated": k["vgpr"]["allocated"], "vgpr.limit": k["vgpr"]["limit"],
       "vgpr.peak_live": k["vgpr"]["peak_live"], "peak address": k["peak_vgpr"]["address"],
       "sgpr.allocated": k["sgpr"]["allocated"], "waves_per_simd": k["occupancy"]["waves_per_simd"],
       "vgprs_to_next": k["occupancy"]["vgprs_to_next"],
       "trailer occupancy": k["metadata"]["trailer_occupancy"],
       "unknown_instructions": k["unknown_instructions"], "off_target": k.get("off_target", []),
       "undefined_reads": k["undefined_reads"]}
bad = [f"{key}: {got[key]!r}, by hand {want[key]!r}" for key in want if got[key] != want[key]]
if bad:
    sys.exit("\n".join(bad))
PY
    fail "$file: see above"
  echo "$prog: ok: $file ($target): $alloc VGPRs of a $budget budget -> $waves waves ($next to free for one more), peak $peak at $at, $sgprs SGPRs, as worked out by hand"
done

# --- 4. a gfx946-only form on gfx928 is named ----------------------------------------
sed 's/gfx946/gfx928/g' "$texts/gfx946_mls_mmac.s" >"$work/on928.s"
"$A" --format json "$work/on928.s" >"$work/928.json" || fail "gfx928 relabel: treg-analyze failed"
"$A" "$work/on928.s" >"$work/928.txt" || fail "gfx928 relabel: text failed"
python3 - "$work/928.json" <<'PY' || fail "gfx928: the gfx946-only forms are not named (above)"
import json, sys
(k,) = json.load(open(sys.argv[1]))["reports"][0]["kernels"]
off = {t["mnemonic"]: t for t in k.get("off_target", [])}
want = {"matrix_load_32x16_b16": (True, "gfx938 gfx92a gfx946", 1),
        "ds_read_matrix_format": (True, "gfx938 gfx92a gfx946", 1),
        "ds_read_matrix_trans_format": (True, "gfx938 gfx92a gfx946", 1),
        "v_mmac_16x16x16_f16": (True, "gfx946", 1),
        "s_waitcnt_vbcnt": (False, "gfx946", 1)}
errors = []
for m, (lacks, shown, count) in want.items():
    t = off.get(m)
    if not t or t["lacks"] != lacks or t["shown_on"] != shown or t["count"] != count or "@" not in t["source"]:
        errors.append(f"{m}: {t}")
extra = set(off) - set(want)
if extra:
    errors.append(f"named but available on gfx928: {sorted(extra)}")
if errors:
    sys.exit("\n".join(errors))
PY
grep -q "^    WARNING: gfx928 lacks MMAC with 16-bit accumulators per Hygon's Triton, which has it on gfx946:" "$work/928.txt" ||
  fail "gfx928 text: no warning for the 16-bit accumulators: $(grep -i mmac "$work/928.txt")"
grep -q "^    note: gfx928 is not shown to have WASP/WDRA" "$work/928.txt" ||
  fail "gfx928 text: no note for s_waitcnt_vbcnt"
echo "$prog: ok: the gfx946 text relabelled gfx928: MLS and 16-bit accumulators named as absent, s_waitcnt_vbcnt as not shown"

# --- 5. wave-specialised roles (WASP/WDRA) ---------------------------------------------
wasp=$texts/gfx946_wasp_wdra.s
# check_roles JSON [EXTRA-NOTE]: the roles the header works out; EXTRA-NOTE
# must then appear in the roles' note (else there is none).
check_roles() {
  python3 - "$1" "${2:-}" <<'PY'
import json, sys
(k,) = json.load(open(sys.argv[1]))["reports"][0]["kernels"]
want_note = sys.argv[2]
w = k.get("wave_roles")
if not w:
    sys.exit("no wave_roles")
got = [(r["first_wave"], r["last_wave"], r["size"], r["peak_live"], r["highest_vgpr"], r["spills"],
        r["backend_needs"], r["backend_available"], r["backend_spills"]) for r in w["roles"]]
want = [(0, 3, 16, 2, 2, 0, 2, 16, 0), (4, 7, 124, 25, 124, 0, 118, 124, 0),
        (8, 11, 124, 17, 124, 0, 121, 124, 0)]
errors = []
if got != want:
    errors.append(f"roles {got}\n   by hand {want}")
figures = (w["size_sum"], w["budget"], w["groups_per_simd"], w["waves_per_simd"], w["before_peak_live"],
           w["before_highest_vgpr"], w["backend_comments"])
if figures != (264, 512, 1, 3, 1, 1, True):
    errors.append(f"sum/budget/groups/waves/before peak/before highest/comments {figures}")
o = k["occupancy"]
if (o["waves_per_simd"], o["limited_by"], o["vgpr_waves"], o["vgprs_to_next"]) != (3, "wave_roles", 3, -1):
    errors.append(f"occupancy {o}")
if o.get("vgpr_steps"):
    errors.append("per-wave occupancy steps for a kernel whose waves hold different sizes")
note = w.get("note", "")
if (want_note and want_note not in note) or (not want_note and note):
    errors.append(f"note {note!r}, expected {want_note!r}")
if errors:
    sys.exit("\n".join(errors))
PY
}
"$A" --format json "$wasp" >"$work/w.json" || fail "WASP kernel: treg-analyze failed"
check_roles "$work/w.json" || fail "WASP kernel: see above"
"$A" "$wasp" >"$work/w.txt" || fail "WASP kernel: text failed"
grep -q "^    occupancy 3 waves/SIMD of 10, limited by the wave roles' VGPR sizes$" "$work/w.txt" ||
  fail "WASP kernel, text: occupancy line: $(grep occupancy "$work/w.txt")"
grep -Eq "^      waves 4-7 +size 124  peak  25 at \+0x[0-9a-f]+ +highest v123 +spills 0  backend 118/124$" "$work/w.txt" ||
  fail "WASP kernel, text: role line: $(grep 'waves 4-7' "$work/w.txt")"
echo "$prog: ok: WASP/WDRA: roles 16/124/124 at waves 0-3/4-7/8-11 (peaks 2/25/17), backend figures beside them, 264 of 512 per SIMD: 3 waves"
# the compiler's other form: no s_trap prologue, only each role's own size
python3 - "$wasp" "$work/nb.s" <<'PY'
import sys
lines = open(sys.argv[1]).read().split("\n")
start = lines.index("wasp_gemm_kernel:") + 1
assert lines[start:start + 4] == ["\ts_set_vgpr_size 16", "\ts_set_vgpr_size 124", "\ts_set_vgpr_size 124", "\ts_trap 0xff"]
open(sys.argv[2], "w").write("\n".join(lines[:start] + lines[start + 4:]))
PY
"$A" --format json "$work/nb.s" >"$work/nb.json" || fail "WASP kernel without the prologue: treg-analyze failed"
check_roles "$work/nb.json" || fail "WASP kernel without the prologue: see above"
echo "$prog: ok: WASP/WDRA without the s_trap prologue: the same roles"
# role 0 naming v20 in its 16 VGPRs; the backend giving role 2 other VGPRs
python3 - "$wasp" "$work/bad.s" <<'PY'
import sys
t = open(sys.argv[1]).read()
t = t.replace("\ts_set_vgpr_size 16\n\tv_lshlrev_b32_e32 v1, 4, v0\n",
              "\ts_set_vgpr_size 16\n\tv_lshlrev_b32_e32 v1, 4, v0\n\tv_mov_b32_e32 v20, v1\n", 1)
t = t.replace("; BranchAvailableVgprs: (16, 124, 124)", "; BranchAvailableVgprs: (16, 124, 120)")
open(sys.argv[2], "w").write(t)
PY
"$A" --format json "$work/bad.s" >"$work/bad.json" || fail "WASP kernel, bad variant: treg-analyze failed"
python3 - "$work/bad.json" <<'PY' || fail "WASP kernel, bad variant: see above"
import json, sys
(k,) = json.load(open(sys.argv[1]))["reports"][0]["kernels"]
w = k["wave_roles"]
note = w.get("note", "")
for want in ("names v20, past its 16 VGPRs: its waves fault there",
             "The backend gives waves 8-11 120 VGPRs (BranchAvailableVgprs), the code 124"):
    if want not in note:
        sys.exit(f"note {note!r} lacks {want!r}")
if w["roles"][0]["highest_vgpr"] != 21:
    sys.exit(f"role 0 highest {w['roles'][0]['highest_vgpr']}")
PY
echo "$prog: ok: WASP/WDRA: a role naming v20 past its 16 VGPRs and a backend figure unlike the code's are said"

# --- 6. hand-written DTK kernels (aiter-das) ------------------------------------------
aiter=$TREG_SOURCE_ROOT/tests/data/hygon-aiter-das
n=0
for f in "$aiter"/*.s; do
  "$A" --format json "$f" >"$work/a.json" 2>"$work/a.err" || fail "$f: $(cat "$work/a.err")"
  python3 - "$f" "$work/a.json" <<'PY' || fail "$f: see above"
import json, re, sys
text = open(sys.argv[1]).read()
next_free = int(re.search(r"\.amdhsa_next_free_vgpr (\d+)", text)[1])
(r,) = json.load(open(sys.argv[2]))["reports"]
errors = []
for k in r["kernels"]:
    if r["target"] != "gfx936" or k["unknown_instructions"] or k.get("off_target") or k["undefined_reads"]:
        errors.append(f"{k['name']}: target {r['target']}, unknown {k['unknown_instructions']}, "
                      f"off target {k.get('off_target')}, undefined reads {k['undefined_reads']}")
    if k["vgpr"]["allocated"] != next_free:
        errors.append(f"{k['name']}: {k['vgpr']['allocated']} VGPRs, the descriptor {next_free}")
    mmac = [x for x in k["rows"] if x["text"].startswith("v_mmac_")]
    bad = [x["text"] for x in mmac if len(x["writes"]) != 4 or len(x["reads"]) != 8 or not set(x["writes"]) <= set(x["reads"])]
    dsm = [x for x in k["rows"] if x["text"].startswith("ds_read_m32x16_b16")]
    bad += [x["text"] for x in dsm if len(x["writes"]) != 4 or len(x["reads"]) != 1]
    if not mmac or bad:
        errors.append(f"{k['name']}: {len(mmac)} v_mmac; not as their lists say: {bad[:3]}")
    print(f"  {sys.argv[1].rsplit('/', 1)[1][:60]}: {k['instructions']} instructions, {len(mmac)} v_mmac, "
          f"{len(dsm)} ds_read_m32x16_b16, VGPRs {k['vgpr']['peak_live']} live of {k['vgpr']['allocated']}")
if errors:
    sys.exit("\n".join(errors))
PY
  n=$((n + 1))
done
((n >= 2)) || fail "$n aiter-das kernels, expected 2"
echo "$prog: ok: $n hand-written gfx936 GEMMs from aiter-das: every instruction modelled, register lists read as written"

# --- 7. the diff on Hygon -------------------------------------------------------------
"$A" diff --format json "$inputs/hcu-misched-max-ilp-sched-baseline.amdgcn" \
  "$inputs/hcu-misched-max-ilp-sched-max-ilp.amdgcn" >"$work/diff.json" || fail "diff of the fork's two builds"
python3 - "$work/diff.json" <<'PY' || fail "diff: see above"
import json, sys
(k,) = json.load(open(sys.argv[1]))["kernels"]
got = (k["target"], k["paired_by"], k["old"]["vgpr"]["allocated"], k["new"]["vgpr"]["allocated"],
       k["old"]["occupancy"]["waves_per_simd"], k["new"]["occupancy"]["waves_per_simd"],
       k["delta"]["spill_instructions"] > 0)
if got != ("gfx936", "name", 179, 218, 4, 3, True):
    sys.exit(f"diff {got}")
PY
echo "$prog: ok: diff on gfx936: 179 -> 218 VGPRs, 4 -> 3 waves of the 768 budget, the new spills"

# --- 8. the what-if on Hygon ------------------------------------------------------------
if [[ -f $work/co/hcu-misched-max-ilp-sched-baseline/k.hsaco ]]; then
  wi=$work/co/hcu-misched-max-ilp-sched-baseline
  cp "$inputs/hcu-misched-max-ilp-sched.ll" "$wi/k.llir"
  "$A" --what-if --format json --no-rows "$wi/k.hsaco" >"$work/wi.json" 2>"$work/wi.err" ||
    fail "what-if on gfx936: $(cat "$work/wi.err")"
  python3 - "$work/wi.json" <<'PY' || fail "what-if on gfx936: see above"
import json, sys
(k,) = json.load(open(sys.argv[1]))["reports"][0]["kernels"]
rows = [(w["kind"], w["waves_per_eu"], w.get("vgpr_allowance", 0), w["compiled"]) for w in k["what_if"]]
shipped = k["what_if"][0]
want = [("budget", n, a, False) for n, a in ((5, 152), (6, 128), (7, 108), (8, 96), (9, 84), (10, 76))]
errors = []
if rows[0][0] != "shipped" or shipped["vgpr"]["allocated"] != 179 or shipped["occupancy"]["waves_per_simd"] != 4:
    errors.append(f"shipped {shipped}")
if rows[1:] != want:
    errors.append(f"budgets {rows[1:]}\n   by the table {want}")
note = k.get("what_if_note", "")
if not note.startswith("not available with this LLVM") or "gfx936" not in note:
    errors.append(f"note {note!r}")
if errors:
    sys.exit("\n".join(errors))
PY
  "$A" --what-if "$wi/k.hsaco" >"$work/wi.txt" 2>&1 || fail "what-if on gfx936, text"
  grep -q "^      waves_per_eu=5 .*<=152 VGPRs a wave; not built$" "$work/wi.txt" ||
    fail "what-if on gfx936, text: $(grep waves_per_eu "$work/wi.txt")"
  echo "$prog: ok: what-if on gfx936 (179 VGPRs, 4 waves): LLVM ${TREG_LLVM_MAJOR:-22} cannot build it, the budgets still show what a wave may hold: 5 waves 152, ..., 10 waves 76"
else
  echo "$prog: note: no code object of the fork's baseline (part 2 skipped): the what-if skipped"
fi

#!/usr/bin/env bash
# A Triton cache as Hygon's Triton writes it, mixed with an AMD one's, and
# the listing DTK's hipcc --save-temps writes for several targets.
#
# The cache: an AMD entry from tests/data (gfx942 add_kernel), two Hygon
# entries made from the fork's gfx936 test input (tests/data/hygon-triton-das:
# assembled by llvm-mc-22 as gfx906 and relabelled gfx936, EF_AMDGPU_MACH 0,
# with the .amdgcn beside it) and a .json in the shape the fork's
# compiler.py dumps it (HIPOptions' fields with their defaults, "target"
# {"backend": "hip" | "hcu", "arch": "gfx936", "warp_size": 64}), and a
# failed_kernels/<time>_<kernel>_llir_amdgcn/ folder as the fork archives a
# failed compile (context.txt and the temporary .ll).  Checked:
#   - treg-analyze on the cache: every entry analyzed on its own target, the
#     failed_kernels folder skipped with one line saying why;
#   - triton{} shows the backend and the fork's register-shaping options
#     that differ from its defaults (mmac_layout_force, sched_latency,
#     wasp_enabled ...), none when all are defaults;
#   - waves_per_eu 1 (the fork's default) reaches LLVM as the minimum "1",
#     not upstream's "1, 1": the occupancy is the trailer's 10, where an
#     "N, N" reading would cap it at 1;
#   - tregc upload of the same cache to a real tregd on 127.0.0.1: three
#     reports, the failed_kernels line on stderr, exit 0.
# The listing: clang-22 -x hip -S for gfx906 and gfx90a writes one .s with
# a section per target and a host section (clang's offload bundler's text
# format); each device section's report equals the text of that target
# analyzed alone (clang-22 --cuda-device-only -S), the host section is
# skipped and said.  The same listing in DTK's clang 15 form (one dash
# before the processor, a gfx926 section) is read too; a listing cut off
# before a section's END is one line naming it.
set -euo pipefail
prog=test_hygon_cache
# shellcheck source=tests/cli/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
require_analyzer
command -v python3 >/dev/null 2>&1 || skip "python3 is needed to read the JSON"
MC=${MC:-llvm-mc-22}
LLD=${LLD:-ld.lld-22}
CLANG=${CLANG:-clang-22}
if ! command -v "$MC" >/dev/null || ! command -v "$LLD" >/dev/null; then
  skip "$MC or $LLD not found (llvm-22, lld-22)"
fi
A=$TREG_ANALYZE
work=$(mktemp -d "${TMPDIR:-/tmp}/treg-hygon-cache.XXXXXX")
trap 'rm -rf "$work"' EXIT
data=$TREG_SOURCE_ROOT/tests/data

# --- the cache ----------------------------------------------------------------------
cache=$work/cache
amd=$data/triton-cache/I24B4VIKUZU37PH46DEKWPBMMZFR3R2C6IFQV55DYIF4MODDWY2Q
[[ -d $amd ]] || fail "no $amd (tests/data keeps it)"
mkdir -p "$cache/AMDENTRY"
cp "$amd"/add_kernel.* "$cache/AMDENTRY/"
src=$data/hygon-triton-das/Inputs/hcu-max-mem-cluster-16.amdgcn
for e in HYGONHIP HYGONHCU; do
  mkdir -p "$cache/$e"
  hygon_code_object "$src" "$cache/$e/same_base_cluster_kernel.hsaco" "$MC" "$LLD"
  cp "$src" "$cache/$e/same_base_cluster_kernel.amdgcn"
done
# The .json as the fork's compiler.py dumps it: {"hash", "target", HIPOptions'
# fields (third_party/hcu/backend/compiler.py@03c05f32:35-148), "warp_size",
# "triton_version", then what the stages add}.
python3 - "$cache" <<'PY'
import json, sys
cache = sys.argv[1]
options = {"num_warps": 1, "waves_per_eu": 1, "num_stages": 2, "num_ctas": 1, "extern_libs": None,
           "debug": False, "sanitize_overflow": True, "arch": "gfx936",
           "supported_fp8_dtypes": ["fp8e4nv", "fp8e5"], "deprecated_fp8_dot_operand_dtypes": [],
           "default_dot_input_precision": "ieee", "allowed_dot_input_precisions": ["ieee", "tf32"],
           "enable_fp_fusion": True, "launch_cooperative_grid": False, "matrix_instr_nonkdim": 0,
           "kpack": 1, "allow_flush_denorm": False, "max_num_imprecise_acc_default": 0,
           "backend_name": "hip", "instrumentation_mode": "", "optimize_epilogue": True,
           "mmac_layout_force": -1, "async_copy_use_single_buffer": True, "schedule_hint": "none",
           "sched_latency": "none", "buffer_cache_swizzle": False, "wasp_enabled": False,
           "wdra_enabled": False, "wasp_num_load_warps": None, "wasp_num_mma_warps": None,
           "wdra_num_load_regs": None, "wdra_num_mma_regs_main": None, "wdra_num_mma_regs_tail": None,
           "empty_arrive_after_mmac": False, "enable_v_mmac_cluster": 0, "warp_size": 64}
def entry(backend, changes):
    d = {"hash": "0" * 64, "target": {"backend": backend, "arch": "gfx936", "warp_size": 64}}
    d.update(options)
    d.update(changes)
    d.update({"triton_version": "3.2.0", "tensordesc_meta": None, "use_nvshmem": False,
              "use_rocshmem": False, "shared": 0, "profile_scratch_size": 0,
              "profile_scratch_align": 1, "name": "same_base_cluster_kernel"})
    return d
json.dump(entry("hip", {}), open(f"{cache}/HYGONHIP/same_base_cluster_kernel.json", "w"))
json.dump(entry("hcu", {"mmac_layout_force": 2, "sched_latency": "mmac5-ds10", "wasp_enabled": True,
                        "wasp_num_load_warps": 4}),
          open(f"{cache}/HYGONHCU/same_base_cluster_kernel.json", "w"))
PY
failed=$cache/failed_kernels/20261204_101010_same_base_cluster_kernel_llir_amdgcn
mkdir -p "$failed"
printf 'stage      : llir->amdgcn\nkernel     : same_base_cluster_kernel\nerror      : clang exited 1\n' >"$failed/context.txt"
printf 'define amdgpu_kernel void @same_base_cluster_kernel() {\n  ret void\n}\n' >"$failed/tmpab12cd.ll"

"$A" --format json --no-rows "$cache" >"$work/cache.json" 2>"$work/cache.err" ||
  fail "treg-analyze on the mixed cache: $(cat "$work/cache.err")"
mapfile -t errs <"$work/cache.err"
if ((${#errs[@]} != 1)) ||
  [[ ${errs[0]} != "treg-analyze: $cache/failed_kernels: skipped: Hygon's Triton keeps failed compilations there"* ]]; then
  fail "stderr is not the one failed_kernels line: $(cat "$work/cache.err")"
fi
python3 - "$work/cache.json" "$src" <<'PY' || fail "the mixed cache: see above"
import json, re, sys
doc = json.load(open(sys.argv[1]))
trailer_occ = int(re.search(r"^; Occupancy: (\d+)$", open(sys.argv[2]).read(), re.M)[1])
by_entry = {r["file"].rsplit("/", 2)[1]: r for r in doc["reports"]}
errors = []
if sorted(by_entry) != ["AMDENTRY", "HYGONHCU", "HYGONHIP"] or doc.get("errors"):
    errors.append(f"entries {sorted(by_entry)}, errors {doc.get('errors')}")
amd, hip, hcu = by_entry["AMDENTRY"], by_entry["HYGONHIP"], by_entry["HYGONHCU"]
if amd["target"] != "gfx942" or "hcu_options" in amd["triton"] or amd["triton"].get("backend") != "hip":
    errors.append(f"AMD entry: target {amd['target']}, triton {amd['triton']}")
for name, r in (("HYGONHIP", hip), ("HYGONHCU", hcu)):
    (k,) = r["kernels"]
    if r["target"] != "gfx936" or k["instruction_source"] != "code object":
        errors.append(f"{name}: target {r['target']}, source {k['instruction_source']}")
    if k["occupancy"]["waves_per_simd"] != trailer_occ:
        errors.append(f"{name}: occupancy {k['occupancy']['waves_per_simd']}, the trailer {trailer_occ}"
                      " (waves_per_eu 1 is a minimum, not '1, 1')")
if hip["triton"].get("backend") != "hip" or "hcu_options" in hip["triton"]:
    errors.append(f"HYGONHIP triton {hip['triton']}")
if hcu["triton"].get("backend") != "hcu" or hcu["triton"].get("hcu_options") != \
        "mmac_layout_force=2, sched_latency=mmac5-ds10, wasp_enabled=true, wasp_num_load_warps=4":
    errors.append(f"HYGONHCU triton {hcu['triton']}")
if errors:
    sys.exit("\n".join(errors))
PY
"$A" "$cache/HYGONHCU" >"$work/hcu.txt" 2>&1 || fail "text of the hcu entry"
grep -q "^  Hygon's Triton options: mmac_layout_force=2, sched_latency=mmac5-ds10" "$work/hcu.txt" ||
  fail "text: the Hygon options are not shown: $(head -5 "$work/hcu.txt")"
echo "$prog: ok: a cache of AMD and Hygon entries analyzed entry by entry, failed_kernels skipped in one line, backend and Hygon options under triton{}, waves_per_eu a minimum (occupancy as the trailer)"

# tregc upload of the same cache to a real tregd
build=$(cd "$(dirname "$A")/.." && pwd)
TREGD=${TREGD:-$build/server/tregd}
TREGC=${TREGC:-$build/client/tregc}
if [[ -x $TREGD && -x $TREGC ]] && command -v openssl >/dev/null; then
  mkdir -p "$work/srv"
  start_tregd "$work/srv"
  rc=0
  tregc_to --format json upload "$cache" >"$work/up.json" 2>"$work/up.err" || rc=$?
  ((rc == 0)) || fail "tregc upload of the mixed cache exited $rc: $(tail -3 "$work/up.err")"
  grep -q "^tregc: $cache/failed_kernels: skipped: Hygon's Triton keeps failed compilations there" "$work/up.err" ||
    fail "tregc: no failed_kernels line: $(cat "$work/up.err")"
  python3 - "$work/up.json" <<'PY' || fail "tregc upload: see above"
import json, sys
doc = json.load(open(sys.argv[1]))
targets = sorted(r["target"] for r in doc["reports"])
if targets != ["gfx936", "gfx936", "gfx942"] or doc.get("errors"):
    sys.exit(f"uploaded targets {targets}, errors {doc.get('errors')}")
PY
  stop_tregd
  echo "$prog: ok: tregc upload of the mixed cache: three reports from tregd on 127.0.0.1, failed_kernels said and skipped"
else
  echo "$prog: note: tregd/tregc not built or no openssl: the upload half skipped"
fi

# --- the bundled listing ----------------------------------------------------------------
command -v "$CLANG" >/dev/null || skip "cache checks passed; $CLANG not found for the listing"
hip=$TREG_SOURCE_ROOT/tests/fixtures/src/hip/vector_add.hip
inc=$TREG_SOURCE_ROOT/tests/fixtures/src
export PATH=/usr/lib/llvm-22/bin:$PATH # clang-offload-bundler
"$CLANG" -x hip --offload-arch=gfx906 --offload-arch=gfx90a -nogpulib -nogpuinc -I "$inc" -S \
  -o "$work/va.s" "$hip" 2>"$work/clang.err" || fail "$CLANG -S: $(head -3 "$work/clang.err")"
grep -q "^# __CLANG_OFFLOAD_BUNDLE____START__ host-" "$work/va.s" || fail "$CLANG wrote no bundled listing"
for gfx in gfx906 gfx90a; do
  "$CLANG" -x hip --offload-arch=$gfx --cuda-device-only -nogpulib -nogpuinc -I "$inc" -S \
    -o "$work/$gfx.s" "$hip" || fail "$CLANG --cuda-device-only for $gfx"
done
"$A" --format json "$work/va.s" >"$work/va.json" 2>"$work/va.err" || fail "the listing: $(cat "$work/va.err")"
"$A" --format json "$work/gfx906.s" >"$work/906.json" || fail "the gfx906 text alone"
"$A" --format json "$work/gfx90a.s" >"$work/90a.json" || fail "the gfx90a text alone"
python3 - "$work/va.json" "$work/906.json" "$work/90a.json" <<'PY' || fail "the listing: see above"
import json, sys
doc, a906, a90a = (json.load(open(p)) for p in sys.argv[1:4])
errors = []
reps = doc["reports"]
if [(r["target"], r.get("bundle_entry")) for r in reps] != [
        ("gfx906", "hip-amdgcn-amd-amdhsa--gfx906"), ("gfx90a", "hip-amdgcn-amd-amdhsa--gfx90a")]:
    errors.append(f"reports {[(r['target'], r.get('bundle_entry')) for r in reps]}")
(c,) = doc["containers"]
if c["format"] != "bundled assembly listing" or [s["reason"] for s in c["skipped"]] != ["host code"]:
    errors.append(f"container {c}")
for r, alone in zip(reps, (a906["reports"][0], a90a["reports"][0])):
    for ka, kb in zip(r["kernels"], alone["kernels"]):
        for key in ("name", "vgpr", "sgpr", "agpr", "occupancy", "instructions", "rows"):
            if ka[key] != kb[key]:
                errors.append(f"{r['target']} {ka['name']}: {key} differs from the target's text alone")
if errors:
    sys.exit("\n".join(errors))
print(f"  {sum(len(r['kernels']) for r in reps)} kernels in 2 sections, each as its target's text alone")
PY
"$A" "$work/va.s" >"$work/va.txt" 2>&1 || fail "the listing, text"
grep -q "^$work/va.s: bundled assembly listing with 2 AMDGPU sections; skipped host-x86_64-.* (host code)$" "$work/va.txt" ||
  fail "the listing's line: $(grep 'bundled' "$work/va.txt")"
echo "$prog: ok: clang-22's bundled listing for gfx906 and gfx90a: one report per device section, row for row as each target's text alone, the host section skipped"

# DTK's clang 15 form: one dash before the processor, a Hygon section
python3 - "$work/va.s" "$work/dtk.s" <<'PY'
import re, sys
t = open(sys.argv[1]).read()
m = re.search(r"\n# __CLANG_OFFLOAD_BUNDLE____START__ hip-amdgcn-amd-amdhsa--gfx906\n(.*?)\n\n# __CLANG_OFFLOAD_BUNDLE____END__ hip-amdgcn-amd-amdhsa--gfx906\n", t, re.S)
body926 = m[1].replace("amdgcn-amd-amdhsa--gfx906", "amdgcn-amd-amdhsa--gfx926")
t = t.replace("hip-amdgcn-amd-amdhsa--", "hip-amdgcn-amd-amdhsa-")
t = re.sub(r"host-(x86_64-[a-z]+-linux-gnu)-\n", r"host-\1\n", t)
gfx926 = ("\n# __CLANG_OFFLOAD_BUNDLE____START__ hip-amdgcn-amd-amdhsa-gfx926\n" + body926 +
          "\n\n# __CLANG_OFFLOAD_BUNDLE____END__ hip-amdgcn-amd-amdhsa-gfx926\n")
i = t.index("\n# __CLANG_OFFLOAD_BUNDLE____START__ host-")
open(sys.argv[2], "w").write(t[:i] + gfx926 + t[i:])
PY
"$A" --format json --no-rows "$work/dtk.s" >"$work/dtk.json" 2>"$work/dtk.err" || fail "DTK's form: $(cat "$work/dtk.err")"
python3 - "$work/dtk.json" <<'PY' || fail "DTK's form: see above"
import json, sys
doc = json.load(open(sys.argv[1]))
got = [(r["target"], r.get("bundle_entry"), r["provisional"]) for r in doc["reports"]]
want = [("gfx906", "hip-amdgcn-amd-amdhsa-gfx906", False), ("gfx90a", "hip-amdgcn-amd-amdhsa-gfx90a", False),
        ("gfx926", "hip-amdgcn-amd-amdhsa-gfx926", True)]
if got != want:
    sys.exit(f"reports {got}")
PY
echo "$prog: ok: DTK's clang 15 form (amdhsa-gfx906, a gfx926 section): each section on its own target"
# cut off inside a section: one line naming it
head -n 100 "$work/va.s" >"$work/cut.s"
rc=0
"$A" "$work/cut.s" >/dev/null 2>"$work/cut.err" || rc=$?
mapfile -t lines <"$work/cut.err"
if ((rc != 1 || ${#lines[@]} != 1)) ||
  [[ ${lines[0]} != *"cut.s: section hip-amdgcn-amd-amdhsa--gfx906 (from line 2) has no END line" ]]; then
  fail "a cut listing: exit $rc, stderr $(cat "$work/cut.err")"
fi
echo "$prog: ok: a listing cut inside its first section: ${lines[0]}"

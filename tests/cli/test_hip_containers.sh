#!/usr/bin/env bash
# HIP executables, libraries and offload bundles through treg-analyze, on the
# fixtures of tests/fixtures/make-hip-fixtures.sh (TREG_HIP_FIXTURES):
#   - every code object inside every container gives the report that the
#     same object, extracted by clang-offload-bundler --unbundle, gives
#     alone (all fields but the file name and bundle entry), with target and
#     bundle_entry set; the host entry is skipped and named;
#   - every container format: an executable with two bundles, the same
#     compressed (CCOB v3 zstd), shared libraries (ld.lld's relocated and
#     GNU ld's plain .hipFatBinSegment pointers), bare bundles, CCOB v1-3 in
#     zlib and zstd, three bundles back to back, offload binaries alone and in
#     a host object's .llvm.offloading; an -fgpu-rdc object (bitcode only) is
#     refused, naming its entries;
#   - --target keeps only the targets asked for, and says when none is there;
#   - the cross-target view: one table per kernel with a column per target,
#     its JSON figures those of each target's report, Hygon's provisional
#     targets marked in text and JSON;
#   - hostile containers (truncated, lying offsets and counts, a CCOB stating
#     1 TiB, zstd and zlib bombs, a 2 GiB honest bomb, a lying section size
#     and pointer): one line of error each, exit 1, and a bounded peak RSS.
set -uo pipefail
prog=test_hip_containers.sh
# shellcheck source=tests/cli/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
require_analyzer
command -v python3 >/dev/null || skip "python3 not found"
hx=${TREG_HIP_FIXTURES:-}
[[ -n $hx && -f $hx/ENTRIES.tsv ]] || fail "no HIP fixtures at ${hx:-(TREG_HIP_FIXTURES unset)}: run tests/fixtures/make-hip-fixtures.sh"
out=${TREG_TEST_OUTPUT:-${TMPDIR:-/tmp}}/hip_containers
rm -rf "$out"
mkdir -p "$out"
checks=0
ok() {
  checks=$((checks + 1))
  echo "$prog: ok: $*"
}

# --- every embedded code object equals its unbundled twin --------------------
containers=$(tail -n +2 "$hx/ENTRIES.tsv" | cut -f1 | sort -u)
for c in $containers; do
  "$TREG_ANALYZE" --format json "$hx/$c" >"$out/$c.json" 2>"$out/$c.err" ||
    fail "$c: treg-analyze failed: $(cat "$out/$c.err")"
done
# the unbundled objects, all in one run
mapfile -t singles < <(tail -n +2 "$hx/ENTRIES.tsv" | cut -f4)
(cd "$hx" && "$TREG_ANALYZE" --format json "${singles[@]}") >"$out/singles.json" 2>"$out/singles.err" ||
  fail "the unbundled objects: $(cat "$out/singles.err")"
msg=$(python3 - "$hx/ENTRIES.tsv" "$out" <<'PY'
import csv, json, re, sys
rows = list(csv.DictReader(open(sys.argv[1]), delimiter="\t"))
out = sys.argv[2]
singles = {r["file"]: r for r in json.load(open(f"{out}/singles.json"))["reports"]}
IGNORE = {"file", "bundle_entry"}
def strip(r):
    return {k: v for k, v in r.items() if k not in IGNORE}
docs, n = {}, 0
for row in rows:
    c = row["container"]
    doc = docs.setdefault(c, json.load(open(f"{out}/{c}.json")))
    objs = doc["containers"][0]["code_objects"]
    # reports come in the order of code_objects
    found = [r for r, o in zip(doc["reports"], objs)
             if o["bundle_entry"] == row["entry"]
             and re.search(r"(?:bundle|image) %s\b" % row["bundle"], o["where"])]
    if len(found) != 1:
        sys.exit(f"{c}: bundle {row['bundle']} entry {row['entry']}: {len(found)} reports")
    r = found[0]
    if r["bundle_entry"] != row["entry"] or not r["file"].endswith(c):
        sys.exit(f"{c}: report names {r['file']!r}, {r.get('bundle_entry')!r}")
    gfx = re.search(r"--(gfx\w+)", row["entry"]).group(1)
    if r["target"] != gfx:
        sys.exit(f"{c}: entry {row['entry']} reported as target {r['target']}")
    single = singles[row["unbundled"]]
    if strip(r) != strip(single):
        diff = sorted(k for k in set(r) | set(single) if k not in IGNORE and r.get(k) != single.get(k))
        sys.exit(f"{c}: {row['entry']} (bundle {row['bundle']}) differs from {row['unbundled']} in {diff}")
    n += 1
print(f"{n} embedded code objects in {len(docs)} containers equal their unbundled twins")
PY
) || fail "$msg"
ok "$msg"

# --- formats, skipped entries ----------------------------------------------
python3 - "$out" <<'PY' || fail "container formats: see above"
import json, sys
out = sys.argv[1]
want = {"app": ("host ELF (.hip_fatbin)", 8), "app-compressed": ("host ELF (.hip_fatbin)", 8),
        "libkernels.so": ("host ELF (.hip_fatbin)", 4), "app.hipfb": ("offload bundle", 4),
        "app-v3.hipfb": ("compressed offload bundle", 4), "multi.hipfb": ("offload bundle", 12),
        "ccob-v1-zlib.hipfb": ("compressed offload bundle", 4)}
for c, (fmt, n) in want.items():
    k = json.load(open(f"{out}/{c}.json"))["containers"][0]
    if k["format"] != fmt or len(k["code_objects"]) != n:
        sys.exit(f"{c}: {k['format']}, {len(k['code_objects'])} code objects; want {fmt}, {n}")
    host = [s for s in k["skipped"] if s["bundle_entry"].startswith("host-")]
    if not host or host[0]["reason"] != "host code":
        sys.exit(f"{c}: the host entry is not named as skipped: {k['skipped']}")
    if c == "app-compressed" and k["decompressed_bytes"] <= 0:
        sys.exit(f"{c}: nothing decompressed")
PY
ok "formats and skipped host entries of 7 containers"

for f in libkernels-bfd.so offload.bin offload-host.o; do
  [[ -f $hx/$f ]] || { echo "$prog: note: no $f (no GNU ld?)"; continue; }
  "$TREG_ANALYZE" --format json --no-rows "$hx/$f" >"$out/$f.json" 2>"$out/$f.err" || fail "$f: $(cat "$out/$f.err")"
  n=$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(len(d["reports"]), sorted(r["target"] for r in d["reports"]))' "$out/$f.json")
  [[ $n == "4 ['gfx906', 'gfx908', 'gfx90a', 'gfx942']" ]] || fail "$f: reports $n"
  ok "$f: 4 reports for gfx906 gfx908 gfx90a gfx942"
done
# text: the container's line names what it held and what it skipped
"$TREG_ANALYZE" "$hx/app" >"$out/app.txt" 2>&1 || fail "app (text): $(tail -3 "$out/app.txt")"
grep -qx "$hx/app: host ELF (.hip_fatbin) with 8 AMDGPU code objects; skipped host-x86_64-unknown-linux-gnu- (host code), host-x86_64-unknown-linux-gnu- (host code)" "$out/app.txt" ||
  fail "app (text): no container line: $(grep -v '^ ' "$out/app.txt" | head -12)"
grep -q "^$hx/app, entry hipv4-amdgcn-amd-amdhsa--gfx942: gfx942" "$out/app.txt" || fail "app (text): no gfx942 report header"
ok "text: the container line and per-entry headers"

# an -fgpu-rdc object holds bitcode only
"$TREG_ANALYZE" "$hx/rdc.o" >/dev/null 2>"$out/rdc.err" && fail "rdc.o: analyzed"
[[ $(wc -l <"$out/rdc.err") -eq 1 ]] && grep -q "rdc.o: no AMDGPU code object inside; skipped hip-amdgcn-amd-amdhsa--gfx906 (LLVM bitcode (-fgpu-rdc)" "$out/rdc.err" ||
  fail "rdc.o: $(cat "$out/rdc.err")"
ok "rdc.o: refused in one line naming its bitcode entries"

# --- --target ------------------------------------------------------------
"$TREG_ANALYZE" --format json --no-rows --target gfx90a "$hx/app" >"$out/t1.json" || fail "--target gfx90a failed"
"$TREG_ANALYZE" --format json --no-rows --target gfx942 --target gfx906 "$hx/app-compressed" >"$out/t2.json" || fail "--target gfx942 --target gfx906 failed"
python3 - "$out" <<'PY' || fail "--target: see above"
import json, sys
t1 = [r["target"] for r in json.load(open(f"{sys.argv[1]}/t1.json"))["reports"]]
t2 = [r["target"] for r in json.load(open(f"{sys.argv[1]}/t2.json"))["reports"]]
if t1 != ["gfx90a", "gfx90a"]: sys.exit(f"--target gfx90a: {t1}")
if sorted(t2) != ["gfx906", "gfx906", "gfx942", "gfx942"]: sys.exit(f"--target gfx942 gfx906: {t2}")
PY
"$TREG_ANALYZE" --target gfx1100 "$hx/app" >/dev/null 2>"$out/t3.err" && fail "--target gfx1100: exit 0"
grep -q "app: no code object for --target gfx1100 (it holds gfx906, gfx908, gfx90a, gfx942)" "$out/t3.err" || fail "--target gfx1100: $(cat "$out/t3.err")"
"$TREG_ANALYZE" --target gfx90a "$TREG_FIXTURES/gfx906/loop_kernel.hsaco" >/dev/null 2>"$out/t4.err" && fail "--target gfx90a on a gfx906 object: exit 0"
grep -q "no code object for --target gfx90a (it holds gfx906)" "$out/t4.err" || fail "--target on a code object: $(cat "$out/t4.err")"
"$TREG_ANALYZE" --target 906 "$hx/app" >/dev/null 2>"$out/t5.err"
[[ $? -eq 2 ]] && grep -q "target takes a processor such as gfx906" "$out/t5.err" || fail "--target 906: $(cat "$out/t5.err")"
ok "--target: keeps gfx90a / gfx942+gfx906, names what a file holds, refuses '906'"

# --- the cross-target view ---------------------------------------------------
"$TREG_ANALYZE" --format json --no-rows "$hx/hygon.hipfb" >"$out/hygon.json" || fail "hygon.hipfb failed"
"$TREG_ANALYZE" "$hx/hygon.hipfb" >"$out/hygon.txt" || fail "hygon.hipfb (text) failed"
msg=$(python3 - "$out" <<'PY'
import json, sys
out = sys.argv[1]
n = 0
for name in ("app", "hygon"):
    doc = json.load(open(f"{out}/{name}.json"))
    by = {(r["target"], r.get("bundle_entry"), k["name"]): (r, k) for r in doc["reports"] for k in r["kernels"]}
    cross = doc.get("cross_target", [])
    kernels = sorted({k["name"] for r in doc["reports"] for k in r["kernels"]})
    if sorted(c["kernel"] for c in cross) != kernels:
        sys.exit(f"{name}: cross_target kernels {[c['kernel'] for c in cross]}, reports {kernels}")
    for c in cross:
        for t in c["targets"]:
            r, k = by[(t["target"], t.get("bundle_entry"), c["kernel"])]
            o = k["occupancy"]
            got = (t["vgpr"]["peak_live"], t["vgpr"]["allocated"], t["sgpr"]["peak_live"], t["waves_per_simd"],
                   t["limited_by"], t["vgprs_to_next"], t["scratch_bytes"], t["provisional"])
            want = (k["vgpr"]["peak_live"], k["vgpr"]["allocated"], k["sgpr"]["peak_live"], o["waves_per_simd"],
                    o["limited_by"], o["vgprs_to_next"], k["scratch_bytes"], r["provisional"])
            if got != want:
                sys.exit(f"{name}: {c['kernel']} on {t['target']}: cross {got}, report {want}")
            n += 1
    if name == "hygon":
        for c in cross:
            ts = {t["target"]: t for t in c["targets"]}
            if sorted(ts) != ["gfx906", "gfx926", "gfx928", "gfx936"]:
                sys.exit(f"hygon: {c['kernel']} targets {sorted(ts)}")
            if ts["gfx906"]["provisional"] or not ts["gfx928"]["provisional"]:
                sys.exit(f"hygon: provisional flags {[(t, v['provisional']) for t, v in ts.items()]}")
print(f"{n} cross-target cells equal their reports' figures")
PY
) || fail "cross-target: $msg"
ok "$msg"
grep -q "^kernel vector_add across 4 code objects$" "$out/hygon.txt" || fail "hygon (text): no cross-target table"
grep -Eq "^ +gfx906 +gfx926\*? +gfx928\* +gfx936\*" "$out/hygon.txt" || fail "hygon (text): column heads: $(grep -A1 'across 4' "$out/hygon.txt" | tail -1)"
grep -q "^    \* provisional: " "$out/hygon.txt" || fail "hygon (text): the provisional mark is not explained"
awk '/across 4 code objects/,/^$/' "$out/hygon.txt" | awk 'length > 100 { exit 1 }' || fail "hygon (text): a table line past 100 columns"
ok "text: the cross-target table, provisional targets marked and explained, within 100 columns"

# --- hostile containers ------------------------------------------------------
bad() { # FILE PHRASE
  local f=$hx/bad/$1 rc
  python3 - "$TREG_ANALYZE" "$f" "$out/bad.err" <<'PY'
import resource, subprocess, sys
with open(sys.argv[3], "w") as err:
    rc = subprocess.run([sys.argv[1], sys.argv[2]], stdout=subprocess.DEVNULL, stderr=err).returncode
peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss // 1024
open(sys.argv[3] + ".rss", "w").write(f"{rc} {peak}\n")
PY
  read -r rc peak <"$out/bad.err.rss"
  [[ $rc -eq 1 ]] || fail "$1: exit $rc: $(cat "$out/bad.err")"
  [[ $(wc -l <"$out/bad.err") -eq 1 ]] || fail "$1: not one line: $(cat "$out/bad.err")"
  grep -qF -- "$2" "$out/bad.err" || fail "$1: '$(cat "$out/bad.err")' does not say '$2'"
  # a bomb must not be inflated: far below its 2 GiB or 64 MiB (ASan's own is ~100 MiB)
  ((peak < 300)) || fail "$1: peak RSS $peak MiB"
  ok "$1: '$2' (peak RSS $peak MiB)"
}
bad truncated.hipfb "offload bundle states 5 entries; its 97 bytes hold at most 2"
bad lying-offset.hipfb "entry 2 (hipv4-amdgcn-amd-amdhsa--gfx906) at offset 1099511627776"
bad entry-count.hipfb "offload bundle states 1152921504606846976 entries"
bad ccob-huge.hipfb "CCOB v3 states 1099511627776 bytes uncompressed, past the limit"
bad ccob-truncated.hipfb "CCOB v3 states a total size of"
bad ccob-v1-truncated.hipfb "truncated zlib stream"
bad ccob-version.hipfb "compressed bundle version 9"
bad zstd-bomb.hipfb "decompresses past the 1048576 bytes its header states"
bad zlib-bomb.hipfb "decompresses past the 1048576 bytes its header states"
bad zstd-bomb-2g.hipfb "CCOB v3 states 2147483648 bytes uncompressed, past the limit"
bad fatbin-size.exe "lies outside the file's"
bad segment-pointer.exe ".hipFatBinSegment+0x0 points at .hip_fatbin+0x10, which is not the start of a bundle"
bad not-a-bundle.hipfb "not a code object, offload bundle or ELF with GPU code"

echo "$prog: PASS ($checks checks)"

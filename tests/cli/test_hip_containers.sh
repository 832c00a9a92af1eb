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
#     and pointer): one line of error each, exit 1, and a bounded peak RSS;
#   - tregc against a real tregd (TLS on 127.0.0.1): `tregc upload app`
#     extracts and sends each code object, every report's hash is the
#     SHA-256 of its clang-offload-bundler twin and its figures are
#     treg-analyze's; the server lists those 8 code objects and not the
#     executable; app.hipfb's 4 objects (the same as app's first bundle) and
#     a second upload of app are served as stored before; --target sends
#     only gfx90a's; a hostile bundle is one line of error with nothing sent.
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
if [[ $(wc -l <"$out/rdc.err") -ne 1 ]] ||
  ! grep -q "rdc.o: no AMDGPU code object inside; skipped hip-amdgcn-amd-amdhsa--gfx906 (LLVM bitcode (-fgpu-rdc)" "$out/rdc.err"; then
  fail "rdc.o: $(cat "$out/rdc.err")"
fi
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
rc=0
"$TREG_ANALYZE" --target 906 "$hx/app" >/dev/null 2>"$out/t5.err" || rc=$?
if [[ $rc -ne 2 ]] || ! grep -q "target takes a processor such as gfx906" "$out/t5.err"; then
  fail "--target 906: exit $rc: $(cat "$out/t5.err")"
fi
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
grep -q "^    \* provisional target: " "$out/hygon.txt" || fail "hygon (text): the provisional mark is not explained"
awk '/across 4 code objects/,/^$/' "$out/hygon.txt" | awk 'length > 100 { exit 1 }' || fail "hygon (text): a table line past 100 columns"
ok "text: the cross-target table, provisional targets marked and explained, within 100 columns"

# an entry labelled for another processor than its object: the object's target, and a note
"$TREG_ANALYZE" --format json --no-rows "$hx/mislabelled.hipfb" >"$out/mis.json" || fail "mislabelled.hipfb failed"
python3 - "$out/mis.json" <<'PY' || fail "mislabelled.hipfb: see above"
import json, sys
r = json.load(open(sys.argv[1]))["reports"][0]
if r["target"] != "gfx906" or "the bundle entry names gfx926, the code object gfx906" not in r.get("target_note", ""):
    sys.exit(f"mislabelled.hipfb: target {r['target']}, note {r.get('target_note')!r}")
PY
ok "an entry labelled gfx926 over a gfx906 object: analyzed as gfx906, the note says so"

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
bad segment-pointer.exe ".hipFatBinSegment points at .hip_fatbin+0x10, which is not the start of a bundle"
bad not-a-bundle.hipfb "not a code object, offload bundle or ELF with GPU code"

# --- tregc and tregd ------------------------------------------------------
build=$(cd "$(dirname "$TREG_ANALYZE")/.." && pwd)
TREGD=${TREGD:-$build/server/tregd}
TREGC=${TREGC:-$build/client/tregc}
if [[ -x $TREGD && -x $TREGC ]] && command -v openssl >/dev/null && command -v setsid >/dev/null; then
  start_tregd "$out" --workers 2
  tregc_to --format json upload "$hx/app" >"$out/tc-app.json" 2>"$out/tc.err" || fail "tregc upload app: $(cat "$out/tc.err")"
  tregc_to --format json upload "$hx/app" >"$out/tc-app2.json" 2>"$out/tc.err" || fail "tregc upload app (again): $(cat "$out/tc.err")"
  tregc_to --format json upload "$hx/app.hipfb" >"$out/tc-hipfb.json" 2>"$out/tc.err" || fail "tregc upload app.hipfb: $(cat "$out/tc.err")"
  tregc_to --format json --no-rows --target gfx90a upload "$hx/app" >"$out/tc-t.json" 2>"$out/tc.err" || fail "tregc upload --target: $(cat "$out/tc.err")"
  tregc_to --format json list >"$out/tc-list.json" 2>"$out/tc.err" || fail "tregc list: $(cat "$out/tc.err")"
  msg=$(python3 - "$hx" "$out" <<'PY'
import csv, hashlib, json, re, sys
hx, out = sys.argv[1:3]
sha = lambda p: hashlib.sha256(open(p, "rb").read()).hexdigest()
rows = [r for r in csv.DictReader(open(f"{hx}/ENTRIES.tsv"), delimiter="\t")]
twins = {(r["container"], r["bundle"], r["entry"]): sha(f"{hx}/{r['unbundled']}") for r in rows}
local = json.load(open(f"{out}/app.json"))
served = json.load(open(f"{out}/tc-app.json"))
objs = served["containers"][0]["code_objects"]
if len(served["reports"]) != 8 or len(objs) != 8:
    sys.exit(f"tregc upload app: {len(served['reports'])} reports, {len(objs)} code objects")
strip = lambda r: {k: v for k, v in r.items() if k not in ("file", "hash", "stored_before", "link")}
for r, o, l in zip(served["reports"], objs, local["reports"]):
    bundle = re.search(r"bundle (\d+)", o["where"]).group(1)
    want = twins[("app", bundle, r["bundle_entry"])]
    if r["hash"] != want or o["hash"] != want:
        sys.exit(f"{r['bundle_entry']} (bundle {bundle}): hash {r['hash']}, its unbundled twin {want}")
    if r["stored_before"]:
        sys.exit(f"{r['bundle_entry']}: stored before on a fresh store")
    if strip(r) != strip(l):
        sys.exit(f"{r['bundle_entry']}: tregc's report differs from treg-analyze's")
again = json.load(open(f"{out}/tc-app2.json"))["reports"]
if not all(r["stored_before"] for r in again) or len(again) != 8:
    sys.exit("a second upload of app was analyzed again")
hipfb = json.load(open(f"{out}/tc-hipfb.json"))["reports"]
if len(hipfb) != 4 or not all(r["stored_before"] for r in hipfb):
    sys.exit(f"app.hipfb: {[(r['target'], r['stored_before']) for r in hipfb]}: want 4 stored before")
t = json.load(open(f"{out}/tc-t.json"))["reports"]
if [r["target"] for r in t] != ["gfx90a", "gfx90a"]:
    sys.exit(f"--target gfx90a sent {[r['target'] for r in t]}")
listed = json.load(open(f"{out}/tc-list.json"))["reports"]
hashes = {r["hash"] for r in listed}
if hashes != {twins[k] for k in twins if k[0] == "app"} or sha(f"{hx}/app") in hashes:
    sys.exit(f"the server lists {len(hashes)} reports, not app's 8 code objects")
print("8 code objects sent by their own SHA-256 (their unbundled twins'), treg-analyze's figures; "
      "the server holds those 8 and not the executable; app again and app.hipfb stored before; "
      "--target sent gfx90a's 2")
PY
  ) || fail "tregc: $msg"
  ok "tregc/tregd: $msg"
  # Hygon's targets in the store: the text list marks the provisional ones
  # (as their reports say) and says what the mark means.
  tregc_to upload "$hx/hygon.hipfb" >/dev/null 2>"$out/tc.err" || fail "tregc upload hygon.hipfb: $(cat "$out/tc.err")"
  tregc_to --format json list >"$out/tc-list.json" 2>"$out/tc.err" || fail "tregc list: $(cat "$out/tc.err")"
  tregc_to list >"$out/tc-list.txt" 2>"$out/tc.err" || fail "tregc list (text): $(cat "$out/tc.err")"
  msg=$(python3 - "$out" <<'PY'
import json, sys
out = sys.argv[1]
listed = json.load(open(f"{out}/tc-list.json"))["reports"]
text = open(f"{out}/tc-list.txt", encoding="utf-8").read().splitlines()
marked = {r["hash"][:12]: r["target"] + ("*" if r["provisional"] else "") for r in listed}
for line in text[1:1 + sum(len(r["kernels"]) for r in listed)]:
    h, target = line.split()[0], line.split()[3]
    if marked.get(h) != target:
        sys.exit(f"{line!r}: target {target}, the report's {marked.get(h)}")
n = sum(v.endswith("*") for v in marked.values())
if n == 0 or not any(l.startswith("* provisional target: ") for l in text):
    sys.exit("no provisional target marked and explained")
print(f"{n} of {len(marked)} code objects on provisional targets, marked and explained")
PY
  ) || fail "tregc list: $msg"
  ok "tregc list: $msg"
  posts=$(grep -c '/v1/analyze' "$out/tregd.log" || true)
  tregc_to upload "$hx/bad/lying-offset.hipfb" >/dev/null 2>"$out/tc-bad.err" && fail "tregc: a hostile bundle was accepted"
  if [[ $(wc -l <"$out/tc-bad.err") -ne 1 ]] ||
    ! grep -q "lying-offset.hipfb: offset 0x0, bundle 1: offload bundle entry 2" "$out/tc-bad.err"; then
    fail "tregc on a hostile bundle: $(cat "$out/tc-bad.err")"
  fi
  [[ $(grep -c '/v1/analyze' "$out/tregd.log" || true) == "$posts" ]] || fail "tregc sent something for a hostile bundle"
  ok "tregc: a hostile bundle is one line of error, nothing sent"
  stop_tregd
else
  echo "$prog: note: tregd/tregc or openssl not available; the served case skipped"
fi

echo "$prog: PASS ($checks checks)"

#!/usr/bin/env bash
# The shape of treg-analyze's output, text and JSON, and the options that
# change it.
#
# Inputs: a fixture code object ($TREG_FIXTURES/gfx906/loop_kernel.hsaco), a
# fixture Triton cache entry and the fixtures' triton-like/ cache, a two-kernel
# code object linked here from the fixtures' loop_kernel.ll and branch_kernel.ll
# (needs llvm-link-22, llc-22, ld.lld-22), and, when $TREG_CORPUS is present,
# one Triton cache entry folder and the whole triton-cache/ folder.
# Asserts, on every JSON document: each kernel has name, target, instructions,
# vgpr/agpr/sgpr{peak_live, allocated}, occupancy{waves_per_simd, limited_by},
# scratch_bytes, spill_instructions, undefined_reads, peak_vgpr{address, file,
# line}, source_lines[{file, line, instructions, peak_vgpr, peak_sgpr}],
# peak_attribution[...], rows[{address, text, file, line, vgpr, agpr, sgpr,
# reads, writes}] and live_ranges[...],
# and these invariants (each checked to hold on the fixtures and the corpus):
#   rows count == instructions; row addresses start at 0 and increase;
#   every row's vgpr/agpr/sgpr <= that class's peak_live;
#   exactly one row at peak_vgpr.address, with vgpr == vgpr.peak_live and
#     peak_vgpr's file/line;
#   source_lines: instructions sum <= instructions (== the rows that have a
#     line), (file, line) unique, each peak_vgpr/peak_sgpr <= the kernel's;
#   peak_attribution: vgpr sum == vgpr.peak_live, agpr/sgpr sums == the peak
#     row's agpr/sgpr;
#   peak_live <= allocated for every class; 1 <= waves_per_simd <= max_waves;
#     limited_by is one of the documented names; spill_instructions == spills
#     count; the kernel's target is the report's.
# And: --kernel keeps only matching kernels (an unanchored ERE); --no-rows
# drops rows and live_ranges and changes nothing else; text mode prints one header per file
# and one summary per kernel, matching the JSON; a folder yields one report
# per .hsaco below it, in sorted order.
#
# Environment (set by CTest, see tests/CMakeLists.txt): TREG_ANALYZE,
# TREG_FIXTURES, TREG_CORPUS.
set -euo pipefail

prog=test_formats
# shellcheck source=tests/cli/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

require_analyzer
command -v python3 >/dev/null 2>&1 || skip "python3 is needed to read treg-analyze's JSON"
fx=${TREG_FIXTURES:-}
[[ -n $fx && -f $fx/gfx906/loop_kernel.hsaco && -d $fx/triton-like ]] ||
  skip "no fixtures at ${fx:-(TREG_FIXTURES unset)}; run tests/fixtures/make-fixtures.sh DIR and set TREG_FIXTURES=DIR"
A=$TREG_ANALYZE

work=$(mktemp -d "${TMPDIR:-/tmp}/treg-formats.XXXXXX")
trap 'rm -rf "$work"' EXIT

# analyze OUT ARGS...: treg-analyze must succeed silently.
analyze() {
  local out=$1
  shift
  local rc=0
  "$A" "$@" >"$out" 2>"$out.err" || rc=$?
  ((rc == 0)) || fail "treg-analyze $* exited $rc: $(head -n3 "$out.err")"
  [[ ! -s $out.err ]] || fail "treg-analyze $* wrote to stderr: $(head -n3 "$out.err")"
}

cat >"$work/check.py" <<'PY'
"""check.py JSON [--files F...] [--kernels N...] [--no-rows]: schema and invariants."""
import json, sys

args = sys.argv[1:]
path, rest = args[0], args[1:]
opts, key = {"--files": [], "--kernels": []}, None
no_rows = False
for a in rest:
    if a == "--no-rows":
        no_rows = True
    elif a in opts:
        key = a
    else:
        opts[key].append(a)
errors = []
def check(cond, msg):
    if not cond:
        errors.append(msg)
        if len(errors) > 20:
            sys.exit("\n".join(errors))
    return cond

doc = json.load(open(path))
check(doc.get("errors") == [], f"errors: {doc.get('errors')}")
reports = doc["reports"]
if opts["--files"]:
    got = [r["file"] for r in reports]
    check(got == opts["--files"], f"report files {got}\n  expected {opts['--files']}")
names = [k["name"] for r in reports for k in r["kernels"]]
if opts["--kernels"]:
    check(names == opts["--kernels"], f"kernels {names}, expected {opts['--kernels']}")
LIMITERS = {"vgpr", "agpr", "sgpr", "lds", "workgroup", "target", "waves_per_eu"}
def has(obj, keys, where):
    ok = True
    for k in keys:
        ok &= check(isinstance(obj, dict) and k in obj, f"{where}: no {k!r}")
    return ok
for r in reports:
    for k in r["kernels"]:
        w = f"{r['file']}:{k.get('name')}"
        if not has(k, ["name", "target", "instructions", "vgpr", "agpr", "sgpr", "occupancy",
                       "scratch_bytes", "spill_instructions", "undefined_reads", "peak_vgpr",
                       "source_lines", "peak_attribution", "spills"], w):
            continue
        for c in ("vgpr", "agpr", "sgpr"):
            has(k[c], ["peak_live", "allocated"], f"{w}: {c}")
            check(k[c]["peak_live"] <= k[c]["allocated"],
                  f"{w}: {c}.peak_live {k[c]['peak_live']} > allocated {k[c]['allocated']}")
        occ = k["occupancy"]
        has(occ, ["waves_per_simd", "limited_by", "max_waves"], f"{w}: occupancy")
        check(1 <= occ["waves_per_simd"] <= occ["max_waves"], f"{w}: waves_per_simd {occ['waves_per_simd']}")
        check(occ["limited_by"] in LIMITERS, f"{w}: limited_by {occ['limited_by']!r}")
        has(k["peak_vgpr"], ["address", "file", "line"], f"{w}: peak_vgpr")
        check(k["target"] == r["target"], f"{w}: target {k['target']} vs report {r['target']}")
        check(k["spill_instructions"] == len(k["spills"]), f"{w}: spill_instructions vs spills")
        lines = k["source_lines"]
        for l in lines:
            has(l, ["file", "line", "instructions", "peak_vgpr", "peak_sgpr"], f"{w}: source_lines")
        check(all(l["peak_vgpr"] <= k["vgpr"]["peak_live"] and l["peak_sgpr"] <= k["sgpr"]["peak_live"]
                  for l in lines), f"{w}: a source line's peak exceeds the kernel's")
        check(len({(l["file"], l["line"]) for l in lines}) == len(lines), f"{w}: source_lines repeat")
        line_insns = sum(l["instructions"] for l in lines)
        check(line_insns <= k["instructions"], f"{w}: source_lines count {line_insns} instructions")
        att = k["peak_attribution"]
        check(sum(a["vgpr"] for a in att) == k["vgpr"]["peak_live"],
              f"{w}: peak_attribution vgpr sum {sum(a['vgpr'] for a in att)} != {k['vgpr']['peak_live']}")
        if no_rows:
            check("rows" not in k, f"{w}: rows present with --no-rows")
            check("live_ranges" not in k, f"{w}: live_ranges present with --no-rows")
            continue
        check(isinstance(k.get("live_ranges"), list), f"{w}: no live_ranges")
        if not check(isinstance(k.get("rows"), list), f"{w}: no rows"):
            continue
        rows = k["rows"]
        for row in rows:
            if not has(row, ["address", "text", "file", "line", "call_site", "scope", "vgpr", "agpr",
                             "sgpr", "reads", "writes"], f"{w}: row"):
                break
        check(len(rows) == k["instructions"], f"{w}: {len(rows)} rows, {k['instructions']} instructions")
        addrs = [x["address"] for x in rows]
        check(addrs[:1] == [0] and all(a < b for a, b in zip(addrs, addrs[1:])),
              f"{w}: row addresses do not start at 0 and increase")
        for c in ("vgpr", "agpr", "sgpr"):
            worst = max((x[c] for x in rows), default=0)
            check(worst <= k[c]["peak_live"], f"{w}: a row has {worst} {c}s, peak_live is {k[c]['peak_live']}")
        peak = [x for x in rows if x["address"] == k["peak_vgpr"]["address"]]
        if check(len(peak) == 1, f"{w}: {len(peak)} rows at peak_vgpr.address"):
            p = peak[0]
            check(p["vgpr"] == k["vgpr"]["peak_live"], f"{w}: peak row has {p['vgpr']} VGPRs")
            check((p["file"], p["line"]) == (k["peak_vgpr"]["file"], k["peak_vgpr"]["line"]),
                  f"{w}: peak row's line differs from peak_vgpr's")
            check(sum(a["agpr"] for a in att) == p["agpr"], f"{w}: peak_attribution agpr sum")
            check(sum(a["sgpr"] for a in att) == p["sgpr"], f"{w}: peak_attribution sgpr sum")
        # source_lines are the author's lines: rows by call site
        check(line_insns == sum(1 for x in rows if x["call_site"]["file"] and x["call_site"]["line"]),
              f"{w}: source_lines instructions != rows with a call site")
        check(all(x["call_site"] == {"file": x["file"], "line": x["line"]} or x["scope"] for x in rows),
              f"{w}: a row's call site differs from its line outside any inlined call")
if errors:
    sys.exit("\n".join(errors))
print(f"{len(reports)} reports, {len(names)} kernels")
PY

# expected_files DIR: the .hsaco files below DIR in the tool's walk order
# (each folder's entries sorted bytewise, dot-names skipped, folders entered
# where they sort).
expected_files() {
  python3 - "$1" <<'PY'
import os, sys
def walk(d):
    for n in sorted(os.listdir(d), key=os.fsencode):
        if n.startswith("."):
            continue
        p = os.path.join(d, n)
        if os.path.isdir(p):
            yield from walk(p)
        elif n.endswith(".hsaco") and len(n) > 6:
            yield p
for p in walk(sys.argv[1]):
    print(p)
PY
}

# check JSON [ARGS...]: runs check.py, failing the test with its message.
check() {
  local what=$1
  shift
  local msg
  msg=$(python3 "$work/check.py" "$@" 2>&1) || fail "$what: $msg"
  echo "$prog: ok: $what: $msg"
}

# text_matches TEXT JSON: one "FILE: TARGET" header per report and one
# "  kernel NAME: N instructions" summary per kernel, in the JSON's order;
# then one "kernel NAME across N code objects" table per cross_target entry.
text_matches() {
  local what=$1
  python3 - "$2" "$3" <<'PY' || fail "$what: text output: see above"
import json, re, sys
text = open(sys.argv[1]).read().splitlines()
doc = json.load(open(sys.argv[2]))
want = []
for r in doc["reports"]:
    head = f"{r['file']}: {r['target']}"
    if r["decoded_as"] != r["target"]:
        head += f" (decoded as {r['decoded_as']})"
    want.append(head)
    want += [f"  kernel {k['name']}: {k['instructions']} instructions" for k in r["kernels"]]
across = re.compile(r"^kernel (\S+) across (\d+) code objects$")
cut = next((i for i, l in enumerate(text) if across.match(l)), len(text))
got = [l for l in text[:cut] if not l.startswith("  ") or l.startswith("  kernel ")]
got = [re.sub(r"(instructions),.*", r"\1", l) for l in got]
if got != want:
    sys.exit("text headers/summaries:\n  " + "\n  ".join(got) + "\nexpected:\n  " + "\n  ".join(want))
tables = [across.match(l).groups() for l in text[cut:] if across.match(l)]
want_tables = [(c["kernel"], str(len(c["targets"]))) for c in doc.get("cross_target", [])]
if tables != want_tables:
    sys.exit(f"cross-target tables {tables}, JSON cross_target {want_tables}")
PY
  echo "$prog: ok: $what: text has one summary per kernel"
}

# --- a fixture code object --------------------------------------------------------
good=$fx/gfx906/loop_kernel.hsaco
analyze "$work/one.json" --format json "$good"
check "fixture $good" "$work/one.json" --files "$good" --kernels loop_kernel
analyze "$work/one.txt" "$good"
text_matches "fixture $good" "$work/one.txt" "$work/one.json"

# --no-rows: no rows, nothing else changes.
analyze "$work/norows.json" --format json --no-rows "$good"
check "--no-rows" "$work/norows.json" --no-rows --kernels loop_kernel
python3 - "$work/one.json" "$work/norows.json" <<'PY' || fail "--no-rows changed more than the rows and live_ranges"
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:])
for r in a["reports"]:
    for k in r["kernels"]:
        del k["rows"], k["live_ranges"]
assert a == b, "reports differ beyond rows and live_ranges"
PY

# --- a fixture cache entry and the fixtures' cache ------------------------------------
entry=$fx/triton-like/loop_kernel-gfx906
analyze "$work/entry.json" --format json "$entry"
check "fixture cache entry" "$work/entry.json" --files "$entry/loop_kernel.hsaco" --kernels loop_kernel
mapfile -t want < <(expected_files "$fx/triton-like")
((${#want[@]} > 1)) || fail "fewer than two .hsaco under $fx/triton-like"
analyze "$work/cache.json" --format json "$fx/triton-like"
check "fixture cache ($((${#want[@]})) files)" "$work/cache.json" --files "${want[@]}"
analyze "$work/cache.txt" "$fx/triton-like"
text_matches "fixture cache" "$work/cache.txt" "$work/cache.json"

# --- two kernels in one code object: --kernel ----------------------------------------
tools_ok=1
for t in llvm-link-22 llc-22 ld.lld-22; do
  command -v "$t" >/dev/null 2>&1 || tools_ok=0
done
if ((tools_ok)) && [[ -f $fx/gfx906/loop_kernel.ll && -f $fx/gfx906/branch_kernel.ll ]]; then
  # In a folder of its own: a sibling two.json would be read as Triton's.
  mkdir -p "$work/obj"
  two=$work/obj/two.hsaco
  llvm-link-22 "$fx/gfx906/loop_kernel.ll" "$fx/gfx906/branch_kernel.ll" -o "$work/obj/two.bc"
  llc-22 -O2 -mtriple=amdgcn-amd-amdhsa -mcpu=gfx906 -filetype=obj "$work/obj/two.bc" -o "$work/obj/two.o"
  ld.lld-22 -shared "$work/obj/two.o" -o "$two"
  analyze "$work/two.json" --format json "$two"
  # Kernels come in address order; which is first is the linker's choice.
  mapfile -t both < <(python3 -c 'import json, sys
print("\n".join(k["name"] for k in json.load(open(sys.argv[1]))["reports"][0]["kernels"]))' "$work/two.json")
  [[ ${#both[@]} == 2 && " ${both[*]} " == *" loop_kernel "* && " ${both[*]} " == *" branch_kernel "* ]] ||
    fail "two-kernel object: kernels '${both[*]}'"
  check "two kernels" "$work/two.json" --kernels "${both[@]}"
  analyze "$work/two.txt" "$two"
  text_matches "two kernels" "$work/two.txt" "$work/two.json"
  analyze "$work/k1.json" --format json --kernel loop "$two"
  check "--kernel loop" "$work/k1.json" --kernels loop_kernel
  analyze "$work/k2.json" --format json --kernel '^branch_kernel$' "$two"
  check "--kernel ^branch_kernel\$" "$work/k2.json" --kernels branch_kernel
  analyze "$work/k3.json" --format json --kernel '_kernel$' "$two"
  check "--kernel _kernel\$" "$work/k3.json" --kernels "${both[@]}"
  analyze "$work/k4.txt" --kernel 'b.anch' "$two"
  if [[ $(grep -c '^  kernel ' "$work/k4.txt") != 1 ]] || ! grep -q '^  kernel branch_kernel:' "$work/k4.txt"; then
    fail "--kernel b.anch, text: $(grep '^  kernel ' "$work/k4.txt")"
  fi
  # The per-kernel figures do not depend on the filter.
  python3 - "$work/two.json" "$work/k1.json" "$work/k2.json" <<'PY' || fail "--kernel changed a kernel's figures"
import json, sys
every = {k["name"]: k for k in json.load(open(sys.argv[1]))["reports"][0]["kernels"]}
for p in sys.argv[2:]:
    for k in json.load(open(p))["reports"][0]["kernels"]:
        assert k == every[k["name"]], k["name"]
PY
else
  echo "$prog: note: llvm-link-22/llc-22/ld.lld-22 or the fixtures' .ll missing; --kernel on two kernels not checked"
  analyze "$work/k1.json" --format json --kernel 'oop_ker' "$good"
  check "--kernel oop_ker" "$work/k1.json" --kernels loop_kernel
fi

# --- the corpus: a Triton cache entry and the whole cache -------------------------------
cache=$TREG_CORPUS/triton-cache
if [[ -d $cache ]]; then
  entry=
  for d in "$cache"/*/; do
    d=${d%/}
    if compgen -G "$d/*.hsaco" >/dev/null; then
      entry=$d
      break
    fi
  done
  [[ -n $entry ]] || fail "no cache entry with a .hsaco under $cache"
  mapfile -t want < <(expected_files "$entry")
  analyze "$work/centry.json" --format json "$entry"
  check "corpus entry $(basename "$entry")" "$work/centry.json" --files "${want[@]}"
  mapfile -t want < <(expected_files "$cache")
  analyze "$work/corpus.json" --format json "$cache"
  check "corpus cache (${#want[@]} files)" "$work/corpus.json" --files "${want[@]}"
  analyze "$work/corpus.txt" "$cache"
  text_matches "corpus cache" "$work/corpus.txt" "$work/corpus.json"
  analyze "$work/corpus-norows.json" --format json --no-rows "$cache"
  check "corpus cache --no-rows" "$work/corpus-norows.json" --no-rows --files "${want[@]}"
else
  echo "$prog: note: no corpus at $cache; checked the fixtures only"
fi

echo "$prog: PASS"

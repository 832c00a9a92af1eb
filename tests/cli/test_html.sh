#!/usr/bin/env bash
# The HTML report in a real browser: Debian's chromium, headless, driven by
# playwright-core (tests/browser/check_page.mjs).  Pages made by
# treg-analyze --format html from real code objects:
#   fixture   gfx90a/loop_kernel with its source: peak line, click on a line
#   spill     gfx90a/spill_kernel: its spills counted on the page
#   names     a kernel named <script>alert(1)</script> whose source file is
#             <img src=x onerror=alert(2)>.py with markup in every line: all text
#   big       31,000+ instructions: loads, scrolls to the end, plot hover
#   corpus    a Triton matmul next to its Python source, and the whole
#             Triton cache as one index page (skipped without ../shared/corpus)
# Expectations (kernel, peak line, a line's instruction count) come from
# treg-analyze --format json: the same analysis through the other renderer.
# Screenshots go to $TREG_TEST_OUTPUT/html (CTest: <build>/test-output/html).
set -euo pipefail
prog=test_html
# shellcheck source=tests/cli/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
require_analyzer

browser_dir=$TREG_SOURCE_ROOT/tests/browser
chromium=${TREG_CHROMIUM:-/usr/bin/chromium}
[[ -x $chromium ]] || skip "no chromium at $chromium (scripts/install-deps.sh installs Debian's)"
command -v node >/dev/null || skip "no node (scripts/install-deps.sh installs it)"
[[ -d $browser_dir/node_modules/playwright-core ]] ||
  skip "playwright-core not installed (scripts/install-deps.sh runs npm ci in tests/browser)"
fx=${TREG_FIXTURES:?TREG_FIXTURES is not set (CTest sets it)}
[[ -f $fx/html/names/names.hsaco ]] || fail "fixtures lack html/ (tests/fixtures/make-fixtures.sh)"

out=${TREG_TEST_OUTPUT:-$PWD/test-output}/html
mkdir -p "$out"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# expect JSON_REPORT CLICK_MODE [LITERAL...] > EXPECT: the page's expectations from
# treg-analyze's JSON of the same inputs. CLICK_MODE: peak (click the peak's
# line) or busiest (the line with the most instructions) or none; dense: none,
# and the plot's occupancy steps crowd (some must go unlabelled).
expect() {
  python3 - "$@" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
mode, literal = sys.argv[2], sys.argv[3:]
kernels = [(r, k) for r in doc["reports"] for k in r["kernels"]]
r, k = kernels[0]
peak = k.get("peak_vgpr") or {}
lines = [l for l in k.get("source_lines", []) if l.get("file") and l["line"] > 0]
want = {"kernels": len(kernels), "kernel": k["name"], "rows": k["instructions"],
        "spills": k["spill_instructions"],
        "lds": k["lds_bytes"] + k.get("dynamic_lds_bytes", 0),
        "cannot_launch": k["occupancy"]["launch_waves_per_simd"] == 0,
        "lower_bound": k["lower_bound"], "first_undecodable": k.get("first_undecodable", 0),
        "peak": None, "click": None, "literal": literal,
        # gfx90a and later: VGPRs and AGPRs are one file, the plot's allocated line is theirs
        "unified": bool(k.get("total_vgprs") and k["agpr"]["allocated"] > 0),
        "dense_steps": mode == "dense"}
# the SGPR card in one unit: allocated (VCC, XNACK_MASK, FLAT_SCRATCH in it)
# against the limit with the same extras, the numbered ones beside
s, num, res = k["sgpr"], k.get("sgpr_numbered", 0), k.get("sgpr_reserved", [])
extra = s["allocated"] - num
want["sgpr"] = (f"allocated {s['allocated']} of {s['limit'] + extra} with {', '.join(res)} "
                f"(numbered: {num} of {s['limit']})") if num and extra > 0 and res else \
               f"allocated {s['allocated']} of {s['limit']}"
# the target's figures: each unverified one a note, and a VGPR budget one wave
# cannot hold (Hygon's) said on the occupancy card
tf = r["target_figures"]
one_wave = tf["vgprs_per_wave"] + tf["agprs_per_wave"]
want["figures"] = {"unverified": tf["unverified"], "lds_note": tf.get("lds_note", ""),
                   "shared": (f"the waves share {tf['vgpr_budget']} VGPRs per SIMD, "
                              f"{tf['vgprs_per_wave']} at most per wave")
                             if tf["vgpr_budget"] > one_wave else ""}
# a wave-specialised kernel: one table row per role, as the JSON has them
roles = k.get("wave_roles", {}).get("roles", [])
want["roles"] = [[f"{x['first_wave']}-{x['last_wave']}" if x["first_wave"] >= 0 else "?", str(x["size"]),
                  str(x["peak_live"])] for x in roles]
if peak.get("file") and peak.get("line"):
    want["peak"] = {"file": peak["file"], "line": peak["line"]}
cross = doc.get("cross_target", [])
if cross:
    cols = {(t["file"], t.get("bundle_entry"), t["target"]): t["provisional"] for c in cross for t in c["targets"]}
    want["matrix"] = {"rows": len(cross), "cols": len(cols), "cells": sum(len(c["targets"]) for c in cross),
                      "provisional": sum(cols.values()),
                      "last": {"kernel": cross[-1]["kernel"], "target": cross[-1]["targets"][-1]["target"]}}
pick = None
if mode == "peak" and want["peak"]:
    pick = next(l for l in lines if l["file"] == peak["file"] and l["line"] == peak["line"])
elif mode == "busiest" and lines:
    pick = max(lines, key=lambda l: (l["instructions"], -l["line"]))
if pick:
    want["click"] = {"file": pick["file"], "line": pick["line"], "instructions": pick["instructions"]}
# why the peak: the categories and the rest, as the JSON says them
if "categories" in k:
    sites = {}
    for a in k["peak_attribution"]:
        cs = a["call_site"]
        sites.setdefault((cs["file"], cs["line"]), []).append(a)
    vias = sum(1 for g in sites.values() for a in g
               if (a["file"], a["line"]) != (a["call_site"]["file"], a["call_site"]["line"]))
    first = None
    if k["categories"] and k["categories"][0]["parts"]:
        p = k["categories"][0]["parts"][0]
        line = next((l for l in lines if l["file"] == p["file"] and l["line"] == p["line"]), None)
        if p["file"] and p["line"] and line:
            first = {"line": p["line"], "instructions": line["instructions"]}
    want["why"] = {"categories": [{"kind": c["kind"], "v": c["vgpr"], "a": c["agpr"], "u": c["uniform"]}
                                  for c in k["categories"]],
                   "hints": sum(1 for c in k["categories"] if c.get("hint")),
                   "uniform": k["peak_uniform"]["vgpr"] + k["peak_uniform"]["agpr"],
                   "spill_cost": k["spill_cost"], "source": k.get("categories_source", ""),
                   "sites": len(sites), "vias": vias, "first_part_line": first}
# runtime PC samples: the kernel's total, the line with the most (the
# author's line of each row, as the line table counts), and the first rows'
if k.get("samples"):
    per = {}
    for row in k["rows"]:
        site = row.get("call_site") or row
        if row.get("samples") and site.get("file") and site.get("line"):
            key = (site["file"], site["line"])
            per[key] = per.get(key, 0) + row["samples"]
    (hf, hl), hn = max(per.items(), key=lambda kv: (kv[1], kv[0][1]))
    want["samples"] = {"total": k["samples"], "kind": k["samples_kind"],
                       "hot": {"file": hf, "line": hl, "samples": hn},
                       "rows": {str(row["address"]): row.get("samples", 0) for row in k["rows"][:40]}}
json.dump(want, sys.stdout)
PY
}

# page NAME CLICK_MODE SOURCE_DIR|- INPUT [LITERAL...]: one page, checked.
page() {
  local name=$1 mode=$2 src=$3 input=$4
  shift 4
  local srcargs=()
  [[ $src == - ]] || srcargs=(--source-dir "$src")
  # PAGE_ARGS: more treg-analyze options for both (--samples FILE)
  # shellcheck disable=SC2206 # words on purpose
  local more=(${PAGE_ARGS:-})
  "$TREG_ANALYZE" --format html -o "$work/$name.html" "${more[@]}" "${srcargs[@]}" "$input" >"$work/$name.out" 2>&1 ||
    fail "$name: treg-analyze --format html failed: $(head -3 "$work/$name.out")"
  "$TREG_ANALYZE" --format json "${more[@]}" "$input" >"$work/$name.json" 2>/dev/null ||
    fail "$name: treg-analyze --format json failed"
  expect "$work/$name.json" "$mode" "$@" >"$work/$name.expect.json"
  node "$browser_dir/check_page.mjs" "$work/$name.html" "$work/$name.expect.json" "$out" "$name" ||
    fail "$name: the page failed in chromium (screenshots in $out)"
  cp "$work/$name.html" "$out/$name.html"
  echo "$prog: ok: $name ($(wc -c <"$work/$name.html") bytes)"
}

page fixture peak "$TREG_SOURCE_ROOT/tests/fixtures/src" "$fx/gfx90a/loop_kernel.hsaco"
# Real Triton kernels with their .ttgir (tests/data): the categories from the
# TTGIR, the peak by the author's lines with tl.max's and tl.sum's lines
# inlined under them, a click on kernels_a.py:18 that selects the inlined
# rows too, and a spill cost.
data=$TREG_SOURCE_ROOT/tests/data
page triton-softmax peak "$data/src" "$data/triton-cache/MD4F523L5PVMIKLU6IIZMAM7ASER47Q6J6JG6ABYSLCTRQZ3BBMA/softmax_kernel.hsaco"
page triton-attn busiest "$data/src" "$data/triton-cache/LZJ667C7JP62SNK5JTV3O4L5MEBAWSBVUKRGI5OMGRI3GP2VHRMQ/attn_fwd.hsaco"
page names busiest "$fx/html/names-src" "$fx/html/names/names.hsaco" '<script>alert(1)</script>' \
  '</script><script>alert(3)</script> <b>not bold</b> &amp; \u003c' '<img src=x onerror=alert(2)>.py'
page spill busiest "$TREG_SOURCE_ROOT/tests/fixtures/src" "$fx/gfx90a/spill_kernel.hsaco"
# A kernel calling a device function: the index lists both, choosing the
# function names it as one, and the kernel's page says each call as the
# JSON has it (what it holds across the call, the most while it runs).
mapfile -t call_texts < <("$TREG_ANALYZE" --format json --no-rows "$fx/gfx90a/call_kernel.hsaco" |
  python3 -c '
import json, sys
k = json.load(sys.stdin)["reports"][0]["kernels"][0]
print("Calls (VGPR peak with them %d)" % k["vgpr_peak_with_calls"])
for c in k["call_sites"]:
    print("+0x%x %s: holds %d VGPRs across, %d while it runs" % (c["address"], c["callee"], c["held_vgprs"], c["vgpr_peak"]))')
((${#call_texts[@]} == 3)) || fail "call_kernel: ${#call_texts[@]} texts from its JSON, expected 3"
page calls busiest "$TREG_SOURCE_ROOT/tests/fixtures/src" "$fx/gfx90a/call_kernel.hsaco" "${call_texts[@]}"
page big none - "$fx/html/big/big_kernel.hsaco"
# Runtime PC samples (test_samples.sh's, rocprofv3's JSON for a real gfx90a
# matmul): the plot's second series, the listing's and the source table's
# samples columns, as the JSON's rows sum them.
if command -v llvm-objdump-22 >/dev/null && command -v llvm-readelf-22 >/dev/null; then
  # shellcheck source=tests/cli/samples_lib.sh
  . "$(dirname "${BASH_SOURCE[0]}")/samples_lib.sh"
  python3 "$work/write.py" "$work/pcs-stochastic.json" stochastic
  PAGE_ARGS="--samples $work/pcs-stochastic.json" page samples none "$data/src" "$hsaco"
else
  echo "$prog: note: no llvm-objdump-22: the sampled page is not checked"
fi
# 256 VGPRs on gfx1100: sixteen occupancy steps in the plot's range, too close
# to label every one (the corpus's attn_fwd; the fixtures have none so full).
dense=""
if [[ -d ${TREG_CORPUS:-}/triton-cache-targets ]]; then
  for f in $(find "$TREG_CORPUS/triton-cache-targets" -name attn_fwd.hsaco | LC_ALL=C sort); do
    if "$TREG_ANALYZE" --format json --no-rows "$f" 2>/dev/null | grep -q '"target":"gfx1100"'; then
      dense=$f
      break
    fi
  done
fi
if [[ -n $dense ]]; then
  page dense-steps dense - "$dense"
else
  echo "$prog: note: no gfx1100 attn_fwd in ${TREG_CORPUS:-(TREG_CORPUS unset)}/triton-cache-targets; the crowded-steps page skipped"
fi
# One kernel on four targets (three of them Hygon's, provisional): the kernel x target matrix.
hx=${TREG_HIP_FIXTURES:-}
[[ -f $hx/hygon.hipfb ]] || fail "no HIP fixtures at ${hx:-(TREG_HIP_FIXTURES unset)}"
page hygon none - "$hx/hygon.hipfb"
page fatbin none "$TREG_SOURCE_ROOT/tests/fixtures/src/hip" "$hx/app"
# A Hygon object with a word the substitute ISA cannot decode: a lower bound.
if command -v "${OBJDUMP:-llvm-objdump-22}" >/dev/null 2>&1; then
  waitcnt=$(first_insn_addr "$fx/gfx906/loop_kernel.hsaco" gfx906 s_waitcnt)
  patch "$fx/gfx906/loop_kernel.hsaco" "$work/lower.hsaco" \
    "b[48] = 0; replace(b'amdgcn-amd-amdhsa--gfx906', b'amdgcn-amd-amdhsa--gfx926'); $(text_write "$waitcnt" "(0xffffffff,)")"
  page lowerbound none "$TREG_SOURCE_ROOT/tests/fixtures/src" "$work/lower.hsaco"
fi
# A gfx936 object: 768 VGPRs per SIMD shared by the waves, 256 per wave, and
# the one figure no Hygon source shows; gfx946: the LDS the sources dispute.
for t in gfx936 gfx946; do
  patch "$fx/gfx906/loop_kernel.hsaco" "$work/$t.hsaco" \
    "b[48] = 0; replace(b'amdgcn-amd-amdhsa--gfx906', b'amdgcn-amd-amdhsa--$t')"
  page "hygon-$t" none "$TREG_SOURCE_ROOT/tests/fixtures/src" "$work/$t.hsaco"
done
# A gfx946 WASP/WDRA kernel: its wave roles, each with its own VGPR size.
page wasp none - "$TREG_SOURCE_ROOT/tests/cli/data/hygon/gfx946_wasp_wdra.s"

# site NAME INPUT...: a site (-o DIR/) checked against the JSON of the same inputs.
site() {
  local name=$1
  shift
  rm -rf "${work:?}/$name"
  "$TREG_ANALYZE" --format html -o "$work/$name/" "$@" >"$work/$name.out" 2>&1 ||
    fail "$name: treg-analyze --format html -o DIR/ failed: $(head -3 "$work/$name.out")"
  "$TREG_ANALYZE" --format json --no-rows "$@" >"$work/$name.json" || fail "$name: --format json failed"
  python3 - "$work/$name.json" >"$work/$name.expect.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
groups, order = {}, []
for r in d["reports"]:
    for k in r["kernels"]:
        if k["kind"] == "function":  # on its callers' page, not ranked in the index
            continue
        key = (k["name"], r["source_files"][0] if r["source_files"] else "")
        if key not in groups:
            order.append(key)
            groups[key] = 0
        groups[key] += 1
print(json.dumps({"kernels": sum(groups.values()),
                  "groups": [{"name": n, "source": s, "rows": groups[(n, s)]} for n, s in order]}))
PY
  node "$browser_dir/check_site.mjs" "$work/$name" "$work/$name.expect.json" "$out" "$name" ||
    fail "$name: the site failed in chromium (screenshots in $out)"
  echo "$prog: ok: site $name ($(find "$work/$name/kernels" -name '*.html' | wc -l) pages," \
    "index $(wc -c <"$work/$name/index.html") bytes)"
}
site fixture-site "$fx/gfx906" "$fx/gfx90a" "$fx/gfx942"

# 500 kernels: the index stays under 2 MiB
many=$work/many
for ((i = 0; i < 500; i++)); do
  mkdir -p "$many/E$i"
  cp "$fx/gfx90a/loop_kernel.hsaco" "$many/E$i/"
done
"$TREG_ANALYZE" --format html -o "$work/many-site/" "$many" >/dev/null 2>&1 || fail "500-entry site failed"
bytes=$(wc -c <"$work/many-site/index.html")
((bytes < 2 * 1024 * 1024)) || fail "index of 500 kernels is $bytes bytes (limit 2 MiB)"
pages=$(find "$work/many-site/kernels" -name '*.html' | wc -l)
((pages == 500)) || fail "500 entries: $pages pages"
echo "$prog: ok: 500 kernels: index $bytes bytes, 500 pages"

if [[ ! -d $TREG_CORPUS/triton-cache ]]; then
  skip "fixture pages passed; corpus $TREG_CORPUS/triton-cache absent: corpus pages not checked"
fi
matmul=$TREG_CORPUS/triton-cache/6A3MNTG6BPQKKGPLY7CZMRTY2FQTNPBE3EJYVJZCMG73AQNRFIEA
page matmul busiest "$TREG_CORPUS/src" "$matmul"
# 96 KiB of Triton's dynamic LDS on a 64 KiB gfx942: the page says it cannot launch.
page nolaunch busiest "$TREG_CORPUS/src" \
  "$TREG_CORPUS/triton-cache/45RWWDMLC7RKJL3EHVWTWVNEWRZYFF4Z2Z3ERIVLUT5TTV4RD7CA"
page cache peak "$TREG_CORPUS/src" "$TREG_CORPUS/triton-cache"
# (triton-cache-targets holds gfx950 and gfx1100, which older LLVMs cannot decode)
site corpus-site "$TREG_CORPUS/triton-cache" "$TREG_CORPUS/gfx906-llc22"
echo "$prog: all pages passed; screenshots and pages in $out"

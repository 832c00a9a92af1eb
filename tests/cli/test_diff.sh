#!/usr/bin/env bash
# treg-analyze diff and its CI gate: two corpus variants of one kernel
# (matmul_kernel on gfx90a, num_warps 4 without spills and num_warps 8 with
# them) matched by name and target, old/new/delta equal to what each side's
# own report says, the lines whose peak moved, --fail-on rules broken and
# kept (exit 1 naming each, or 0), a baseline written by --write-baseline and
# read by --baseline, and bad rules and baselines refused in one line.
# Without the corpus, the fixtures: a cache and a HIP executable against
# themselves (nothing changed, every rule kept).
set -euo pipefail

prog=test_diff
# shellcheck source=tests/cli/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

require_analyzer
command -v python3 >/dev/null 2>&1 || skip "python3 is needed to read the JSON"
fx=${TREG_FIXTURES:-}
[[ -n $fx && -f $fx/gfx906/loop_kernel.hsaco ]] || skip "no fixtures at ${fx:-(TREG_FIXTURES unset)}"
A=$TREG_ANALYZE
work=$(mktemp -d "${TMPDIR:-/tmp}/treg-diff.XXXXXX")
trap 'rm -rf "$work"' EXIT
all=spills,scratch,vgpr,agpr,sgpr,occupancy

# run OUT ARGS...: treg-analyze, stdout OUT, stderr OUT.err; sets rc.
run() {
  local out=$1
  shift
  rc=0
  "$A" "$@" >"$out" 2>"$out.err" || rc=$?
}

# --- the fixtures against themselves ------------------------------------------------
run "$work/same.txt" diff --fail-on "$all" "$fx/gfx906" "$fx/gfx906"
((rc == 0)) || fail "a folder against itself: exit $rc: $(cat "$work/same.txt.err")"
# one entry per code object, and call_kernel.hsaco's device function poly_eval
n=$(($(find "$fx/gfx906" -name '*.hsaco' | wc -l) + 1))
grep -q "^0 changed, $n unchanged, 0 only in new, 0 only in old$" "$work/same.txt" ||
  fail "a folder against itself: $(sed -n 3p "$work/same.txt")"
grep -q -- "--fail-on: 0 rules broken" "$work/same.txt" || fail "no gate line"
hip=${TREG_HIP_FIXTURES:-}
if [[ -f $hip/app && -f $hip/app-compressed ]]; then
  run "$work/hip.json" diff --format json --fail-on "$all" "$hip/app" "$hip/app-compressed"
  ((rc == 0)) || fail "a HIP executable against its compressed build: exit $rc"
  python3 - "$work/hip.json" <<'PY' || fail "HIP executables: $(head -c 300 "$work/hip.json")"
import json, sys
d = json.load(open(sys.argv[1]))
ks = d["kernels"]
assert len(ks) >= 8 and all(not k["changed"] and k["old"] and k["new"] for k in ks), ks
assert len({(k["name"], k["target"]) for k in ks}) == len(ks)
assert d["broken"] == [] and d["errors"] == []
PY
  echo "$prog: ok: a HIP executable against its compressed build: $(python3 -c \
    'import json,sys; print(len(json.load(open(sys.argv[1]))["kernels"]))' "$work/hip.json") kernels matched, none changed"
fi
echo "$prog: ok: the fixtures against themselves: $n kernels unchanged, every rule kept"

# --- refused in one line --------------------------------------------------------------
usage() { # WHAT KEYWORD ARGS...
  local what=$1 key=$2
  shift 2
  run "$work/u" "$@"
  ((rc == 2)) || fail "$what: exit $rc, not 2"
  if [[ $(wc -l <"$work/u.err") != 1 ]] || ! grep -q -- "$key" "$work/u.err"; then
    fail "$what: stderr: $(cat "$work/u.err")"
  fi
  [[ ! -s $work/u ]] || fail "$what: wrote to stdout"
}
usage "an unknown rule" "unknown rule 'spill'" diff --fail-on spill "$fx/gfx906" "$fx/gfx906"
usage "vgpr-N" "unknown rule 'vgpr-3'" diff --fail-on vgpr-3 "$fx/gfx906" "$fx/gfx906"
usage "one argument" "two arguments" diff "$fx/gfx906"
usage "--fail-on without diff" "for treg-analyze diff" --fail-on spills "$fx/gfx906"
printf '{"kernels": 3}' >"$work/bad-baseline.json"
usage "a bad baseline" "$work/bad-baseline.json: not a baseline" diff --baseline "$work/bad-baseline.json" "$fx/gfx906"
usage "a missing baseline" "$work/nope.json: No such file" diff --baseline "$work/nope.json" "$fx/gfx906"
echo "$prog: ok: bad rules, arguments and baselines: exit 2, one line"

# --- two variants of one kernel -------------------------------------------------------
c=$TREG_CORPUS/triton-cache
old=$c/6A3MNTG6BPQKKGPLY7CZMRTY2FQTNPBE3EJYVJZCMG73AQNRFIEA
new=$c/U7YEDTEY7XQPPR3H2B6KFRLTGU5DV6W4GLDXB6TTYQKERDWEWIUQ
if [[ ! -d $old || ! -d $new ]]; then
  echo "$prog: note: no corpus at $TREG_CORPUS: the variant part is skipped"
  echo "$prog: ok"
  exit 0
fi
"$A" --format json --no-rows "$old" >"$work/old.json"
"$A" --format json --no-rows "$new" >"$work/new.json"
run "$work/d.json" diff --format json --fail-on spills "$old" "$new"
((rc == 1)) || fail "num_warps 4 -> 8 with --fail-on spills: exit $rc, not 1"
grep -q "1 --fail-on rule broken" "$work/d.json.err" || fail "stderr: $(cat "$work/d.json.err")"
python3 - "$work/old.json" "$work/new.json" "$work/d.json" <<'PY' || fail "the diff's figures"
import json, sys
o, n, d = (json.load(open(p)) for p in sys.argv[1:])
ko, kn = o["reports"][0]["kernels"][0], n["reports"][0]["kernels"][0]
assert len(d["kernels"]) == 1, d["kernels"]
k = d["kernels"][0]
assert (k["name"], k["target"]) == ("matmul_kernel", "gfx90a"), k
assert "num_warps=8" in k["variant"], k["variant"]
def fig(kj):  # a kernel's figures, as the diff names them
    return {"vgpr": {f: kj["vgpr"][f] for f in ("allocated", "peak_live")},
            "agpr": {f: kj["agpr"][f] for f in ("allocated", "peak_live")},
            "sgpr": {f: kj["sgpr"][f] for f in ("allocated", "peak_live")},
            "total_vgprs": kj["total_vgprs"],
            "occupancy": {"waves_per_simd": kj["occupancy"]["waves_per_simd"]},
            "spill_instructions": kj["spill_instructions"], "scratch_bytes": kj["scratch_bytes"],
            "spill_cost": kj["spill_cost"]}
def strip(x):
    return {a: b for a, b in x.items() if a not in ("file", "lower_bound")}
assert strip(k["old"]) == fig(ko), (k["old"], fig(ko))
assert strip(k["new"]) == fig(kn), (k["new"], fig(kn))
def sub(a, b):
    return {key: sub(a[key], b[key]) if isinstance(a[key], dict) else a[key] - b[key] for key in a}
assert k["delta"] == sub(fig(kn), fig(ko)), k["delta"]
assert kn["spill_instructions"] > 0 == ko["spill_instructions"], "the variants are not as expected"
assert [b["rule"] for b in d["broken"]] == ["spills"], d["broken"]
# the lines: the one whose VGPR peak moved most first, by what each report says
lines = k["lines"]
assert lines, "no lines"
def peaks(kj):
    return {(l["file"].rsplit("/", 1)[-1], l["line"]): l["peak_vgpr"] for l in kj["source_lines"] if l["line"]}
po, pn = peaks(ko), peaks(kn)
top = lines[0]
key = (top["file"], top["line"])
assert top["old"]["peak_vgpr"] == po[key] and top["new"]["peak_vgpr"] == pn[key], top
best = max(abs(pn.get(x, 0) - po.get(x, 0)) for x in set(po) | set(pn))
assert abs(pn[key] - po[key]) <= best
PY
echo "$prog: ok: matmul_kernel num_warps 4 -> 8: figures and delta as each report says, spills broken"

# One kernel on each side for one target, named apart (a renamed or respecialised build):
# paired, and said so; for two targets they stay apart.
add90a=$c/BPPSWMTVKUWIJ546MIGZSHRISPX6AHXVGWZV7HYEYYLWZ6ZRQSQQ # gfx90a add_kernel
add942=$c/I24B4VIKUZU37PH46DEKWPBMMZFR3R2C6IFQV55DYIF4MODDWY2Q # gfx942 add_kernel
soft90a=$c/MD4F523L5PVMIKLU6IIZMAM7ASER47Q6J6JG6ABYSLCTRQZ3BBMA # gfx90a softmax_kernel
run "$work/p.json" diff --format json "$add90a" "$soft90a"
((rc == 0)) || fail "diff of two single-kernel builds: exit $rc: $(cat "$work/p.json.err")"
python3 - "$work/p.json" <<'PY' || fail "two single-kernel sides are not paired"
import json, sys
d = json.load(open(sys.argv[1]))
ks = d["kernels"]
assert len(ks) == 1, [(k["name"], k["old"] is None, k["new"] is None) for k in ks]
k = ks[0]
assert k["name"] == "softmax_kernel" and k["old_name"] == "add_kernel", k
assert k["paired_by"] == "only_kernel" and k["old"] and k["new"] and k["delta"], k
PY
run "$work/p.txt" diff "$add90a" "$soft90a"
grep -q "paired with old add_kernel (gfx90a.*): the one kernel on each side, for the same target" "$work/p.txt" ||
  fail "the text does not say how the kernels were paired: $(head -n 8 "$work/p.txt")"
grep -q ": only in" "$work/p.txt" && fail "a paired kernel is still 'only in': $(cat "$work/p.txt")"
run "$work/q.json" diff --format json "$add90a" "$add942"
python3 - "$work/q.json" <<'PY' || fail "single kernels of two targets were paired"
import json, sys
ks = json.load(open(sys.argv[1]))["kernels"]
assert sorted((k["target"], k["old"] is None, k["paired_by"]) for k in ks) == \
    [("gfx90a", False, None), ("gfx942", True, None)], ks
PY
echo "$prog: ok: one kernel on each side, one target: paired and said so; two targets: apart"

# the text names each rule broken; kept rules exit 0
run "$work/d.txt" diff --fail-on spills,vgpr+8,occupancy-1,scratch "$old" "$new"
((rc == 1)) || fail "four rules: exit $rc"
for r in '\[spills\]' '\[scratch\]' '\[vgpr+8\]' '\[occupancy-1\]'; do
  grep -q "matmul_kernel (gfx90a): .*$r" "$work/d.txt" || fail "rule $r not named: $(tail -6 "$work/d.txt")"
done
grep -q -- "--fail-on: 4 rules broken" "$work/d.txt" || fail "the gate's count"
grep -q "lines whose peak changed most" "$work/d.txt" || fail "no lines in the text"
vg=$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(d["kernels"][0]["delta"]["vgpr"]["allocated"])' "$work/d.json")
run "$work/k.txt" diff --fail-on "vgpr+$vg,occupancy-2,agpr" "$old" "$new"
((rc == 0)) || fail "vgpr+$vg,occupancy-2 should hold: exit $rc: $(tail -3 "$work/k.txt")"
# (num_warps 4 has MFMA accumulators in AGPRs where 8 has none: agpr+15 breaks)
run "$work/r.txt" diff --fail-on spills,scratch,vgpr,sgpr,occupancy "$new" "$old"
((rc == 0)) || fail "the better build as NEW breaks rules: $(tail -4 "$work/r.txt")"
run "$work/r.txt" diff --fail-on agpr+15 "$new" "$old"
if ((rc != 1)) || ! grep -q 'AGPRs allocated 0 -> 16 (+16, allowed +15) \[agpr+15\]' "$work/r.txt"; then
  fail "agpr+15 from 0 to 16 AGPRs: exit $rc: $(tail -2 "$work/r.txt")"
fi
# spill-cost+N: the spills weighted by their loops' trips, against an allowance
cost=$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(d["kernels"][0]["delta"]["spill_cost"])' "$work/d.json")
((cost > 0)) || fail "the num_warps 8 build spills, yet its spill cost grew by $cost"
run "$work/c.txt" diff --fail-on "spill-cost+$cost" "$old" "$new"
((rc == 0)) || fail "spill-cost+$cost should hold: exit $rc: $(tail -3 "$work/c.txt")"
run "$work/c.txt" diff --fail-on "spill-cost+$((cost - 1))" "$old" "$new"
if ((rc != 1)) || ! grep -q "spill cost 0 -> $cost (+$cost, allowed +$((cost - 1)))" "$work/c.txt"; then
  fail "spill-cost+$((cost - 1)) with a cost grown by $cost: exit $rc: $(tail -3 "$work/c.txt")"
fi
echo "$prog: ok: rules named when broken (exit 1), kept at their allowance (exit 0)"

# --- baselines ------------------------------------------------------------------------
"$A" --no-rows --write-baseline "$work/base.json" "$old" >/dev/null
run "$work/b.json" diff --format json --fail-on spills --baseline "$work/base.json" "$new"
((rc == 1)) || fail "--baseline: exit $rc"
python3 - "$work/d.json" "$work/b.json" <<'PY' || fail "--baseline gives another diff than OLD NEW"
import json, sys
d, b = (json.load(open(p)) for p in sys.argv[1:])
assert d["kernels"] == b["kernels"] and d["broken"] == b["broken"], (d["kernels"], b["kernels"])
PY
run "$work/s.txt" diff --fail-on "$all" --baseline "$work/base.json" --write-baseline "$work/next.json" "$old"
((rc == 0)) || fail "OLD against its own baseline: exit $rc"
cmp -s "$work/base.json" "$work/next.json" || fail "a baseline written again differs"
echo "$prog: ok: --write-baseline then --baseline: the same diff as OLD NEW"

# --- tregc diff: the same, through a server ------------------------------------------------
if [[ -x ${TREGC:-} && -x ${TREGD:-} ]] && command -v openssl >/dev/null 2>&1; then
  start_tregd "$work"
  trap '[[ -z $server_pid ]] || kill -KILL -- "-$server_pid" 2>/dev/null || true; rm -rf "$work"' EXIT
  crun() { # OUT ARGS...: tregc against the test's tregd; sets rc
    local out=$1
    shift
    rc=0
    tregc_to "$@" >"$out" 2>"$out.err" || rc=$?
  }
  same_kernels() { # A B: the same kernels, figures and gate, whatever the file names
    python3 - "$1" "$2" <<'PY'
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:])
def norm(d):
    for k in d["kernels"]:
        for side in ("old", "new"):
            if k[side]:
                k[side].pop("file")
    return d["kernels"], d.get("broken")
assert norm(a) == norm(b), (norm(a), norm(b))
PY
  }
  crun "$work/c.json" --format json diff --fail-on spills "$old" "$new"
  ((rc == 1)) || fail "tregc diff --fail-on spills: exit $rc: $(cat "$work/c.json.err")"
  same_kernels "$work/d.json" "$work/c.json" || fail "tregc diff differs from treg-analyze diff"
  hash=$(sha256sum "$old/matmul_kernel.hsaco" | cut -c1-64)
  # the stored report, fetched by hash, as OLD
  crun "$work/h.json" --format json diff --fail-on spills "$hash" "$new"
  ((rc == 1)) || fail "tregc diff HASH NEW: exit $rc: $(cat "$work/h.json.err")"
  same_kernels "$work/d.json" "$work/h.json" || fail "tregc diff HASH NEW differs"
  crun "$work/cb.txt" diff --fail-on spills,scratch,vgpr,occupancy --baseline "$work/base.json" \
    --write-baseline "$work/c-base.json" "$old"
  ((rc == 0)) || fail "tregc diff --baseline against itself: exit $rc: $(tail -3 "$work/cb.txt")"
  python3 - "$work/base.json" "$work/c-base.json" <<'PY' || fail "tregc's baseline differs from treg-analyze's"
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:])
for d in (a, b):
    for k in d["kernels"]:
        k.pop("file")
assert a == b
PY
  crun "$work/cu" diff --fail-on nope "$old" "$new"
  if ((rc != 2)) || ! grep -q "unknown rule 'nope'" "$work/cu.err"; then
    fail "tregc diff --fail-on nope: exit $rc"
  fi
  stop_tregd
  echo "$prog: ok: tregc diff (folders, a hash, --baseline): what treg-analyze diff says"
else
  echo "$prog: note: TREGC/TREGD not set: the tregc part is skipped"
fi
echo "$prog: ok"

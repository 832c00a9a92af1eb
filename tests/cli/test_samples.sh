#!/usr/bin/env bash
# treg-analyze --samples: runtime PC samples placed on a real code object's
# instructions.  No GPU here, so the samples are written in rocprofv3's
# exact layout (tests/data/rocprof: buffer_records.pc_sample_stochastic /
# pc_sample_host_trap records with pc{code_object_id, code_object_offset},
# strings.pc_sample_instructions, code_objects[] with load_base and
# load_delta) and as a code.json, for a real gfx90a matmul, with each
# sampled instruction's text taken from the code object's own disassembly
# (llvm-objdump-22, not treg).  Checked:
#   - every row's samples, issued and stalled equal the counts written, and
#     the kernel's total; with a load_delta other than load_base the same
#     (ELF address = load_base + offset - load_delta); a code.json the same;
#   - one offset inside an instruction, or one instruction's text changed:
#     refused, one line naming that offset, exit 1, nothing joined;
#   - samples of another program, a code object id the profile lacks, a
#     file that is not a profile: one line each.
set -euo pipefail

prog=test_samples
# shellcheck source=tests/cli/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
require_analyzer
command -v python3 >/dev/null 2>&1 || skip "python3 is needed to write the samples"
work=$(mktemp -d "${TMPDIR:-/tmp}/treg-samples.XXXXXX")
trap 'rm -rf "$work"' EXIT
A=$TREG_ANALYZE
# shellcheck source=tests/cli/samples_lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/samples_lib.sh"
# joins LABEL PROFILE OUT WANT [ERE]: treg-analyze --format json --samples
# PROFILE on the matmul into OUT (stderr OUT.err): exit 0, every row's
# counts as WANT has them, and a stderr line matching ERE when given.
joins() {
  "$A" --format json --samples "$2" "$hsaco" >"$3" 2>"$3.err" || fail "$1: exit $?: $(cat "$3.err")"
  check "$3" "$4"
  if (($# > 4)) && ! grep -Eq -e "$5" "$3.err"; then fail "$1: $(cat "$3.err")"; fi
}
for kind in stochastic host_trap delta code_json; do
  python3 "$work/write.py" "$work/$kind.json" "$kind"
  joins "$kind" "$work/$kind.json" "$work/$kind.out" "$work/$kind.json.want"
  echo "$prog: ok: $kind: every row's samples as written ($(grep -o '"samples": *[0-9]*' "$work/$kind.out" | head -1))"
done
# the same samples from a rocpd database: equal rows; without the texts,
# placed by address with a note
for kind in stochastic host_trap delta; do
  python3 "$work/to_rocpd.py" "$work/$kind.json" "$work/$kind.db"
  joins "rocpd $kind" "$work/$kind.db" "$work/$kind.db.out" "$work/$kind.json.want"
  ! grep -q "no instruction text" "$work/$kind.db.out.err" || fail "rocpd $kind: $(cat "$work/$kind.db.out.err")"
  cmp -s "$work/$kind.out" "$work/$kind.db.out" || fail "rocpd $kind: its JSON differs from the rocprofv3 JSON's"
  echo "$prog: ok: rocpd $kind: the same report as from the JSON"
done
python3 "$work/to_rocpd.py" "$work/stochastic.json" "$work/notext.db" notext
joins "rocpd without texts" "$work/notext.db" "$work/notext.out" "$work/stochastic.json.want" \
  "note: [0-9]* of them where the profile has no instruction text, placed by address alone"
echo "$prog: ok: rocpd without texts: placed by address, and said so"
python3 - "$work/stochastic.out" <<'PY' || fail "stall reasons: see above"
import json, sys
k = json.load(open(sys.argv[1]))["reports"][0]["kernels"][0]
assert k["samples_kind"] == "stochastic", k.get("samples_kind")
n = 0
for r in k["rows"]:
    if r.get("stalled"):
        assert r["stall_reasons"][3] == r["stalled"] and sum(r["stall_reasons"]) == r["stalled"], r
        n += 1
    else:
        assert "stall_reasons" not in r, r
assert n > 100, n
PY
echo "$prog: ok: each stalled row's reasons (WAITCNT as written) sum to its stalled samples"
python3 - "$work/stochastic.out" <<'PY' || fail "lines' and loops' samples: see above"
import json, sys
k = json.load(open(sys.argv[1]))["reports"][0]["kernels"][0]
lines = {}
for r in k["rows"]:
    site = r.get("call_site") or r  # the author's line, as the line table counts
    if r.get("samples") and site.get("line"):
        key = (site.get("file"), site["line"])
        lines[key] = lines.get(key, 0) + r["samples"]
got = {(l.get("file"), l.get("line", 0)): l.get("samples", 0) for l in k["source_lines"]}
assert {key: n for key, n in got.items() if n} == lines, (lines, got)
for l in k["loops"]:
    want = sum(r.get("samples", 0) for r in k["rows"] if l["head"] <= r["address"] < l["end"])
    assert l.get("samples", 0) == want and want > 0, (l, want)
PY
echo "$prog: ok: source_lines[].samples and loops[].samples as the rows sum them"

# --hot: the line most samples fall on, summed from the JSON's rows by the
# author's line (call_site, else the row's own line), and the loop's share.
"$A" --hot --samples "$work/stochastic.json" "$hsaco" >"$work/hot.txt" || fail "--hot failed"
python3 - "$work/stochastic.out" "$work/hot.txt" <<'PY' || fail "--hot: see above"
import json, re, sys
k = json.load(open(sys.argv[1]))["reports"][0]["kernels"][0]
lines, loop = {}, 0
for r in k["rows"]:
    site = r.get("call_site") or {"file": r.get("file"), "line": r.get("line", 0)}
    key = (site.get("file"), site.get("line", 0))
    lines[key] = lines.get(key, 0) + r.get("samples", 0)
    l = k["loops"][0]
    if l["head"] <= r["address"] < l["end"]:
        loop += r.get("samples", 0)
top = max(lines.items(), key=lambda kv: kv[1])
text = open(sys.argv[2]).read()
m = re.search(r"^ +(\d+) +[\d.]+% +\d+ +\d+ +kernels_a\.py:(\d+)", text, re.M)
assert m, text[:600]
assert (int(m.group(1)), int(m.group(2))) == (top[1], top[0][1]), (m.groups(), top)
assert re.search(r"loop kernels_a\.py:\d+-\d+: %d samples" % loop, text), (loop, text[-400:])
assert "hot lines, by %d PC samples" % k["samples"] in text
PY
echo "$prog: ok: --hot: the hottest line and the loop's share as the rows sum them"
# --hot's inlined calls (each row counted for its call and the calls
# around it) and the rows past the next wave's budget, summed from the JSON
python3 - "$work/stochastic.out" "$work/hot.txt" <<'PY' || fail "--hot calls and region: see above"
import json, re, sys
rep = json.load(open(sys.argv[1]))["reports"][0]
k, calls = rep["kernels"][0], rep["inline_calls"]
text = open(sys.argv[2]).read()
inside = [0] * len(calls)
for r in k["rows"]:
    c = r.get("scope", 0) - 1
    while c >= 0:
        inside[c] += r.get("samples", 0)
        c = calls[c]["parent"]
shown = re.findall(r"^ +at (\S+):(\d+) +(\d+) samples", text, re.M)
assert shown, text
for f, line, n in shown:
    assert any(c["line"] == int(line) and c["file"].endswith(f) and inside[i] == int(n) for i, c in enumerate(calls)), (f, line, n, inside)
m = re.search(r"more than (\d+) VGPRs\+AGPRs live \((\d+) waves' most\): (\d+) samples \([\d.]+%\), (\d+) instructions", " ".join(text.split()))
assert m, text
limit = int(m.group(1))
over = [r for r in k["rows"] if r["vgpr"] + r["agpr"] > limit]
assert (sum(r.get("samples", 0) for r in over), len(over)) == (int(m.group(3)), int(m.group(4))), (m.groups(), len(over))
assert int(m.group(2)) == k["occupancy"]["waves_per_simd"] + 1
PY
echo "$prog: ok: --hot: the inlined calls' samples and those past the next wave's budget as the rows sum them"

# A kernel that spills (gfx90a/spill_kernel): the samples at its spills and
# reloads, measured, beside the loop-weighted estimate, both from its JSON.
spill=${TREG_FIXTURES:?}/gfx90a/spill_kernel.hsaco
mkdir -p "$work/spill"
kernel_insns "$spill" spill_kernel gfx90a "$work/spill/insns"
cp "$work/write.py" "$work/spill/write.py"
python3 "$work/spill/write.py" "$work/spill/s.json" stochastic
"$A" --format json --samples "$work/spill/s.json" "$spill" >"$work/spill/out.json" 2>/dev/null || fail "spill_kernel --samples"
"$A" --hot --samples "$work/spill/s.json" "$spill" >"$work/spill/hot.txt" 2>/dev/null || fail "spill_kernel --hot"
python3 - "$work/spill/out.json" "$work/spill/hot.txt" <<'PY' || fail "--hot spills: see above"
import json, re, sys
k = json.load(open(sys.argv[1]))["reports"][0]["kernels"][0]
text = open(sys.argv[2]).read()
assert k["spill_instructions"] > 0
SPILL, RELOAD = 1, 2
at = sum(r.get("samples", 0) for r in k["rows"] if r["flags"] & (SPILL | RELOAD))
def trips(addr):
    w = 1
    for l in k["loops"]:
        if l["head"] <= addr < l["end"]:
            w *= l.get("trip_count") or k["assumed_trips"] or 1
    return w
run = sum(trips(r["address"]) for r in k["rows"])
sp = sum(trips(r["address"]) for r in k["rows"] if r["flags"] & (SPILL | RELOAD))
want = "spills and reloads: %d samples (%.1f%%, measured); %.1f%% of the instructions run by loop trips (the estimate)" % (
    at, 100.0 * at / k["samples"], 100.0 * sp / run)
assert want in " ".join(text.split()), (want, text[-600:])
print("test_samples: ok: --hot: " + want)
PY

# diff of two sampled runs of one build: the second run has 600 more
# samples on one instruction of kernels_a.py:74; where the time moved, as
# each run's own rows sum it by line, beside the registers there.
python3 - "$work/stochastic.json" "$work/stochastic.out" "$work/run2.json" <<'PY'
import copy, json, sys
d = json.load(open(sys.argv[1]))
k = json.load(open(sys.argv[2]))["reports"][0]["kernels"][0]
row = next(r for r in k["rows"] if r.get("line") == 74 and r.get("samples"))
t = d["rocprofiler-sdk-tool"][0]
recs = t["buffer_records"]["pc_sample_stochastic"]
src = next(x for x in recs if x["record"]["pc"]["code_object_offset"] == k["entry_address"] + row["address"])
for i in range(600):
    recs.append(copy.deepcopy(src))
json.dump(d, open(sys.argv[3], "w"))
PY
"$A" --format json --samples "$work/run2.json" "$hsaco" >"$work/run2.out" 2>/dev/null || fail "run2"
"$A" diff --format json --samples "$work/stochastic.json" --samples "$work/run2.json" "$hsaco" "$hsaco" \
  >"$work/diff.json" 2>"$work/diff.err" || fail "diff of two sampled runs: $(cat "$work/diff.err")"
"$A" diff --samples "$work/stochastic.json" --samples "$work/run2.json" "$hsaco" "$hsaco" >"$work/diff.txt" 2>/dev/null ||
  fail "diff of two sampled runs (text)"
python3 - "$work/stochastic.out" "$work/run2.out" "$work/diff.json" "$work/diff.txt" <<'PY' || fail "diff of sampled runs: see above"
import json, os, sys
def shares(p):
    k = json.load(open(p))["reports"][0]["kernels"][0]
    per = {}
    for r in k["rows"]:
        site = r.get("call_site") or r  # the author's line
        if r.get("samples") and site.get("line"):
            key = (os.path.basename(site["file"]), site["line"])
            per[key] = per.get(key, 0) + r["samples"]
    peaks = {(os.path.basename(l["file"]), l["line"]): l["peak_vgpr"] for l in k["source_lines"] if l.get("file")}
    return k["samples"], {key: 100.0 * n / k["samples"] for key, n in per.items()}, peaks
n_old, old, peaks = shares(sys.argv[1])
n_new, new, _ = shares(sys.argv[2])
pair = json.load(open(sys.argv[3]))["kernels"][0]
assert (pair["old_samples"], pair["new_samples"]) == (n_old, n_new), pair
moved = sorted(set(old) | set(new), key=lambda key: -abs(new.get(key, 0) - old.get(key, 0)))
got = [((l["file"], l["line"]), l["old_share"], l["new_share"], l["new"]["peak_vgpr"]) for l in pair["time_lines"]]
assert [g[0] for g in got] == moved[:len(got)] and got[0][0] == ("kernels_a.py", 74), (got, moved[:5])
for key, o, nw, v in got:
    assert abs(o - old.get(key, 0)) < 1e-9 and abs(nw - new.get(key, 0)) < 1e-9 and v == peaks[key], (key, o, nw, v)
text = open(sys.argv[4]).read()
line = "kernels_a.py:74  %5.1f%% -> %5.1f%% (%+.1f)" % (old[("kernels_a.py", 74)], new[("kernels_a.py", 74)],
                                                     new[("kernels_a.py", 74)] - old[("kernels_a.py", 74)])
assert "where the time moved" in text and line in text, (line, text[-800:])
PY
echo "$prog: ok: diff of two sampled runs: where the time moved by line, as each run's rows sum it, with the registers there"

# refused ARGS... -- ERE: exit 1 and one stderr line matching ERE
refused() {
  local args=() rc=0
  while [[ $1 != -- ]]; do args+=("$1"); shift; done
  "$A" "${args[@]}" >"$work/r.out" 2>"$work/r.err" || rc=$?
  ((rc != 0)) || fail "${args[*]}: accepted: $(head -c 300 "$work/r.out")"
  if [[ $(grep -c "" "$work/r.err") != 1 ]] || ! grep -Eq -e "$2" "$work/r.err"; then
    fail "${args[*]}: exit $rc, $(head -c 400 "$work/r.err")"
  fi
  echo "$prog: ok: refused: $(cut -c1-160 "$work/r.err")"
}
python3 "$work/write.py" "$work/text.json" stochastic text
t_addr=$(python3 -c "import json; w=json.load(open('$work/text.json.want')); print('%x' % sorted(int(a) for a in w)[150])")
refused --samples "$work/text.json" "$hsaco" -- \
  "--samples .*: the samples are not of this build: at offset 0x$t_addr \\(matmul_kernel\\+0x[0-9a-f]+\\) the profile has 's_nop 7', the code object '"
python3 "$work/write.py" "$work/inside.json" stochastic inside
i_addr=$(python3 -c "import json; w=json.load(open('$work/inside.json.want')); print('%x' % (sorted(int(a) for a in w)[100] + 2))")
refused --samples "$work/inside.json" "$hsaco" -- "offset 0x$i_addr \\(matmul_kernel\\+0x[0-9a-f]+\\) is inside an instruction"
python3 "$work/write.py" "$work/other.json" stochastic
python3 - "$work/other.json" <<'PY' # another program's: every offset 16 MiB on
import json, sys
d = json.load(open(sys.argv[1]))
for s in d["rocprofiler-sdk-tool"][0]["buffer_records"]["pc_sample_stochastic"]:
    s["record"]["pc"]["code_object_offset"] += 1 << 24
json.dump(d, open(sys.argv[1], "w"))
PY
rc=0
"$A" --samples "$work/other.json" "$hsaco" >/dev/null 2>"$work/other.err" || rc=$?
if ((rc != 1)) || ! grep -q "note: --samples .*: none of the profile's [0-9]* samples (0 more in no code object) is in this code object's kernels" "$work/other.err" ||
  ! grep -q "^treg-analyze: --samples .*other.json: no code object given has this profile's samples$" "$work/other.err"; then
  fail "another program's samples: exit $rc, $(head -c 600 "$work/other.err")"
fi
echo "$prog: ok: another program's samples: a note, then exit 1 (no code object given has them)"

# Two code objects at the same low addresses (a runtime's blit kernels, as
# in the real MI300X run, and the kernel's own): the one whose texts match
# is taken, the other's samples counted elsewhere.
python3 - "$work/stochastic.json" "$work/blit.json" <<'PY'
import copy, json, sys
d = json.load(open(sys.argv[1]))
t = d["rocprofiler-sdk-tool"][0]
t["strings"]["pc_sample_instructions"].append("s_endpgm")
blit = len(t["strings"]["pc_sample_instructions"]) - 1
t["code_objects"].insert(1, {"size": 88, "code_object_id": 1, "uri": "memory://4242#offset=0x5650&size=33920",
                             "load_base": 0x7F3A00000000, "load_size": 40960, "load_delta": 0x7F3A00000000, "storage_type": 2})
recs = t["buffer_records"]["pc_sample_stochastic"]
for r in list(recs[:900]):
    b = copy.deepcopy(r)
    b["record"]["pc"]["code_object_id"] = 1
    b["inst_index"] = blit
    recs.append(b)
json.dump(d, open(sys.argv[2], "w"))
PY
joins "two code objects" "$work/blit.json" "$work/blit.out" "$work/stochastic.json.want" \
  "PC samples placed \(the profile's code object 2; 0 outside its kernels, 900 elsewhere\)"
echo "$prog: ok: two code objects at the same addresses: the one whose texts match (900 blit samples elsewhere)"
refused --samples "$work/stochastic.json" --samples-code-object 9 "$hsaco" -- "the profile has no samples of code object 9"
python3 "$work/to_rocpd.py" "$work/text.json" "$work/text.db"
refused --samples "$work/text.db" "$hsaco" -- "--samples .*text.db: the samples are not of this build: at offset 0x$t_addr .* the profile has 's_nop 7'"
python3 "$work/to_rocpd.py" "$work/stochastic.json" "$work/two.db" twoprocs
refused --samples "$work/two.db" "$hsaco" -- "two.db: holds the PC samples of more than one process \\(pids 4242 and 4243\\)"
python3 - "$work/stochastic.db" "$work/noview.db" "$work/viewonly.db" <<'PY'
import shutil, sqlite3, sys
shutil.copy(sys.argv[1], sys.argv[2])
db = sqlite3.connect(sys.argv[2])  # no PC-sample table: a rocpd of a run without --pc-sampling
for (t,) in db.execute("SELECT name FROM sqlite_schema WHERE name LIKE 'rocpd_gpu_pc_sample%'").fetchall():
    db.execute("DROP %s %s" % ("VIEW" if t == "rocpd_gpu_pc_sample" else "TABLE", t))
db.commit()
db = sqlite3.connect(sys.argv[3])  # a view of that name, whose SQL is the file's: never run
db.executescript("CREATE VIEW rocpd_gpu_pc_sample AS WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) "
                 "SELECT 1 AS nid, 1 AS pid, 2 AS code_object_id, x AS code_object_offset, 1 AS wave_issued, "
                 "0 AS stall_reason FROM c")
PY
refused --samples "$work/noview.db" "$hsaco" -- "noview.db: a SQLite database without a rocpd_gpu_pc_sample table"
refused --samples "$work/viewonly.db" "$hsaco" -- "viewonly.db: a SQLite database without a rocpd_gpu_pc_sample table"
head -c 20000 "$work/stochastic.db" >"$work/cut.db"
refused --samples "$work/cut.db" "$hsaco" -- "cut.db: .*(malformed|not a database|no such table|lacks)"
printf '{"rocprofiler-sdk-tool": [' >"$work/cut.json"
refused --samples "$work/cut.json" "$hsaco" -- "^treg-analyze: --samples .*cut.json: not JSON: it ends too soon"
printf '{"traceEvents": []}' >"$work/other-format.json"
refused --samples "$work/other-format.json" "$hsaco" -- "neither rocprofv3's JSON .* nor a code.json"
echo "$prog: ok"

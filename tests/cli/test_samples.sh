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
OBJDUMP=${OBJDUMP:-llvm-objdump-22}
command -v "$OBJDUMP" >/dev/null 2>&1 || skip "$OBJDUMP not found: the instruction texts come from it"
command -v llvm-readelf-22 >/dev/null 2>&1 || skip "llvm-readelf-22 not found: the kernel's size comes from it"
hsaco=$TREG_SOURCE_ROOT/tests/data/triton-cache/SUJBNLZWAZC7NO5J3T3LVKCKXAD3AMYKJH7URV2PQVD7HF6A6K6A/matmul_kernel.hsaco
work=$(mktemp -d "${TMPDIR:-/tmp}/treg-samples.XXXXXX")
trap 'rm -rf "$work"' EXIT
A=$TREG_ANALYZE

# The code object's instructions, by llvm-objdump-22: "addr text" lines.
# (its lines: TAB text // ADDR: WORDS)
"$OBJDUMP" -d --mcpu=gfx90a "$hsaco" |
  sed -n 's|^\t\(.*[^ ]\) *// \([0-9A-Fa-f]*\):.*$|\2 \1|p' >"$work/insns"
(($(wc -l <"$work/insns") > 1000)) || fail "llvm-objdump gave $(wc -l <"$work/insns") instructions"
# the kernel's bytes, by its symbol (llvm-readelf-22): the padding after it is no kernel's
read -r k_start k_size < <(llvm-readelf-22 -sW "$hsaco" | awk '$8 == "matmul_kernel" && $4 == "FUNC" { print $2, $3; exit }')
[[ -n ${k_size:-} ]] || fail "llvm-readelf-22 shows no matmul_kernel symbol"
python3 -c 'import sys; lo, n = int(sys.argv[1], 16), int(sys.argv[2])
for l in open(sys.argv[3]):
    if lo <= int(l.split()[0], 16) < lo + n: print(l, end="")' "$k_start" "$k_size" "$work/insns" >"$work/k"
mv "$work/k" "$work/insns"

# write.py OUT KIND [EDIT]: samples of 1/3 of the instructions (a fixed
# draw), counts in OUT.want; KIND: stochastic, host_trap, delta (load_delta
# 0x100 below load_base), code_json; EDIT: text (one text changed), inside
# (one offset 2 bytes into its instruction), other (code object 7 only).
cat >"$work/write.py" <<'PY'
import json, random, sys
out, kind = sys.argv[1], sys.argv[2]
edit = sys.argv[3] if len(sys.argv) > 3 else ""
insns = []
for line in open(sys.argv[0].rsplit("/", 1)[0] + "/insns"):
    addr, _, text = line.rstrip("\n").partition(" ")
    insns.append((int(addr, 16), text.strip()))
rnd = random.Random(7)
picked = sorted(rnd.sample(insns, len(insns) // 3))
want, records, texts, rows = {}, [], [], []
base = 0x7F3A12340000
delta = base - 0x100 if kind == "delta" else base
co = 7 if edit == "other" else 2
for n, (addr, text) in enumerate(picked):
    count = rnd.randint(1, 5)
    issued = rnd.randint(0, count) if kind != "host_trap" else 0
    off = addr - 0x100 if kind == "delta" else addr  # ELF = load_base + off - load_delta
    if edit == "inside" and n == 100:
        off += 2
    if edit == "text" and n == 150:
        text = "s_nop 7"
    if text not in texts:
        texts.append(text)
    want[addr] = (count, issued, count - issued if kind != "host_trap" else 0)
    for k in range(count):
        rec = {"hw_id": {"wave_id": 0, "workgroup_id ": 1}, "pc": {"code_object_id": co, "code_object_offset": off},
               "exec_mask": 2**64 - 1, "timestamp": 1000 + k, "dispatch_id": 1,
               "corr_id": {"internal": 1, "external": 0}, "wrkgrp_id": {"x": 0, "y": 0, "z": 0}, "wave_in_grp": 0}
        if kind != "host_trap":
            ok = k < issued
            rec.update({"flags": {"has_mem_cnt": 0}, "wave_issued": int(ok),
                        "inst_type": "ROCPROFILER_PC_SAMPLING_INSTRUCTION_TYPE_" + ("VALU" if ok else "NO_INST"),
                        "wave_cnt": 4, "snapshot": {"stall_reason": "ROCPROFILER_PC_SAMPLING_INSTRUCTION_NOT_ISSUED_REASON_"
                                                    + ("NONE" if ok else "WAITCNT"), "lck_err": 0}})
        records.append({"record": rec, "inst_index": texts.index(text)})
    rows.append([text, 0, 1, "kernels_a.py:70", co, off, 0, 0, 0, 0, issued, count - issued, [0, 0, 0, count - issued, 0, 0, 0, 0, 0, 0]])
if kind == "code_json":
    doc = {"code": [["; matmul_kernel", 0, 0, "matmul_kernel", co, 0, 0, 0, 0, 0, 0, 0, [0] * 10]] + rows,
           "header": ["ISA", "_", "LineNumber", "Source", "Codeobj", "Vaddr", "Hit", "Latency", "Stall", "Idle",
                      "PC_Issued", "PC_Stalled", "Stall_Reasons"], "version": "3.0.0"}
else:
    key = "pc_sample_host_trap" if kind == "host_trap" else "pc_sample_stochastic"
    doc = {"rocprofiler-sdk-tool": [{
        "metadata": {"pid": 4242}, "agents": [],
        "strings": {"pc_sample_instructions": texts, "pc_sample_comments": [""] * len(texts)},
        "code_objects": [{"size": 0, "code_object_id": 0, "uri": "", "load_base": 0, "load_size": 0, "load_delta": 0, "storage_type": 0},
                         {"size": 88, "code_object_id": co, "uri": "file:///work/matmul_kernel.hsaco", "load_base": base,
                          "load_size": 0x4000, "load_delta": delta, "storage_type": 1}],
        "buffer_records": {"kernel_dispatch": [], key: records}}]}
json.dump(doc, open(out, "w"))
json.dump({"%d" % a: v for a, v in want.items()}, open(out + ".want", "w"))
PY

# to_rocpd.py IN.json OUT.db [notext|twoprocs]: the same samples in the
# rocpd layout of rocm-systems' drafts (PR #4946; no released rocprofv3
# writes PC samples to rocpd): one rocpd_gpu_pc_sample_<uuid> table (the
# reasons as pc_sampling.h's enum values, wave_issued NULL for host-trap),
# the released schema's rocpd_info_code_object_<uuid> (id = the load id),
# rocpd_disassembly_data_<uuid> (unless notext), and the views rocpd adds.
cat >"$work/to_rocpd.py" <<'PY'
import json, sqlite3, sys
src, out = sys.argv[1], sys.argv[2]
edit = sys.argv[3] if len(sys.argv) > 3 else ""
reasons = ["NONE", "NO_INSTRUCTION_AVAILABLE", "ALU_DEPENDENCY", "WAITCNT", "INTERNAL_INSTRUCTION",
           "BARRIER_WAIT", "ARBITER_NOT_WIN", "ARBITER_WIN_EX_STALL", "OTHER_WAIT", "SLEEP_WAIT"]
t = json.load(open(src))["rocprofiler-sdk-tool"][0]
u = "_0b2c5e1a_1d2f_4c3e_9a8b_0c1d2e3f4a5b"
db = sqlite3.connect(out)
db.executescript(f"""
CREATE TABLE rocpd_info_code_object{u} (id INTEGER PRIMARY KEY AUTOINCREMENT, guid TEXT, nid INTEGER NOT NULL,
  pid INTEGER NOT NULL, agent_id INTEGER, uri TEXT, load_base BIGINT, load_size BIGINT, load_delta BIGINT,
  storage_type TEXT CHECK (storage_type IN ('FILE', 'MEMORY')), extdata JSONB DEFAULT "{{}}" NOT NULL);
CREATE TABLE rocpd_gpu_pc_sample{u} (id INTEGER PRIMARY KEY AUTOINCREMENT, guid TEXT, timestamp BIGINT,
  nid INTEGER NOT NULL, pid INTEGER NOT NULL, tid INTEGER, agent_id INTEGER, event_id INTEGER,
  dispatch_id INTEGER, correlation_id INTEGER, exec_mask BIGINT, code_object_id INTEGER,
  code_object_offset BIGINT, wave_issued INTEGER, inst_type INTEGER, stall_reason INTEGER, wave_count INTEGER);
CREATE TABLE rocpd_disassembly_data{u} (nid INTEGER, pid INTEGER, code_object_id INTEGER,
  code_object_offset BIGINT, instruction TEXT, comment TEXT);
CREATE VIEW rocpd_info_code_object AS SELECT * FROM rocpd_info_code_object{u};
CREATE VIEW rocpd_gpu_pc_sample AS SELECT * FROM rocpd_gpu_pc_sample{u};
""")
for c in t["code_objects"]:
    if c["code_object_id"]:
        db.execute(f"INSERT INTO rocpd_info_code_object{u} (id, guid, nid, pid, uri, load_base, load_size, load_delta, extdata)"
                   " VALUES (?, 'g', 1, 4242, ?, ?, ?, ?, ?)",
                   (c["code_object_id"], c["uri"], c["load_base"], c["load_size"], c["load_delta"],
                    json.dumps({"storage_type": c["storage_type"]})))
texts, seen = t["strings"]["pc_sample_instructions"], set()
for key in ("pc_sample_host_trap", "pc_sample_stochastic"):
    for n, s in enumerate(t["buffer_records"].get(key, [])):
        r = s["record"]
        pc = r["pc"]
        st = key == "pc_sample_stochastic"
        why = r.get("snapshot", {}).get("stall_reason", "")
        pid = 4243 if edit == "twoprocs" and n == 5 else 4242
        db.execute(f"INSERT INTO rocpd_gpu_pc_sample{u} (guid, timestamp, nid, pid, tid, agent_id, event_id, dispatch_id,"
                   " correlation_id, exec_mask, code_object_id, code_object_offset, wave_issued, inst_type, stall_reason,"
                   " wave_count) VALUES ('g', ?, 1, ?, NULL, 1, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                   (r["timestamp"], pid, n, r["dispatch_id"], r["corr_id"]["internal"], r["exec_mask"] - 2**63,
                    pc["code_object_id"], pc["code_object_offset"], r["wave_issued"] if st else None,
                    1 if st and r["wave_issued"] else (15 if st else None),
                    reasons.index(why.rsplit("REASON_", 1)[1]) if st else None, r["wave_cnt"] if st else None))
        k = (pc["code_object_id"], pc["code_object_offset"])
        if edit != "notext" and k not in seen and s["inst_index"] >= 0:
            seen.add(k)
            db.execute(f"INSERT INTO rocpd_disassembly_data{u} VALUES (1, 4242, ?, ?, ?, '')", k + (texts[s["inst_index"]],))
db.commit()
PY

# check OUT.json WANT: treg's rows against the counts written
check() {
  python3 - "$1" "$2" <<'PY' || fail "see above"
import json, sys
d = json.load(open(sys.argv[1]))
want = {int(a): v for a, v in json.load(open(sys.argv[2])).items()}
assert not d["errors"], d["errors"]
k = d["reports"][0]["kernels"][0]
got = {}
for r in k["rows"]:
    if r.get("samples"):
        got[k["entry_address"] + r["address"]] = (r["samples"], r.get("issued", 0), r.get("stalled", 0))
want = {a: tuple(v) for a, v in want.items()}
assert got == want, ("rows differ", sorted(set(got.items()) ^ set(want.items()))[:5])
assert k["samples"] == sum(v[0] for v in want.values()), k["samples"]
PY
}

for kind in stochastic host_trap delta code_json; do
  python3 "$work/write.py" "$work/$kind.json" "$kind"
  "$A" --format json --samples "$work/$kind.json" "$hsaco" >"$work/$kind.out" 2>"$work/$kind.err" ||
    fail "$kind: exit $?: $(cat "$work/$kind.err")"
  check "$work/$kind.out" "$work/$kind.json.want"
  echo "$prog: ok: $kind: every row's samples as written ($(grep -o '"samples": *[0-9]*' "$work/$kind.out" | head -1))"
done
# the same samples from a rocpd database: equal rows; without the texts,
# placed by address with a note
for kind in stochastic host_trap delta; do
  python3 "$work/to_rocpd.py" "$work/$kind.json" "$work/$kind.db"
  "$A" --format json --samples "$work/$kind.db" "$hsaco" >"$work/$kind.db.out" 2>"$work/$kind.db.err" ||
    fail "rocpd $kind: exit $?: $(cat "$work/$kind.db.err")"
  check "$work/$kind.db.out" "$work/$kind.json.want"
  ! grep -q "no instruction text" "$work/$kind.db.err" || fail "rocpd $kind: $(cat "$work/$kind.db.err")"
  cmp -s "$work/$kind.out" "$work/$kind.db.out" || fail "rocpd $kind: its JSON differs from the rocprofv3 JSON's"
  echo "$prog: ok: rocpd $kind: the same report as from the JSON"
done
python3 "$work/to_rocpd.py" "$work/stochastic.json" "$work/notext.db" notext
"$A" --format json --samples "$work/notext.db" "$hsaco" >"$work/notext.out" 2>"$work/notext.err" ||
  fail "rocpd without texts: $(cat "$work/notext.err")"
check "$work/notext.out" "$work/stochastic.json.want"
grep -q "note: [0-9]* of them where the profile has no instruction text, placed by address alone" "$work/notext.err" ||
  fail "rocpd without texts: no note: $(cat "$work/notext.err")"
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
"$A" --format json --samples "$work/blit.json" "$hsaco" >"$work/blit.out" 2>"$work/blit.err" ||
  fail "two code objects: $(cat "$work/blit.err")"
check "$work/blit.out" "$work/stochastic.json.want"
grep -q "PC samples placed (the profile's code object 2; 0 outside its kernels, 900 elsewhere)" "$work/blit.err" ||
  fail "two code objects: $(cat "$work/blit.err")"
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

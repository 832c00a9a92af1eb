# shellcheck shell=bash
# Samples in rocprofv3's layouts for a real gfx90a matmul, for the tests
# of --samples (test_samples.sh: treg-analyze; test_samples_server.sh:
# tregc upload --samples and tregd).  Sourced after lib.sh, with $work
# set; gives $hsaco, $work/insns (llvm-objdump-22's "addr text" of the
# kernel's instructions), $work/write.py and $work/to_rocpd.py, and check.
: "${work:?samples_lib.sh: set work first}"
OBJDUMP=${OBJDUMP:-llvm-objdump-22}
command -v "$OBJDUMP" >/dev/null 2>&1 || skip "$OBJDUMP not found: the instruction texts come from it"
command -v llvm-readelf-22 >/dev/null 2>&1 || skip "llvm-readelf-22 not found: the kernel's size comes from it"
hsaco=$TREG_SOURCE_ROOT/tests/data/triton-cache/SUJBNLZWAZC7NO5J3T3LVKCKXAD3AMYKJH7URV2PQVD7HF6A6K6A/matmul_kernel.hsaco

# kernel_insns HSACO KERNEL MCPU OUT: the kernel's instructions by
# llvm-objdump-22, "addr text" lines (its lines: TAB text // ADDR: WORDS),
# within the kernel's symbol by llvm-readelf-22 (the padding after it is no
# kernel's).
kernel_insns() {
  local k_start k_size
  "$OBJDUMP" -d --mcpu="$3" "$1" | sed -n 's|^\t\(.*[^ ]\) *// \([0-9A-Fa-f]*\):.*$|\2 \1|p' >"$4.all"
  read -r k_start k_size < <(llvm-readelf-22 -sW "$1" | awk -v k="$2" '$8 == k && $4 == "FUNC" { print $2, $3; exit }')
  [[ -n ${k_size:-} ]] || fail "llvm-readelf-22 shows no $2 symbol in $1"
  python3 -c 'import sys; lo, n = int(sys.argv[1], 16), int(sys.argv[2])
for l in open(sys.argv[3]):
    if lo <= int(l.split()[0], 16) < lo + n: print(l, end="")' "$k_start" "$k_size" "$4.all" >"$4"
  rm -f "$4.all"
}
kernel_insns "$hsaco" matmul_kernel gfx90a "$work/insns"
(($(wc -l <"$work/insns") > 1000)) || fail "llvm-objdump gave $(wc -l <"$work/insns") instructions"

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


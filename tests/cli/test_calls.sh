#!/usr/bin/env bash
# Kernels that call device functions (s_swappc_b64): each function reported
# on its own (kind "function": its registers, its spills, who calls it), and
# folded into its callers' figures.
#
# 1. clang-22's call_kernel (tests/fixtures/src/call_kernel.hip: a kernel
#    calling the noinline poly_eval twice), for gfx906, gfx90a and gfx942:
#    - treg's allocation equals what the compiler wrote in the .s: poly_eval's
#      ".set .Lpoly_eval.num_vgpr, N", and call_kernel's
#      ".set call_kernel.num_vgpr, max(OWN, .Lpoly_eval.num_vgpr)": treg's
#      own_vgprs is OWN and its allocation max(OWN, N);
#    - each call's held registers are computed here from the .s alone: the
#      VGPRs written before the call and read after it before any rewrite;
#      poly_eval's registers (all it names) are apart from them, so the peak
#      while it runs is held + its own peak;
#    - LLVM's post-RA liveness (the project's oracle, tests/oracle/mir_live.py)
#      equals treg on every row of the kernel and of the function: the call
#      reads the arguments and writes the result, the return reads the result
#      and not the return address a leaf never touches.
# 2. DTK's shape (data/softfloat_call.s: a kernel calling __softfloat_f64_add,
#    which spills the callee-saved v40 to its frame), assembled by llvm-mc-22
#    and read as a code object, and read again as gfx928 text: the function's
#    2 spill instructions are its own and counted once in the kernel's callee
#    spills, the kernel's 11 own VGPRs fold to the function's 41 (the
#    descriptor's), and the peak while the function runs is worked by hand
#    below.
set -uo pipefail
prog=test_calls.sh
# shellcheck source=tests/cli/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
require_analyzer
MC=${MC:-llvm-mc-22}
LLD=${LLD:-ld.lld-22}
command -v python3 >/dev/null || skip "python3 not found"
command -v "$MC" >/dev/null || skip "$MC not found (Debian's llvm-22)"
command -v "$LLD" >/dev/null || skip "$LLD not found (Debian's lld-22)"
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=${TREG_SOURCE_ROOT:-$here/../..}
fixtures=${TREG_FIXTURES:?TREG_FIXTURES is not set}
out=${TREG_TEST_OUTPUT:-${TMPDIR:-/tmp}}/calls
rm -rf "$out"
mkdir -p "$out"

# --- 1. clang-22's call_kernel ------------------------------------------------------
for arch in gfx906 gfx90a gfx942; do
  hsaco=$fixtures/$arch/call_kernel.hsaco
  [[ -f $hsaco ]] || fail "$hsaco is missing (fixtures_build)"
  "$TREG_ANALYZE" --format json "$hsaco" >"$out/$arch.json" 2>"$out/$arch.err" ||
    fail "$arch: $(cat "$out/$arch.err")"
  python3 - "$out/$arch.json" "$fixtures/$arch/call_kernel.s" "$arch" <<'PY' ||
import json, re, sys
doc, asm, arch = json.load(open(sys.argv[1])), open(sys.argv[2]).read(), sys.argv[3]
ks = {k["name"]: k for r in doc["reports"] for k in r["kernels"]}
def check(ok, what):
    if not ok:
        sys.exit(f"{arch}: {what}")
check(set(ks) == {"call_kernel", "poly_eval"}, f"entries {sorted(ks)}")
k, f = ks["call_kernel"], ks["poly_eval"]
check(k["kind"] == "kernel" and f["kind"] == "function", f"kinds {k['kind']}, {f['kind']}")
check(f["called_by"] == ["call_kernel"], f"poly_eval called by {f['called_by']}")
# LLVM 22 adds the private segment wave offset to the scratch base on
# gfx906/gfx90a ("s_add_u32 s0, s0, s7") while the descriptor enables
# neither: the one read of a never-set register (test_compiler_figures.c)
wave_offset = "(s_add_u32 s0, s0, s7)" in k.get("undefined_example", "")
check(k["undefined_reads"] == (1 if wave_offset else 0), f"call_kernel: {k['undefined_reads']} "
      f"undefined reads ({k.get('undefined_example')})")
for e in (k, f):
    check(e["unresolved_jumps"] == 0, f"{e['name']}: {e['unresolved_jumps']} unresolved jumps")
check(f["undefined_reads"] == 0, f"poly_eval: {f['undefined_reads']} undefined reads")
check(f["occupancy"]["limited_by"] == "callers", "a function's occupancy is its callers'")

# the compiler's resource usage, as the .s sets it
n = int(re.search(r"\.set \.Lpoly_eval\.num_vgpr, (\d+)", asm).group(1))
own = int(re.search(r"\.set call_kernel\.num_vgpr, max\((\d+), \.Lpoly_eval\.num_vgpr\)",
                    asm).group(1))
check(f["vgpr"]["allocated"] == n, f"poly_eval VGPRs {f['vgpr']['allocated']}, the .s says {n}")
check(k["own_vgprs"] == own, f"call_kernel's own VGPRs {k['own_vgprs']}, the .s says {own}")
check(k["vgpr"]["allocated"] == max(own, n),
      f"call_kernel VGPRs {k['vgpr']['allocated']}, the .s says max({own}, {n})")

# the kernel's instructions, from the .s alone
body = asm.split("\ncall_kernel:", 1)[1].split("s_endpgm", 1)[0]
insns = [l.split(";")[0].strip() for l in body.splitlines()]
insns = [l for l in insns if l and not l.startswith(".") and not l.endswith(":")]
def vregs(text):
    regs = set()
    for a, b, c in re.findall(r"\bv\[(\d+):(\d+)\]|\bv(\d+)\b", text):
        regs |= set(range(int(a), int(b) + 1)) if a else {int(c)}
    return regs
def split(insn):
    m, _, ops = insn.partition(" ")
    fields = [x.strip() for x in ops.split(",")]
    if "store" in m or m.startswith("s_"):
        return set(), vregs(ops)            # a store reads all it names
    return vregs(fields[0]), vregs(",".join(fields[1:]))
calls = [i for i, t in enumerate(insns) if t.startswith("s_swappc_b64")]
check(len(calls) == 2 and len(k["call_sites"]) == 2, f"{len(k['call_sites'])} call sites")
callee_regs = vregs(asm.split("\npoly_eval:", 1)[1].split("s_setpc_b64", 1)[0])
for c, site in zip(calls, k["call_sites"]):
    check(site["callee"] == "poly_eval" and not site["recursive"], f"callee {site['callee']}")
    written = set()
    for t in insns[:c]:
        written |= split(t)[0]
    held, defined = set(), set()
    for t in insns[c + 1:]:
        d, u = split(t)
        held |= (u - defined) & written
        defined |= d
    held -= {0}                             # the result comes back in v0
    check(site["held_vgprs"] == len(held), f"call at {site['address']:#x}: held "
          f"{site['held_vgprs']} VGPRs, the .s holds {sorted(held)}")
    check(not (held & callee_regs), f"held {sorted(held)} meet poly_eval's {sorted(callee_regs)}")
    want = len(held) + f["vgpr"]["peak_live"]
    check(site["vgpr_peak"] == want, f"call at {site['address']:#x}: VGPR peak inside "
          f"{site['vgpr_peak']}, held {len(held)} + poly_eval's {f['vgpr']['peak_live']}")
best = max(s["vgpr_peak"] for s in k["call_sites"])
check(k["vgpr_peak_with_calls"] == max(best, k["vgpr"]["peak_live"]),
      f"peak with calls {k['vgpr_peak_with_calls']}")
check(k["vgpr_peak_with_calls"] > k["vgpr"]["peak_live"], "poly_eval raises no peak")
PY
    fail "$arch call_kernel (above)"

  # LLVM's post-RA liveness, row by row, kernel and function
  if command -v llc-22 >/dev/null; then
    python3 "$root/tests/oracle/mir_live.py" compare "$fixtures/$arch/call_kernel.ll" "$arch" \
      "$TREG_ANALYZE" --work "$out/mir-$arch" --json "$out/mir-$arch.json" --quiet \
      >"$out/mir-$arch.log" 2>&1 || fail "$arch oracle: $(tail -3 "$out/mir-$arch.log")"
    python3 - "$out/mir-$arch.json" "$arch" <<'PY' || fail "$arch: rows differ from LLVM's (above)"
import json, sys
res = {r["kernel"]: r for r in json.load(open(sys.argv[1]))}
assert set(res) == {"call_kernel", "poly_eval"}, sorted(res)
for name, r in res.items():
    eq, n = r["hwpe"]["all_equal_rows"], r["aligned"]
    if eq != n or n != r["mir_instrs"]:
        sys.exit(f"{sys.argv[2]} {name}: {eq} of {n} rows equal ({r['mir_instrs']} in the MIR)")
PY
  fi
done

# --- 2. DTK's shape: __softfloat_f64_add -------------------------------------------
src=$here/data/softfloat_call.s
"$MC" -triple=amdgcn-amd-amdhsa -mcpu=gfx906 -filetype=obj "$src" -o "$out/sf.o" 2>"$out/mc.err" ||
  fail "$MC: $(head -c 300 "$out/mc.err")"
"$LLD" -shared "$out/sf.o" -o "$out/sf.hsaco" || fail "$LLD failed"
sed -e 's/--gfx906"/--gfx928"/' -e 's/amdgcn-amd-amdhsa--gfx906$/amdgcn-amd-amdhsa--gfx928/' \
  "$src" >"$out/sf.amdgcn"
"$TREG_ANALYZE" --format json "$out/sf.hsaco" >"$out/sf-binary.json" 2>"$out/sf.err" ||
  fail "code object: $(cat "$out/sf.err")"
"$TREG_ANALYZE" --format json "$out/sf.amdgcn" >"$out/sf-text.json" 2>"$out/sf.err" ||
  fail "gfx928 text: $(cat "$out/sf.err")"
"$TREG_ANALYZE" "$out/sf.hsaco" >"$out/sf.txt" 2>&1 || fail "text summary failed"
# By hand: __softfloat_f64_add's VGPR peak is 7, at v_sub_u32 (v0-v3, the
# arguments; v4, v40 read; v5 written) and at v_add_f64 (v0-v3 read, v5
# still to be compared, v6-v7 written).  Across the call the kernel holds
# v10 (its store address) and s[10:11] (the output pointer): 1 VGPR, 2
# SGPRs, none of which the function names, so 8 VGPRs while it runs.  The
# kernel's own peak is 5, at the call (the arguments v0-v3 and v10).
for form in binary text; do
  python3 - "$out/sf-$form.json" "$form" <<'PY' || fail "softfloat ($form, above)"
import json, sys
doc, form = json.load(open(sys.argv[1])), sys.argv[2]
ks = {k["name"]: k for r in doc["reports"] for k in r["kernels"]}
def check(ok, what):
    if not ok:
        sys.exit(f"{form}: {what}")
check(set(ks) == {"k", "__softfloat_f64_add"}, f"entries {sorted(ks)}")
k, f = ks["k"], ks["__softfloat_f64_add"]
check(f["kind"] == "function" and f["called_by"] == ["k"], "the function and its caller")
check(f["spill_instructions"] == 2, f"function spills {f['spill_instructions']}")
check([s["kind"] for s in f["spills"]] == ["scratch_store", "scratch_load"], "spill kinds")
check(f["vgpr"]["allocated"] == 41 and f["vgpr"]["peak_live"] == 7,
      f"function VGPRs {f['vgpr']['allocated']} allocated, {f['vgpr']['peak_live']} peak")
check(k["spill_instructions"] == 0 and k["callee_spill_instructions"] == 2,
      f"kernel spills {k['spill_instructions']} own, {k['callee_spill_instructions']} callee")
check(k["own_vgprs"] == 11 and k["vgpr"]["allocated"] == 41,
      f"kernel VGPRs {k['own_vgprs']} own, {k['vgpr']['allocated']} allocated")
check(k["metadata"]["vgpr_count"] == 41, "the metadata's .vgpr_count")
(site,) = k["call_sites"]
check(site["callee"] == "__softfloat_f64_add" and site["callee_spills"] == 2, f"call {site}")
check((site["held_vgprs"], site["held_sgprs"]) == (1, 2), f"held {site}")
check(k["vgpr"]["peak_live"] == 5 and site["vgpr_peak"] == 8 and k["vgpr_peak_with_calls"] == 8,
      f"peaks own {k['vgpr']['peak_live']}, inside {site['vgpr_peak']}")
for e in (k, f):
    check(e["undefined_reads"] == 0, f"{e['name']}: undefined reads")
PY
done
# As DTK ships it for gfx928: a code object with a word the linked LLVM
# cannot decode inside the function (v_add_f64's VOP3 opcode set to one
# gfx906 lacks, the ELF's machine 0 and the note's target gfx928, as
# test_hygon_assembly.sh makes them) and the .amdgcn beside it: the text
# supplies the function's word, and every figure is the one above.
mkdir -p "$out/entry"
python3 - "$out/sf.hsaco" "$out/entry/k.hsaco" <<'PY' || fail "patching the code object failed"
import struct, sys
b = bytearray(open(sys.argv[1], "rb").read())
def swap(old, new):
    assert b.count(old) == 1, old.hex()
    i = b.find(old)
    b[i:i + len(new)] = new
swap(struct.pack("<II", 0xD2800006, 0x00020500), struct.pack("<II", 0xD3C04006, 0x00020500))
assert b[48] == 0x2f, hex(b[48])  # EF_AMDGPU_MACH gfx906
b[48] = 0
swap(b"amdgcn-amd-amdhsa--gfx906", b"amdgcn-amd-amdhsa--gfx928")
open(sys.argv[2], "wb").write(b)
PY
mkdir -p "$out/alone"
cp "$out/entry/k.hsaco" "$out/alone/"
"$TREG_ANALYZE" --format json "$out/alone/k.hsaco" >"$out/sf-alone.json" 2>"$out/sf.err" ||
  fail "gfx928 code object alone: $(cat "$out/sf.err")"
python3 - "$out/sf-alone.json" <<'PY' || fail "gfx928 code object alone: the function is not marked"
import json, sys
ks = {k["name"]: k for r in json.load(open(sys.argv[1]))["reports"] for k in r["kernels"]}
f = ks["__softfloat_f64_add"]
assert f["undecodable_words"] == 1 and f["lower_bound"], (f["undecodable_words"], f["lower_bound"])
assert "__softfloat_f64_add (or a function it calls) holds words nobody could decode" in \
    ks["k"]["calls_note"], ks["k"]["calls_note"]
PY
cp "$out/sf.amdgcn" "$out/entry/k.amdgcn"
"$TREG_ANALYZE" --format json "$out/entry/k.hsaco" >"$out/sf-mixed.json" 2>"$out/sf.err" ||
  fail "gfx928 code object + assembly: $(cat "$out/sf.err")"
python3 - "$out/sf-mixed.json" "$out/sf-binary.json" <<'PY' || fail "gfx928 code object + assembly (above)"
import json, sys
def entries(path):
    return {k["name"]: k for r in json.load(open(path))["reports"] for k in r["kernels"]}
mixed, plain = entries(sys.argv[1]), entries(sys.argv[2])
f = mixed["__softfloat_f64_add"]
assert f["instruction_source"] == "code object + assembly" and f["text_instructions"] == 1, \
    (f["instruction_source"], f["text_instructions"])
assert f["undecodable_words"] == 0 and not f["lower_bound"], "the word is supplied"
for name in plain:
    for key in ("vgpr", "sgpr"):
        assert mixed[name][key]["peak_live"] == plain[name][key]["peak_live"], (name, key)
    assert [r["vgpr"] for r in mixed[name]["rows"]] == [r["vgpr"] for r in plain[name]["rows"]], name
assert mixed["k"]["vgpr_peak_with_calls"] == 8 and mixed["k"]["callee_spill_instructions"] == 2
PY

grep -q '^  function __softfloat_f64_add: ' "$out/sf.txt" || fail "text: no function header"
grep -q 'called by k$' "$out/sf.txt" || fail "text: no 'called by k'"
grep -q 'VGPR peak with calls 8, inside __softfloat_f64_add called at' "$out/sf.txt" ||
  fail "text: no peak with calls"
grep -q '2 spill instructions in the functions it calls' "$out/sf.txt" ||
  fail "text: the callee's spills are not said"
grep -q 'VGPRs allocated 41: 11 of its own' "$out/sf.txt" || fail "text: the folded allocation"
# --- 3. Hostile shapes, bounded ---------------------------------------------------------
# 5,000 calls in one block through one s_getpc_b64 pair (each resolved, not
# each searched for), and 500 functions whose .size each runs to the end of
# the code (each ends where the next begins: 501 instructions in all, as in
# the code, in the code object and in the text alike).
python3 - "$out" <<'PY' || fail "writing the hostile shapes failed"
import sys
out = sys.argv[1]
head = ['\t.amdgcn_target "amdgcn-amd-amdhsa--gfx906"', "\t.amdhsa_code_object_version 5", "\t.text"]
tail = ["\t.rodata", "\t.p2align 6", "\t.amdhsa_kernel k", "\t\t.amdhsa_next_free_vgpr 1",
        "\t\t.amdhsa_next_free_sgpr 32", "\t.end_amdhsa_kernel"]
calls = head + ["\t.type\tf,@function", "f:", "\tv_add_f32_e32 v0, v0, v0", "\ts_setpc_b64 s[30:31]",
                ".Lfe:", "\t.size f, .Lfe-f", "\t.globl\tk", "\t.p2align\t8", "\t.type\tk,@function", "k:",
                "\ts_getpc_b64 s[16:17]", "\ts_add_u32 s16, s16, f@rel32@lo+4",
                "\ts_addc_u32 s17, s17, f@rel32@hi+12"]
calls += ["\ts_swappc_b64 s[30:31], s[16:17]"] * 5000 + ["\ts_endpgm", ".Lke:", "\t.size k, .Lke-k"]
open(out + "/calls.s", "w").write("\n".join(calls + tail) + "\n")
nest = head + ["\t.globl\tk", "\t.p2align\t8", "\t.type\tk,@function", "k:", "\ts_endpgm", ".Lke:",
               "\t.size k, .Lke-k"]
for i in range(500):
    nest += [f"\t.type\tg{i},@function", f"g{i}:", "\tv_add_f32_e32 v0, v0, v0"]
nest += [".Lend:", "\ts_setpc_b64 s[30:31]"] + [f"\t.size g{i}, .Lend-g{i}+4" for i in range(500)]
open(out + "/nest.s", "w").write("\n".join(nest + tail) + "\n")
PY
"$MC" -triple=amdgcn-amd-amdhsa -mcpu=gfx906 -filetype=obj "$out/nest.s" -o "$out/nest.o" ||
  fail "assembling nest.s failed"
"$LLD" -shared "$out/nest.o" -o "$out/nest.hsaco" || fail "linking nest.o failed"
for f in calls.s nest.s nest.hsaco; do
  "$TREG_ANALYZE" --format json --no-rows "$out/$f" >"$out/$f.json" 2>"$out/$f.err" ||
    fail "$f: $(cat "$out/$f.err")"
done
python3 - "$out" <<'PY' || fail "hostile shapes (above)"
import json, sys
def entries(path):
    return {k["name"]: k for r in json.load(open(path))["reports"] for k in r["kernels"]}
c = entries(sys.argv[1] + "/calls.s.json")["k"]
assert len(c["call_sites"]) == 5000 and all(s["callee"] == "f" for s in c["call_sites"]), \
    "every call resolved"
for f in ("nest.s", "nest.hsaco"):
    e = entries(f"{sys.argv[1]}/{f}.json")
    assert len(e) == 501, (f, len(e))
    assert sum(k["instructions"] for k in e.values()) == 502, (f, "functions overlap")
PY

echo "$prog: ok"

#!/usr/bin/env bash
# Why the peak, end to end, on the real Triton cache entries in tests/data:
#   1. treg-analyze reads a .hsaco's sibling .ttgir: the categories come from
#      it; without it from the machine code, and the report says so; a
#      broken one is a note, never a failure of the analysis;
#   2. the .amdgcn alone (its own sibling .ttgir read too) gives the same
#      call sites, peak attribution, categories, uniform values and spill
#      cost as the code object;
#   3. through the service: tregc sends the .ttgir, tregd analyzes with it
#      and keeps it in texts/ under its SHA-256, a second upload is answered
#      from the store, and an upload without it is another report.
#
# Environment (set by CTest): TREG_ANALYZE, TREGD, TREGC, TREG_SOURCE_ROOT.
set -euo pipefail
prog=test_why
# shellcheck source=tests/cli/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
require_analyzer
command -v python3 >/dev/null 2>&1 || skip "python3 is needed to read the JSON"
A=$TREG_ANALYZE
data=$TREG_SOURCE_ROOT/tests/data/triton-cache
attn=LZJ667C7JP62SNK5JTV3O4L5MEBAWSBVUKRGI5OMGRI3GP2VHRMQ
softmax=MD4F523L5PVMIKLU6IIZMAM7ASER47Q6J6JG6ABYSLCTRQZ3BBMA
[[ -f $data/$attn/attn_fwd.ttgir ]] || fail "tests/data lacks $attn/attn_fwd.ttgir"

work=$(mktemp -d "${TMPDIR:-/tmp}/treg-why.XXXXXX")
trap 'rm -rf "$work"' EXIT

# source_of JSON: each kernel's categories_source and note.
source_of() {
  python3 -c '
import json, sys
for r in json.load(open(sys.argv[1]))["reports"]:
    for k in r["kernels"]:
        print(k.get("categories_source", "-"), "|", k.get("categories_note", ""))' "$1"
}

# --- 1. with, without and with a broken .ttgir -------------------------------------------
cp -r "$data/$attn" "$work/with"
"$A" --format json --no-rows "$work/with/attn_fwd.hsaco" >"$work/with.json"
[[ $(source_of "$work/with.json") == "ttgir | " ]] || fail "with its .ttgir: $(source_of "$work/with.json")"
cp -r "$data/$attn" "$work/without"
rm "$work/without/attn_fwd.ttgir"
"$A" --format json --no-rows "$work/without/attn_fwd.hsaco" >"$work/without.json"
[[ $(source_of "$work/without.json") == "machine code | no .ttgir given: categories from the machine code alone" ]] ||
  fail "without a .ttgir: $(source_of "$work/without.json")"
cp -r "$data/$attn" "$work/broken"
printf 'module {\n  tt.return loc(#loc)\n}\n}\n' >"$work/broken/attn_fwd.ttgir"
"$A" --format json --no-rows "$work/broken/attn_fwd.hsaco" >"$work/broken.json" 2>"$work/broken.err" ||
  fail "a broken .ttgir failed the analysis: $(cat "$work/broken.err")"
[[ ! -s $work/broken.err ]] || fail "a broken .ttgir wrote to stderr: $(cat "$work/broken.err")"
grep -q "machine code | TTGIR not used (.*attn_fwd.ttgir:4: a '}' closes nothing)" <(source_of "$work/broken.json") ||
  fail "a broken .ttgir: $(source_of "$work/broken.json")"
python3 - "$work/with.json" "$work/without.json" <<'PY' || fail "with and without the .ttgir: see above"
import json, sys
w, wo = (json.load(open(p))["reports"][0]["kernels"][0] for p in sys.argv[1:])
# the same registers, classified either way; the accumulator by tt.dot or by v_mfma
tot = lambda k: sum(c["vgpr"] + c["agpr"] for c in k["categories"])
assert tot(w) == tot(wo), (tot(w), tot(wo))
ops = lambda k, kind: {p["op"] for c in k["categories"] if c["kind"] == kind for p in c["parts"]}
assert "tt.dot" in ops(w, "accumulator"), ops(w, "accumulator")
assert ops(wo, "accumulator"), wo["categories"]  # the MFMA results and the math on them
assert all(p["op"].startswith(("v_", "s_", "global_", "buffer_", "ds_", "scratch_", "(kernel"))
           for c in wo["categories"] for p in c["parts"]), wo["categories"]
print("test_why: ok: %d registers classified with the .ttgir and without it" % tot(w))
PY
# one past the 64 MiB a TTGIR may have (sparse): not read, one line on stderr, analyzed anyway
cp -r "$data/$attn" "$work/huge"
truncate -s $(((64 << 20) + 1)) "$work/huge/attn_fwd.ttgir"
"$A" --format json --no-rows "$work/huge/attn_fwd.hsaco" >"$work/huge.json" 2>"$work/huge.err" ||
  fail "an oversized .ttgir failed the analysis: $(cat "$work/huge.err")"
if [[ $(wc -l <"$work/huge.err") -ne 1 ]] ||
  ! grep -q "attn_fwd.ttgir: 67108865 bytes, more than the 67108864 a TTGIR may have: not read" "$work/huge.err"; then
  fail "an oversized .ttgir: stderr $(cat "$work/huge.err")"
fi
[[ $(source_of "$work/huge.json") == "machine code | no .ttgir given: categories from the machine code alone" ]] ||
  fail "an oversized .ttgir: $(source_of "$work/huge.json")"
echo "$prog: ok: with the .ttgir, without it (said so), a broken one (a note naming its line), an oversized one (skipped, said so)"

# --- 2. the text front end agrees ----------------------------------------------------------
for entry in "$attn/attn_fwd" "$softmax/softmax_kernel"; do
  "$A" --format json --no-rows --no-assembly "$data/$entry.hsaco" >"$work/bin.json"
  "$A" --format json --no-rows "$data/$entry.amdgcn" >"$work/text.json"
  python3 - "$work/bin.json" "$work/text.json" "$entry" <<'PY' || fail "$entry: text and code object differ"
import json, sys
b, t = (json.load(open(p))["reports"][0] for p in sys.argv[1:3])
kb, kt = b["kernels"][0], t["kernels"][0]
def calls(r):
    return [(c["file"], c["line"], c["column"], c["parent"]) for c in r["inline_calls"]]
assert calls(b) == calls(t), (calls(b), calls(t))
for key in ("peak_attribution", "categories", "peak_uniform", "spill_cost", "categories_source"):
    assert kb.get(key) == kt.get(key), (key, kb.get(key), kt.get(key))
assert [(l["line"], l["instructions"], l["spill_cost"]) for l in kb["source_lines"]] == \
       [(l["line"], l["instructions"], l["spill_cost"]) for l in kt["source_lines"]]
print("test_why: ok: %s: the .amdgcn and the .hsaco agree (%d inlined calls, %d categories)" %
      (sys.argv[3], len(calls(b)), len(kb["categories"])))
PY
done

# --- 3. through the service ----------------------------------------------------------------
require_tregd openssl
start_tregd "$work" --workers 1 --timeout 60
tregc_to upload --no-source --format json --no-rows "$work/with/attn_fwd.hsaco" >"$work/up1.json" 2>"$work/up1.err" ||
  fail "tregc upload: $(cat "$work/up1.err")"
tregc_to upload --no-source --format json --no-rows "$work/with/attn_fwd.hsaco" >"$work/up2.json" 2>&1 ||
  fail "second tregc upload: $(cat "$work/up2.json")"
tregc_to upload --no-source --format json --no-rows "$work/without/attn_fwd.hsaco" >"$work/up3.json" 2>&1 ||
  fail "tregc upload without the .ttgir: $(cat "$work/up3.json")"
sha=$(sha256sum "$work/with/attn_fwd.ttgir" | cut -c1-64)
python3 - "$work" "$sha" <<'PY' || fail "service: see above"
import json, sys
w, sha = sys.argv[1], sys.argv[2]
up1, up2, up3, local = (json.load(open("%s/%s.json" % (w, n)))["reports"][0] for n in ("up1", "up2", "up3", "with"))
k1, k3, kl = up1["kernels"][0], up3["kernels"][0], local["kernels"][0]
assert up1.get("stored_before") is False and up2.get("stored_before") is True, (up1.get("stored_before"), up2.get("stored_before"))
assert up3.get("stored_before") is False, "an upload without the .ttgir was answered with the report made with it"
assert k1["categories_source"] == "ttgir" and k3["categories_source"] == "machine code", (k1["categories_source"], k3["categories_source"])
assert k1["categories"] == kl["categories"], "the server's categories differ from treg-analyze's"
assert k1["spill_cost"] == kl["spill_cost"] and k1["peak_uniform"] == kl["peak_uniform"]
print("test_why: ok: tregc upload sends the .ttgir: the server's categories are treg-analyze's; "
      "stored under its own inputs")
PY
[[ -f $work/store/texts/${sha:0:2}/$sha ]] || fail "the store does not keep the .ttgir (texts/${sha:0:2}/$sha)"
cmp -s "$work/store/texts/${sha:0:2}/$sha" "$work/with/attn_fwd.ttgir" || fail "the stored .ttgir differs"
echo "$prog: ok: the store keeps the .ttgir under its SHA-256"
stop_tregd
rm -rf "$work" # (start_tregd's trap replaced ours)
echo "$prog: ok"

#!/usr/bin/env bash
# treg-analyze's text views (the summary, --lines, --peak, --why, --asm) against the
# golden outputs in tests/golden/text_views/, and the properties every view
# must have.
#
# Inputs: the fixture gfx906/loop_kernel.hsaco (always; its source is read
# where make-fixtures.sh compiled it, under $TREG_SOURCE_ROOT), and, when
# $TREG_CORPUS is present, a gfx90a matmul_kernel, a gfx90a attn_fwd and a
# gfx906 softmax_kernel, whose sources are /workspace/kernels/kernels_a.py on
# the machine that compiled them and $TREG_CORPUS/src/kernels_a.py here.
# Tools run from inside the inputs' folders, on relative paths, so the
# outputs do not depend on where the checkout is.
# Asserts:
#   each view's output equals its golden file (UPDATE_GOLDEN=1 ctest -R text_views
#     rewrites them);
#   no line of any view is wider than 100 columns;
#   the default text equals --summary's;
#   piped output holds no ANSI escape, --color=always output does, and
#     NO_COLOR has no say over --color=always;
#   a source that cannot be found prints file:line (no text) and says so;
#   --source-map OLD=NEW and --source-dir DIR both find the corpus source;
#   --asm with --no-rows, a view with --format json, a bad --regs, --color
#     or --source-map are one-line usage errors (exit 2), in treg-analyze and
#     in tregc alike.
#
# Environment (set by CTest, see tests/CMakeLists.txt): TREG_ANALYZE, TREGC,
# TREG_FIXTURES, TREG_CORPUS, TREG_SOURCE_ROOT.
set -euo pipefail

prog=test_text_views
# shellcheck source=tests/cli/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

require_analyzer
command -v python3 >/dev/null 2>&1 || skip "python3 is needed to measure line widths"
fx=${TREG_FIXTURES:-}
[[ -n $fx && -f $fx/gfx906/loop_kernel.hsaco ]] ||
  skip "no fixtures at ${fx:-(TREG_FIXTURES unset)}; run tests/fixtures/make-fixtures.sh DIR and set TREG_FIXTURES=DIR"
A=$TREG_ANALYZE
golden=$TREG_SOURCE_ROOT/tests/golden/text_views
update=${UPDATE_GOLDEN:-0}

work=$(mktemp -d "${TMPDIR:-/tmp}/treg-views.XXXXXX")
trap 'rm -rf "$work"' EXIT

# run OUT DIR ARGS...: treg-analyze ARGS in DIR must succeed silently; OUT
# gets stdout with the checkout's path replaced by @SRC@.
run() {
  local out=$1 dir=$2
  shift 2
  local rc=0
  (cd "$dir" && "$A" "$@") >"$out.raw" 2>"$out.err" || rc=$?
  ((rc == 0)) || fail "treg-analyze $* exited $rc: $(head -n3 "$out.err")"
  [[ ! -s $out.err ]] || fail "treg-analyze $* wrote to stderr: $(head -n3 "$out.err")"
  sed "s|$TREG_SOURCE_ROOT|@SRC@|g" "$out.raw" >"$out"
}

# narrow FILE: every line fits 100 columns (code points, as a terminal shows them).
narrow() {
  python3 - "$1" <<'PY' || fail "$1: lines wider than 100 columns (above)"
import sys
bad = [(n, l) for n, l in enumerate(open(sys.argv[1], encoding="utf-8").read().split("\n"), 1)
       if len(l) > 100]
for n, l in bad[:5]:
    print(f"line {n}: {len(l)} columns: {l}")
sys.exit(1 if bad else 0)
PY
}

# plain FILE: no ANSI escape.
plain() {
  if grep -q $'\033' "$1"; then fail "$1: ANSI escapes in piped output"; fi
}

# same_as_golden NAME FILE: FILE equals tests/golden/text_views/NAME (or becomes it).
same_as_golden() {
  local name=$1 file=$2
  if [[ $update == 1 ]]; then
    mkdir -p "$golden"
    cp "$file" "$golden/$name"
    echo "$prog: wrote $golden/$name"
    return
  fi
  [[ $update != check-only ]] || return 0
  [[ -f $golden/$name ]] || fail "no golden $golden/$name (UPDATE_GOLDEN=1 writes it)"
  if ! diff -u "$golden/$name" "$file" >"$work/diff"; then
    head -n 40 "$work/diff"
    fail "$name differs from its golden (above; UPDATE_GOLDEN=1 rewrites it if the change is meant)"
  fi
  echo "$prog: ok: $name matches its golden"
}

# views NAME DIR FILE VIEWS ARGS...: each of VIEWS (words: summary lines
# peak asm) of FILE, with ARGS, against golden NAME.VIEW.txt.
views() {
  local name=$1 dir=$2 file=$3 v
  local -a list
  read -ra list <<<"$4"
  shift 4
  for v in "${list[@]}"; do
    run "$work/$name.$v.txt" "$dir" "--$v" "$@" "$file"
    narrow "$work/$name.$v.txt"
    plain "$work/$name.$v.txt"
    same_as_golden "$name.$v.txt" "$work/$name.$v.txt"
  done
  run "$work/$name.default.txt" "$dir" "$@" "$file"
  cmp -s "$work/$name.default.txt" "$work/$name.summary.txt" ||
    fail "$name: the default text differs from --summary's"
}

# --- usage errors -----------------------------------------------------------------------
# usage_error WHAT CMD...: exit 2 and exactly one line on stderr.
usage_error() {
  local what=$1
  shift
  local rc=0
  "$@" >"$work/usage.out" 2>"$work/usage.err" </dev/null || rc=$?
  ((rc == 2)) || fail "$what: exit $rc, expected 2"
  [[ $(wc -l <"$work/usage.err") == 1 ]] || fail "$what: stderr is not one line: $(cat "$work/usage.err")"
  echo "$prog: ok: $what: $(cat "$work/usage.err")"
}
obj=$fx/gfx906/loop_kernel.hsaco
usage_error "--asm --no-rows" "$A" --asm --no-rows "$obj"
usage_error "--lines --format json" "$A" --lines --format json "$obj"
usage_error "--regs q1" "$A" --asm --regs q1 "$obj"
usage_error "--regs v9-v2" "$A" --asm --regs v9-v2 "$obj"
usage_error "--color=sometimes" "$A" --color=sometimes "$obj"
usage_error "--source-map without =" "$A" --lines --source-map /a "$obj"
usage_error "--source-dir not a folder" "$A" --lines --source-dir "$obj" "$obj"
if [[ -n ${TREGC:-} && -x $TREGC ]]; then
  hash=0000000000000000000000000000000000000000000000000000000000000000
  usage_error "tregc --asm --no-rows" "$TREGC" --asm --no-rows fetch "$hash"
  usage_error "tregc --peak --format json" "$TREGC" --peak --format json fetch "$hash"
  usage_error "tregc list --lines" "$TREGC" --lines list
fi

# --- names that would drive a terminal ------------------------------------------------------
# A code object whose file name holds an escape sequence (ESC [31m) and a C1
# CSI (U+009B): every view prints it with '?' in their place, no escape.
esc_name=$work/$'red\033[31m\xc2\x9bname'.hsaco
cp "$fx/gfx906/loop_kernel.hsaco" "$esc_name"
(cd "$work" && "$A" --summary --lines --peak --asm "$esc_name") >"$work/esc.txt" ||
  fail "treg-analyze on a file name with an escape sequence failed"
if grep -q $'\033\|\xc2\x9b' "$work/esc.txt"; then
  fail "an escape sequence from a file name reached the output"
fi
grep -qF 'red?[31m?name.hsaco: gfx906' "$work/esc.txt" || fail "the escaped file name is not shown cleaned"
echo "$prog: ok: control characters in names print as '?'"

# --- the fixture --------------------------------------------------------------------------
# The fixture is compiled on this machine: its goldens hold for the compiler
# they were made with (fixture-toolchain.txt).  Another clang-22 build may
# schedule differently, so then its views are checked for their properties
# only, and the corpus goldens (fixed binaries) still in full.
toolchain=$(cat "$fx/.treg-fixtures" 2>/dev/null || true)
if [[ $update == 1 ]]; then
  printf '%s\n' "$toolchain" >"$golden/fixture-toolchain.txt"
fi
if [[ $toolchain == "$(cat "$golden/fixture-toolchain.txt" 2>/dev/null)" ]]; then
  views fixture_loop_kernel "$fx/gfx906" loop_kernel.hsaco "summary lines peak why asm"
else
  echo "$prog: NOTE: fixtures built by '$toolchain', goldens made with" \
    "'$(cat "$golden/fixture-toolchain.txt" 2>/dev/null)': fixture views checked without goldens"
  update=check-only views fixture_loop_kernel "$fx/gfx906" loop_kernel.hsaco "summary lines peak why asm"
fi
grep -q 'row\[u\] += p\[u\]' "$work/fixture_loop_kernel.lines.txt" ||
  fail "--lines does not show the fixture's source, read where it was compiled"

# Colour: only when asked for (stdout here is never a terminal), whatever NO_COLOR says then.
run "$work/color.txt" "$fx/gfx906" --lines --color=always loop_kernel.hsaco
grep -q $'\033\\[' "$work/color.txt" || fail "--color=always printed no ANSI escape"
NO_COLOR=1 run "$work/color2.txt" "$fx/gfx906" --color=always loop_kernel.hsaco
grep -q $'\033\\[' "$work/color2.txt" || fail "--color=always with NO_COLOR=1 printed no ANSI escape"
run "$work/auto.txt" "$fx/gfx906" --lines --color=auto loop_kernel.hsaco
plain "$work/auto.txt"
echo "$prog: ok: colour only with --color=always when piped"

# --- the corpus ----------------------------------------------------------------------------
corpus=$TREG_CORPUS
matmul=triton-cache/6A3MNTG6BPQKKGPLY7CZMRTY2FQTNPBE3EJYVJZCMG73AQNRFIEA/matmul_kernel.hsaco
attn=triton-cache/AHHMGN6WGGNWQVLKK2NBVBZ2C6C6NF2Z4JHMCX7R2CZX3RX73AOQ/attn_fwd.hsaco
softmax=gfx906-llc22/MD4F523L5PVMIKLU6IIZMAM7ASER47Q6J6JG6ABYSLCTRQZ3BBMA-906/softmax_kernel.hsaco
for f in "$matmul" "$attn" "$softmax" src/kernels_a.py; do
  [[ -f $corpus/$f ]] || skip "the fixture's views pass; no corpus file $corpus/$f, so the corpus views are not checked"
done

# The compiling machine's folder of kernels_a.py, as the report names it.
old=$(cd "$corpus" && "$A" --format json --no-rows "$matmul" | python3 -c '
import json, os, sys
files = json.load(sys.stdin)["reports"][0]["source_files"]
print(next(os.path.dirname(f) for f in files if f.endswith("/kernels_a.py")))')
[[ -n $old && ! -e $old/kernels_a.py ]] ||
  fail "the corpus source path '$old' is readable here: the fallback cannot be tested"

views corpus_matmul_gfx90a "$corpus" "$matmul" "summary lines peak why" --source-dir src
views corpus_attn_fwd_gfx90a "$corpus" "$attn" "summary lines peak why" --source-map "$old=$corpus/src"
views corpus_softmax_gfx906 "$corpus" "$softmax" "summary lines peak why asm" --source-dir src

# The same lines through --source-map as through --source-dir.
run "$work/map.txt" "$corpus" --lines --source-map "$old=$corpus/src" "$matmul"
cmp -s "$work/map.txt" "$work/corpus_matmul_gfx90a.lines.txt" ||
  fail "--source-map and --source-dir give different --lines"
grep -q 'acc = tl.dot(av, bv, acc)' "$work/map.txt" || fail "--source-map: no source text"
# A trailing slash on either side of the map makes no difference.
run "$work/map2.txt" "$corpus" --lines --source-map "$old/=$corpus/src/" "$matmul"
cmp -s "$work/map2.txt" "$work/map.txt" || fail "--source-map OLD/=NEW/ differs from OLD=NEW"

# No way to the source: file:line, no text, and a note on the file.
run "$work/nosrc.txt" "$corpus" --lines --peak "$matmul"
grep -q "^    $old/kernels_a.py  (source not found here)\$" "$work/nosrc.txt" ||
  fail "--lines without the source does not say so: $(grep -m1 kernels_a "$work/nosrc.txt")"
if grep -q 'tl\.' "$work/nosrc.txt"; then fail "source text printed without the source"; fi
grep -Eq '^ +[0-9]+ +[0-9]+ +[0-9]+  kernels_a\.py:75$' "$work/nosrc.txt" ||
  fail "--peak without the source does not end its lines at file:line"
narrow "$work/nosrc.txt"
echo "$prog: ok: unreadable sources fall back to file:line"

# Counts read as English: "1 wave", "1 loop", "1 block" (the goldens hold the last two).
mkdir -p "$work/one"
cp "$TREG_FIXTURES/gfx90a/loop_kernel.hsaco" "$work/one/"
printf '{"num_warps": 4, "shared": 65536}' >"$work/one/loop_kernel.json"
"$A" "$work/one/loop_kernel.hsaco" >"$work/one.txt" || fail "treg-analyze with a .json of 64 KiB LDS failed"
grep -q '^    at launch with 65536 B of LDS: 1 wave/SIMD, limited by lds$' "$work/one.txt" ||
  fail "one wave: $(grep 'at launch' "$work/one.txt")"
if grep -Eq '(^|[^0-9])1 (waves|loops|blocks|instructions|spill instructions)' "$work/one.txt" "$golden"/*.txt; then
  fail "a count of 1 with a plural: $(grep -Eh '(^|[^0-9])1 (waves|loops|blocks|instructions)' "$work/one.txt" "$golden"/*.txt | head -n1)"
fi
echo "$prog: ok: a count of one is singular"

# What a new user tripped over, on a corpus matmul (gfx90a: one VGPR+AGPR file).
run "$work/m.txt" "$corpus" --summary --lines --peak --asm "$matmul"
if grep -q "limited by target" "$work/m.txt" "$golden"/*.txt; then fail "'limited by target' is not words"; fi
if grep -q "free [0-9]* VGPRs for" "$work/m.txt"; then fail "gfx90a: 'free N VGPRs' without saying AGPRs count too"; fi
python3 - "$work/m.txt" "$corpus" "$A" "$matmul" <<'PY' || fail "the views of $matmul"
import json, re, subprocess, sys
text = open(sys.argv[1]).read().split("\n")
d = json.loads(subprocess.run([sys.argv[3], "--format", "json", sys.argv[4]], cwd=sys.argv[2],
                              check=True, capture_output=True, text=True).stdout)
k = d["reports"][0]["kernels"][0]
# --lines: a total that adds up to every line's, compiler-generated ones too
tot = [l for l in text if re.match(r"^ +total +\d", l)]
assert len(tot) == 1, tot
insns, spills, reloads = map(int, re.findall(r"\d+", tot[0])[:3])
ls = k["source_lines"]
assert (insns, spills, reloads) == (sum(l["instructions"] for l in ls), sum(l["spills"] for l in ls),
                                    sum(l["reloads"] for l in ls)), tot
m = re.search(r"\+(\d+) instructions with no line", tot[0])
assert insns + (int(m.group(1)) if m else 0) == k["instructions"], (tot[0], k["instructions"])
# --asm: every branch names the address it goes to, one of the listing's rows
rows = {r["address"] for r in k["rows"]}
asm = [l for l in text if "| " in l and re.match(r"^  [ PS] +[0-9a-f]+ +\d+ +\d+ +\d+ ", l)]
branches = [l for l in asm if re.search(r"\| s_c?branch", l)]
assert branches, "no branch in the listing"
for l in branches:
    m = re.search(r"s_c?branch\w* \+0x([0-9a-f]+)$", l)
    assert m and int(m.group(1), 16) in rows, l
# nothing cut: no line past 100 columns, no "..." in an instruction, every row's text whole
assert all(len(l) <= 100 for l in text), max(text, key=len)
assert not any(l.endswith("...") for l in asm), [l for l in asm if l.endswith("...")][:1]
joined = " ".join(l.strip() for l in text)
for r in k["rows"]:
    if not r["text"].startswith(("s_branch", "s_cbranch")):
        assert r["text"].split(", ")[-1] in joined, r["text"]
# the strip: no register live from the first row to the last
head = next(l for l in text if l.startswith("    strip: "))
always = [x for x in k["live_ranges"] if re.fullmatch(r"v\d+", x["reg"]) and len(x["runs"]) == 1
          and x["runs"][0][0] == 0 and x["runs"][0][1] >= len(k["rows"])]
if always:
    assert f"({len(always)} live throughout left out)" in head, head
vranges = [x for x in k["live_ranges"] if re.fullmatch(r"v\d+", x["reg"])]
if len(vranges) - len(always) > 32:
    assert ", those most often born" in head, head
    # the digits rows name the strip's registers: each has at least as many
    # live ranges as any VGPR left out
    at = text.index(head)
    cols = [l[l.index("|") + 1:l.rindex("|")] for l in text[at + 1:at + 4] if "|" in l]
    regs = [int("".join(c[j] for c in cols)) for j in range(len(cols[0]))]
    runs = {int(x["reg"][1:]): len(x["runs"]) for x in vranges}
    left = [runs[r] for r in runs if r not in regs]
    assert min(runs[r] for r in regs) >= max(left, default=0), (regs, sorted(left)[-3:])
print(f"{len(branches)} branches, {len(asm)} rows, {len(always)} VGPRs live throughout", file=sys.stderr)
PY
echo "$prog: ok: words for the limits, --lines totals, --asm branch targets and uncut operands"

echo "$prog: PASS"

#!/usr/bin/env bash
# Inputs treg-analyze must refuse cleanly, in text and in JSON mode.
#
# For each bad input (a missing file, a folder with no .hsaco, an empty file, a
# text file, an x86-64 ELF, a truncated code object, one with no kernel symbols,
# an unknown target, undecodable code, and the inputs the fuzzer once crashed
# on) it asserts: the exit status is 1; stderr is exactly one line,
# "treg-analyze: <path>: <message>", whose message names the problem (a keyword
# per case); nothing else is printed in text mode; in JSON mode stdout is one
# valid JSON document with no report and that one error under "errors".
# Usage errors (a bad --format, a bad --kernel regex) exit 2 with one line on
# stderr and nothing on stdout; a --kernel that matches nothing is a per-file
# failure (exit 1).  A stripped code object whose .dynsym keeps the kernel is
# analyzed, and a good file next to a bad one is reported while the run
# exits 1.
#
# Bad inputs come from the fixtures ($TREG_FIXTURES/bad, see its README) or are
# derived here from $TREG_FIXTURES/gfx906/loop_kernel.hsaco into a temporary
# folder.  Environment (set by CTest, see tests/CMakeLists.txt): TREG_ANALYZE,
# TREG_FIXTURES; run it by hand on an ASan build too, e.g.
#   ASAN_OPTIONS=detect_leaks=1 TREG_ANALYZE=build-cli-asan/tools/treg-analyze \
#     TREG_FIXTURES=/tmp/fx bash tests/cli/test_bad_input.sh
# Sanitizer reports go to stderr, so the one-line checks catch them.
set -euo pipefail

prog=test_bad_input
# shellcheck source=tests/cli/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

require_analyzer
command -v python3 >/dev/null 2>&1 || skip "python3 is needed to read treg-analyze's JSON"
fx=${TREG_FIXTURES:-}
[[ -n $fx && -d $fx/bad && -f $fx/gfx906/loop_kernel.hsaco ]] ||
  skip "no fixtures at ${fx:-(TREG_FIXTURES unset)}; run tests/fixtures/make-fixtures.sh DIR and set TREG_FIXTURES=DIR"
A=$TREG_ANALYZE
good=$fx/gfx906/loop_kernel.hsaco

work=$(mktemp -d "${TMPDIR:-/tmp}/treg-bad-input.XXXXXX")
trap 'rm -rf "$work"' EXIT

checks=0
ok() { checks=$((checks + 1)); }

# run OUT ARGS...: runs treg-analyze, stdout to OUT.out, stderr to OUT.err;
# sets $rc.
run() {
  local out=$1
  shift
  rc=0
  "$A" "$@" >"$out.out" 2>"$out.err" || rc=$?
}

# one_line ERRFILE PREFIX KEYWORD WHAT: ERRFILE holds exactly one line, which
# starts with PREFIX and contains KEYWORD.
one_line() {
  local errf=$1 prefix=$2 keyword=$3 what=$4 lines
  mapfile -t lines <"$errf"
  ((${#lines[@]} == 1)) ||
    fail "$what: stderr has ${#lines[@]} lines, not 1:"$'\n'"$(cat "$errf")"
  [[ ${lines[0]} == "$prefix"* ]] || fail "$what: stderr '${lines[0]}' does not start with '$prefix'"
  [[ ${lines[0]} == *"$keyword"* ]] || fail "$what: stderr '${lines[0]}' does not say '$keyword'"
  ok
}

# json_check OUTFILE WHAT NREPORTS [FILE KEYWORD]...: OUTFILE is one JSON
# document with NREPORTS reports and exactly the errors given, in order.
json_check() {
  local outf=$1 what=$2
  shift 2
  python3 - "$outf" "$@" <<'PY' || fail "$what: JSON output: see above"
import json, sys
path, nreports, pairs = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
text = open(path).read()
try:
    doc = json.loads(text)
except ValueError as e:
    sys.exit(f"not valid JSON ({e}): {text[:200]!r}")
if not isinstance(doc, dict) or not isinstance(doc.get("reports"), list) \
        or not isinstance(doc.get("errors"), list):
    sys.exit(f"no reports/errors arrays: {text[:200]!r}")
if len(doc["reports"]) != nreports:
    sys.exit(f"{len(doc['reports'])} reports, expected {nreports}")
want = list(zip(pairs[::2], pairs[1::2]))
errs = doc["errors"]
if len(errs) != len(want):
    sys.exit(f"{len(errs)} errors, expected {len(want)}: {errs}")
for e, (f, kw) in zip(errs, want):
    if e.get("file") != f:
        sys.exit(f"error names file {e.get('file')!r}, expected {f!r}")
    if kw not in (e.get("message") or ""):
        sys.exit(f"error message {e.get('message')!r} does not say {kw!r}")
PY
  ok
}

# bad_file WHAT KEYWORD PATH [OPTIONS...]: PATH is refused with exit 1 and one
# line naming it and KEYWORD, in text and in JSON mode.
bad_file() {
  local what=$1 keyword=$2 path=$3
  shift 3
  local o=$work/out
  run "$o" "$@" "$path"
  ((rc == 1)) || fail "$what (text): exit $rc, expected 1; stderr: $(cat "$o.err")"
  one_line "$o.err" "treg-analyze: $path: " "$keyword" "$what (text)"
  [[ ! -s $o.out ]] || fail "$what (text): printed on stdout: $(head -c 300 "$o.out")"
  run "$o" --format json "$@" "$path"
  ((rc == 1)) || fail "$what (json): exit $rc, expected 1; stderr: $(cat "$o.err")"
  one_line "$o.err" "treg-analyze: $path: " "$keyword" "$what (json)"
  json_check "$o.out" "$what (json)" 0 "$path" "$keyword"
  echo "$prog: ok: $what: $(cat "$o.err")"
}

# usage_error WHAT PREFIX KEYWORD ARGS...: exit 2, one line, empty stdout.
usage_error() {
  local what=$1 prefix=$2 keyword=$3
  shift 3
  local o=$work/out
  run "$o" "$@"
  ((rc == 2)) || fail "$what: exit $rc, expected 2; stderr: $(cat "$o.err")"
  one_line "$o.err" "$prefix" "$keyword" "$what"
  [[ ! -s $o.out ]] || fail "$what: printed on stdout: $(head -c 300 "$o.out")"
  echo "$prog: ok: $what: $(cat "$o.err")"
}


# --- files the tool cannot read ---------------------------------------------------
bad_file "missing file" "No such file" "$work/does-not-exist.hsaco"
mkdir -p "$work/no-hsaco"
printf 'notes\n' >"$work/no-hsaco/README.txt"
bad_file "folder with no .hsaco" "no .hsaco" "$work/no-hsaco"

# --- not AMDGPU code objects -------------------------------------------------------
bad_file "empty file" "empty file" "$fx/bad/empty.hsaco"
bad_file "text file" "not a code object, offload bundle or ELF" "$fx/bad/text.hsaco"
bad_file "x86-64 ELF" "not AMDGPU" "$fx/bad/x86_64-elf.hsaco"
bad_file "truncated code object" "truncated" "$fx/bad/truncated.hsaco"

# --- stripped: .dynsym still names the kernel and its descriptor -----------------
o=$work/out
run "$o" --format json "$fx/bad/stripped.hsaco"
((rc == 0)) || fail "stripped.hsaco: exit $rc; its .dynsym keeps the kernel: $(cat "$o.err")"
[[ ! -s $o.err ]] || fail "stripped.hsaco: stderr: $(cat "$o.err")"
python3 - "$o.out" <<'PY' || fail "stripped.hsaco: see above"
import json, sys
doc = json.load(open(sys.argv[1]))
names = [k["name"] for r in doc["reports"] for k in r["kernels"]]
if names != ["loop_kernel"] or doc["errors"]:
    sys.exit(f"kernels {names}, errors {doc['errors']}: expected loop_kernel from .dynsym")
PY
ok
echo "$prog: ok: stripped.hsaco (no .symtab) is analyzed from .dynsym"

# --- a DWARF bomb: .debug_str inflates to 1 GiB; analyzed without lines, never inflated ---
if [[ -f $fx/bad/dwarf-bomb.hsaco ]]; then
  python3 - "$A" "$fx/bad/dwarf-bomb.hsaco" <<'PY' || fail "dwarf-bomb.hsaco: see above"
import json, resource, subprocess, sys
r = subprocess.run([sys.argv[1], "--format", "json", "--no-rows", sys.argv[2]], capture_output=True, text=True)
peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss // 1024
if r.returncode != 0 or r.stderr:
    sys.exit(f"dwarf-bomb.hsaco: exit {r.returncode}, stderr {r.stderr!r}")
rep = json.loads(r.stdout)["reports"][0]
note = rep.get("lines_note", "")
if rep["source_files"] or "no source lines: the compressed debug sections would inflate past" not in note:
    sys.exit(f"dwarf-bomb.hsaco: source files {rep['source_files']}, lines_note {note!r}")
if [k["name"] for k in rep["kernels"]] != ["loop_kernel"]:
    sys.exit("dwarf-bomb.hsaco: loop_kernel not analyzed")
# inflating it costs 1 GiB (1032 MiB measured before the limit); ASan's own is ~100 MiB
if peak > 300:
    sys.exit(f"dwarf-bomb.hsaco: peak RSS {peak} MiB")
print(f"peak RSS {peak} MiB")
PY
  ok
  echo "$prog: ok: dwarf-bomb.hsaco: analyzed without source lines, the note says why, never inflated"
else
  echo "$prog: note: no $fx/bad/dwarf-bomb.hsaco (older fixtures); the DWARF bomb is not checked"
fi

# No kernel symbols at all: rename loop_kernel.kd (the descriptor symbol, in
# .strtab and .dynstr) so no symbol ends in .kd.
patch "$good" "$work/no-kernel.hsaco" 'replace(b"loop_kernel.kd\0", b"loop_kernel.kx\0")'
bad_file "no kernel symbols" "no kernel" "$work/no-kernel.hsaco"
# The same after llvm-strip: only .dynsym left, and it names no descriptor.
STRIP=${STRIP:-llvm-strip-22}
if command -v "$STRIP" >/dev/null 2>&1; then
  "$STRIP" --strip-all "$work/no-kernel.hsaco" -o "$work/no-kernel-stripped.hsaco"
  bad_file "stripped, no kernel symbols" "no kernel" "$work/no-kernel-stripped.hsaco"
else
  echo "$prog: note: $STRIP not found; the stripped no-kernel case is not checked"
fi

# --- an unknown target: EF_AMDGPU_MACH 0x7e (unassigned), note says gfx999 -------
patch "$good" "$work/unknown-target.hsaco" \
  'b[48] = 0x7e; replace(b"amdgcn-amd-amdhsa--gfx906", b"amdgcn-amd-amdhsa--gfx999")'
bad_file "unknown target" "unknown target gfx999" "$work/unknown-target.hsaco"
# mach 0 and a note target id that names no processor.
patch "$good" "$work/no-target.hsaco" \
  'b[48] = 0; replace(b"amdgcn-amd-amdhsa--gfx906", b"amdgcn-amd-amdhsa--xxx906")'
bad_file "mach 0, no processor in the note" "unknown target" "$work/no-target.hsaco"

# --- undecodable words: .text all 0xff ---------------------------------------------
bad_file "undecodable code" "undecodable" "$fx/bad/garbage-text.hsaco"
bad_file "undecodable code names the kernel" "kernel loop_kernel: undecodable" \
  "$fx/bad/garbage-text.hsaco"

# --- usage errors --------------------------------------------------------------------
usage_error "bad --format" "treg-analyze: --format" "text, json or html" --format xml "$good"
usage_error "bad --kernel regex" "treg-analyze: --kernel: " "bad regex" --kernel '(' "$good"
usage_error "html without rows" "treg-analyze: " "not with --no-rows" --format html --no-rows "$good"
usage_error "html with a text view" "treg-analyze: " "the HTML page has them all" \
  --format html --lines "$good"
usage_error "-o without html" "treg-analyze: " "-o/--output is for --format html" -o "$work/x.html" "$good"
# A page that cannot be written: one line naming the file, exit 1, nothing left behind.
run "$o" --format html -o "$work/no-such-dir/page.html" "$good"
((rc == 1)) || fail "unwritable -o: exit $rc, expected 1"
one_line "$o.err" "treg-analyze: $work/no-such-dir/page.html: " "cannot write" "unwritable -o"
ok
usage_error "bad --kernel regex, json, two files" "treg-analyze: --kernel: " "bad regex" \
  --format json --kernel 'a[' "$good" "$fx/bad/empty.hsaco"
run "$o"
((rc == 2)) || fail "no arguments: exit $rc, expected 2"
[[ ! -s $o.out ]] || fail "no arguments: printed on stdout"
ok

# --- a --kernel that matches nothing: a failure of that file -------------------------
bad_file "--kernel matching nothing" "no kernel matches 'no_such_kernel'" "$good" \
  --kernel no_such_kernel

# In a folder (a Triton cache holds many kernels) files that --kernel does not
# match are skipped; only a folder where nothing matches is a failure.
bad_file "--kernel matching nothing in a folder" "no kernel matches 'no_such_kernel' in" \
  "$fx/triton-like" --kernel no_such_kernel
run "$o" --format json --kernel '^loop_' "$fx/triton-like"
((rc == 0)) || fail "--kernel over a folder: exit $rc: $(cat "$o.err")"
[[ ! -s $o.err ]] || fail "--kernel over a folder: stderr $(cat "$o.err")"
json_check "$o.out" "--kernel over a folder" 3
echo "$prog: ok: --kernel over a folder: non-matching files skipped"

# --- a malformed sibling <kernel>.json: the error names the .json -------------------
mkdir -p "$work/badjson"
cp "$good" "$work/badjson/loop_kernel.hsaco"
printf '{"name": "loop_kernel", \n' >"$work/badjson/loop_kernel.json"
run "$o" "$work/badjson/loop_kernel.hsaco"
((rc == 1)) || fail "malformed .json: exit $rc, expected 1"
one_line "$o.err" "treg-analyze: $work/badjson/loop_kernel.json: " "not a JSON object" "malformed .json"
echo "$prog: ok: malformed .json: $(cat "$o.err")"

# --- an encoding that crashes LLVM 22's disassembler --------------------------------
# A gfx942 MFMA with a literal src2 (d3bf8000 03ff2d32) segfaults LLVM itself
# (llvm-objdump-22 too). The analysis runs in a child process: one line, exit 1.
mfma=$fx/gfx942/mfma_kernel.hsaco
if [[ -f $mfma ]] && command -v llvm-objdump-22 >/dev/null 2>&1; then
  at=$(first_insn_addr "$mfma" gfx942 v_mfma)
  [[ -n $at ]] || fail "no v_mfma in $mfma"
  crash=$work/llvm-crash.hsaco
  patch "$mfma" "$crash" "$(text_write "$at" "(0xd3bf8000, 0x03ff2d32)")"
  # Under ASan its SEGV handler would report LLVM's crash itself: let the child die.
  # An older LLVM (scripts/test-llvm.sh) refuses the word instead of crashing.
  expected="the analysis crashed"
  ((${TREG_LLVM_MAJOR:-22} >= 22)) || expected="undecodable instruction word 0xd3bf8000"
  if ((${TREG_LLVM_MAJOR:-22} < 17)); then
    # LLVM 16 has no gfx942: decoded as gfx940, the word is stepped over and
    # the report is a lower bound, not an error.
    "$TREG_ANALYZE" --format json --no-rows "$crash" >"$work/crash.json" 2>/dev/null ||
      fail "the LLVM-crash word on LLVM $TREG_LLVM_MAJOR: treg-analyze failed"
    python3 -c 'import json, sys
r = json.load(open(sys.argv[1]))["reports"][0]
assert r["decoded_as"] == "gfx940", r["decoded_as"]
assert any(k["undecodable_words"] >= 1 and k["lower_bound"] for k in r["kernels"]), "no lower bound"' \
      "$work/crash.json" || fail "the LLVM-crash word on LLVM $TREG_LLVM_MAJOR: not a lower bound"
    echo "$prog: ok: an encoding that crashes LLVM 22: on LLVM $TREG_LLVM_MAJOR (gfx942 as gfx940) a lower bound"
  else
    ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}handle_segv=0 \
      bad_file "an encoding that crashes LLVM" "$expected" "$crash"
  fi
else
  echo "$prog: note: no gfx942 MFMA fixture or llvm-objdump-22; LLVM-crash case skipped"
fi

# --- one good and one bad file ---------------------------------------------------------
run "$o" "$good" "$fx/bad/text.hsaco"
((rc == 1)) || fail "good + bad (text): exit $rc, expected 1"
one_line "$o.err" "treg-analyze: $fx/bad/text.hsaco: " "not a code object" "good + bad (text)"
head -n1 "$o.out" | grep -qxF "$good: gfx906" ||
  fail "good + bad (text): no report on $good: $(head -c 300 "$o.out")"
grep -qF "kernel loop_kernel:" "$o.out" || fail "good + bad (text): no kernel summary"
run "$o" --format json "$fx/bad/text.hsaco" "$good"
((rc == 1)) || fail "good + bad (json): exit $rc, expected 1"
one_line "$o.err" "treg-analyze: $fx/bad/text.hsaco: " "not a code object" "good + bad (json)"
json_check "$o.out" "good + bad (json)" 1 "$fx/bad/text.hsaco" "not a code object"
python3 - "$o.out" "$good" <<'PY' || fail "good + bad (json): see above"
import json, sys
doc = json.load(open(sys.argv[1]))
r = doc["reports"][0]
if r["file"] != sys.argv[2] or [k["name"] for k in r["kernels"]] != ["loop_kernel"]:
    sys.exit(f"report on {r['file']} with {[k['name'] for k in r['kernels']]}")
PY
ok
echo "$prog: ok: a good and a bad file: the report, one error line, exit 1"

# --- inputs fuzz_analyze crashed on (tests/fuzz/fuzz_analyze.c), rebuilt here -------
# 1. A kernel whose last 4 bytes begin an instruction with a 32-bit literal
#    (v_mov_b32_e32 v0, <literal>: 0x7e0002ff), the literal cut off by the end
#    of the code.  LLVM 22's disassembler segfaults on it (llvm::Twine::print);
#    analyzer/decode/disasm.c now hands it a zero-padded tail and refuses the
#    instruction that runs past the end.  The fuzzer's input was a corpus
#    gfx942 attn_fwd whose symbol size ended inside such an instruction; here
#    loop_kernel's closing s_endpgm is overwritten instead.
cut_literal() { # IN OUT: loop_kernel's last word (s_endpgm) -> 0x7e0002ff
  python3 - "$1" "$2" <<'PY'
import struct, sys
b = bytearray(open(sys.argv[1], "rb").read())
shoff, = struct.unpack_from("<Q", b, 40)
shnum, = struct.unpack_from("<H", b, 60)
secs = [struct.unpack_from("<IIQQQQIIQQ", b, shoff + 64 * i) for i in range(shnum)]
for sym in (s for s in secs if s[1] == 2):  # SHT_SYMTAB
    strtab = secs[sym[6]]
    for off in range(sym[4], sym[4] + sym[5], 24):
        st_name, st_info, _, st_shndx, st_value, st_size = struct.unpack_from("<IBBHQQ", b, off)
        name = b[strtab[4] + st_name:b.index(b"\0", strtab[4] + st_name)]
        if name == b"loop_kernel" and st_info & 0xf == 2:  # STT_FUNC
            sec = secs[st_shndx]  # sh_addr, sh_offset at 3, 4
            end = st_value - sec[3] + sec[4] + st_size
            word, = struct.unpack_from("<I", b, end - 4)
            assert word == 0xbf810000, f"last word 0x{word:08x} is not s_endpgm"
            struct.pack_into("<I", b, end - 4, 0x7e0002ff)
            open(sys.argv[2], "wb").write(b)
            sys.exit(0)
sys.exit("no loop_kernel function symbol")
PY
}
for arch in gfx906 gfx942; do
  if [[ -f $fx/$arch/loop_kernel.hsaco ]]; then
    cut_literal "$fx/$arch/loop_kernel.hsaco" "$work/cut-literal-$arch.hsaco"
    bad_file "literal cut off by the end of the code ($arch; was a SEGV in LLVM)" \
      "runs past the end of the code" "$work/cut-literal-$arch.hsaco"
  fi
done

echo "$prog: PASS ($checks checks)"

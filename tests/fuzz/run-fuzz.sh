#!/usr/bin/env bash
# Builds the libFuzzer targets in BUILD_DIR and runs each for SECONDS
# (default 60), one after the other:
#   fuzz_codeobj  the code object and line-table loaders (stage 1)
#   fuzz_analyze  the whole pipeline, treg_analyze on the input bytes (a code object,
#                 or assembly text when they are not ELF; seeds: the .hsaco seeds and
#                 tests/cli/data/hygon)
#   fuzz_asm      the assembly text front end (seeds: every .amdgcn and .s of the
#                 corpus and the fixtures, and tests/cli/data)
#   fuzz_asm_macro  the assembler's macro layer, alone and through the text front end
#                 (seeds: tests/fuzz/seeds/asm_macro and tests/cli/data's macro kernels)
#   fuzz_ttgir    Triton's TTGIR reader (seeds: every .ttgir of tests/data and the corpus)
#   fuzz_triton_json  Triton's .json reader (seeds: every .json of tests/data's and the
#                 corpus's cache entries: 3.6.0's, newer Triton's, Hygon's)
#   fuzz_pcsamples  the PC-sample reader: rocprofv3's JSON and code.json (seeds:
#                 tests/data/rocprof, and small documents written here)
#   fuzz_rocpd    the rocpd reader: SQLite databases (seeds: rocpd layouts written
#                 here with python3's sqlite3)
#   fuzz_pcs_wire a PcSampleSet as tregd takes it (POST /v1/samples, its store)
#                 (seeds: sets written here)
#   fuzz_gate     tregd's token gate: request heads parsed and rewritten before
#                 evhttp (seeds: a few heads written here)
#   fuzz_container  the container reader and the bundled-listing reader (seeds:
#                 a clang-22 -S listing and the HIP fixtures' executables,
#                 libraries and bundles, small ones, and their hostile variants)
#   fuzz_web      tregd's browser pages: cookies, the login form's next, report
#                 names (seeds: a few written here)
#   fuzz_render   a server's answer as tregc takes it: unpack a Report, draw
#                 every text view, the HTML page and the JSON (seeds: the
#                 .hsaco seeds analyzed and packed by report_seeds)
# Seeds: every .hsaco of the corpus ($TREG_CORPUS, else tests/data) and of the fixtures
# ($TREG_FIXTURES, else BUILD_DIR/fixtures built by tests/fixtures/make-fixtures.sh
# when its tools are there).  New inputs collect in BUILD_DIR/fuzz-corpus/TARGET
# (kept between runs); crashes land in BUILD_DIR/fuzz-artifacts/TARGET.  Needs
# clang-22 and its fuzzer runtime (Debian: libclang-rt-22-dev).
#   tests/fuzz/run-fuzz.sh build-fuzz 120                 # both targets
#   FUZZ_TARGETS=fuzz_analyze tests/fuzz/run-fuzz.sh build-fuzz 300
# Exits non-zero as soon as a target finds a crash, leak or timeout.  FUZZ_ARGS
# adds libFuzzer options, e.g. FUZZ_ARGS='-fork=1 -ignore_crashes=1' to keep
# going past a known crash (LLVM 22's AMDGPU disassembler segfaults on some
# invalid operand encodings: see analyzer/decode/disasm.c).
set -euo pipefail

if [[ $# -lt 1 ]]; then
  echo "usage: $0 BUILD_DIR [SECONDS]" >&2
  exit 2
fi
build=$1
seconds=${2:-60}
src=$(cd "$(dirname "$0")/../.." && pwd)
corpus=${TREG_CORPUS:-$src/tests/data}
cc=${CC:-clang-22}
read -r -a targets <<<"${FUZZ_TARGETS:-fuzz_codeobj fuzz_analyze fuzz_asm fuzz_asm_macro fuzz_ttgir fuzz_triton_json fuzz_pcsamples fuzz_rocpd fuzz_pcs_wire fuzz_container fuzz_render fuzz_gate fuzz_web}"
read -r -a extra <<<"${FUZZ_ARGS:-}"

cmake -S "$src" -B "$build" -DCMAKE_C_COMPILER="$cc" -DTREG_FUZZ=ON \
  -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build "$build" --target "${targets[@]}" report_seeds

seeds=$build/fuzz-seeds
mkdir -p "$seeds"
add_seeds() { # DIR: copies every .hsaco below it, named by its path's hash
  find "$1" -name '*.hsaco' -print0 | while IFS= read -r -d '' f; do
    cp -f "$f" "$seeds/$(echo "$f" | md5sum | cut -c1-16).hsaco"
  done
}
if [[ -d $corpus ]]; then
  add_seeds "$corpus"
else
  echo "note: no corpus at $corpus" >&2
fi
fixtures=${TREG_FIXTURES:-$build/fixtures}
if [[ ! -d $fixtures ]]; then
  "$src/tests/fixtures/make-fixtures.sh" "$fixtures" >&2 ||
    echo "note: could not build the fixtures; fuzzing without them" >&2
fi
if [[ -d $fixtures ]]; then
  add_seeds "$fixtures"
fi
if [[ -z $(find "$seeds" -name '*.hsaco' -print -quit) ]]; then
  echo "note: no seeds; fuzzing from an empty seed set" >&2
fi

# The whole pipeline on text too: the Hygon texts (MMAC, MLS, WASP roles).
cp -f "$src"/tests/cli/data/hygon/*.s "$seeds/" 2>/dev/null || true

# Assembly seeds: the smallest texts (the largest run to megabytes).
asm_seeds=$build/fuzz-seeds-asm
mkdir -p "$asm_seeds"
find "$corpus" "$fixtures" "$src/tests/cli/data" \( -name '*.amdgcn' -o -name '*.s' \) -size -200k \
  -print0 2>/dev/null | while IFS= read -r -d '' f; do
  cp -f "$f" "$asm_seeds/$(echo "$f" | md5sum | cut -c1-16).s"
done

# Macro seeds: short texts, one per feature and bound (tests/fuzz/seeds/asm_macro),
# and the kernels written with macros in tests/cli/data.
macro_seeds=$build/fuzz-seeds-asm-macro
mkdir -p "$macro_seeds"
cp -f "$src"/tests/fuzz/seeds/asm_macro/*.s "$macro_seeds/"
find "$src/tests/cli/data" -name '*macros*.s' -exec cp -f {} "$macro_seeds/" \;

# TTGIR seeds: the repository's real ones and the corpus's.
ttgir_seeds=$build/fuzz-seeds-ttgir
mkdir -p "$ttgir_seeds"
find "$src/tests/data" "$corpus" -name '*.ttgir' -size -200k -print0 2>/dev/null |
  while IFS= read -r -d '' f; do
    cp -f "$f" "$ttgir_seeds/$(echo "$f" | md5sum | cut -c1-16).ttgir"
  done

# Triton .json seeds: every cache entry's, the newer Triton's among them.
json_seeds=$build/fuzz-seeds-triton-json
mkdir -p "$json_seeds"
find "$src/tests/data" "$corpus" -name '*.json' ! -name '__grp__*' -size -64k -print0 2>/dev/null |
  while IFS= read -r -d '' f; do
    cp -f "$f" "$json_seeds/$(echo "$f" | md5sum | cut -c1-16).json"
  done

# PC-sample seeds: the real rocprofv3 and code.json files, and a host-trap
# document and a string-header code.json written here.
pcs_seeds=$build/fuzz-seeds-pcsamples
mkdir -p "$pcs_seeds"
cp -f "$src"/tests/data/rocprof/*.json "$pcs_seeds/"
printf '{"rocprofiler-sdk-tool":[{"strings":{"pc_sample_instructions":["s_nop 0"]},"code_objects":[{"code_object_id":1,"uri":"file:///a#offset=0","load_base":4096,"load_size":64,"load_delta":4096}],"buffer_records":{"pc_sample_host_trap":[{"record":{"pc":{"code_object_id":1,"code_object_offset":16}},"inst_index":0}]}}]}' >"$pcs_seeds/host-trap.json"
printf '{"code":[["; k",0,0,"k",1,0,0,0,0,0],["s_nop 0",0,1,"a.py:1",1,16,5,9,3,1]],"version":"3.0.0","header":"ISA, _, LineNumber, Source, Codeobj, Vaddr, Hit, Latency, Stall, Idle"}' >"$pcs_seeds/att-code.json"

# rocpd seeds: a stochastic and a host-trap database in the drafts' layout
# (tests/cli/test_samples.sh writes the same), small pages.
rocpd_seeds=$build/fuzz-seeds-rocpd
mkdir -p "$rocpd_seeds"
python3 - "$rocpd_seeds" <<'PY'
import os, sqlite3, sys
for kind in ("stochastic", "host_trap"):
    p = os.path.join(sys.argv[1], kind + ".db")
    if os.path.exists(p):
        os.unlink(p)
    db = sqlite3.connect(p)
    db.execute("PRAGMA page_size = 512")
    db.executescript("""
CREATE TABLE rocpd_info_code_object_0b2c (id INTEGER PRIMARY KEY, nid INTEGER, pid INTEGER, uri TEXT,
  load_base BIGINT, load_size BIGINT, load_delta BIGINT);
CREATE TABLE rocpd_gpu_pc_sample_0b2c (nid INTEGER, pid INTEGER, code_object_id INTEGER,
  code_object_offset BIGINT, wave_issued INTEGER, inst_type INTEGER, stall_reason INTEGER);
CREATE TABLE rocpd_disassembly_data_0b2c (nid INTEGER, pid INTEGER, code_object_id INTEGER,
  code_object_offset BIGINT, instruction TEXT, comment TEXT);
INSERT INTO rocpd_info_code_object_0b2c VALUES (2, 1, 7, 'file:///a.hsaco', 4096, 8192, 4096);
""")
    st = kind == "stochastic"
    for off, issued, why in ((0x100, 1, 0), (0x104, 0, 3), (0x104, 0, 5), (0x108, 0, 2)):
        db.execute("INSERT INTO rocpd_gpu_pc_sample_0b2c VALUES (1, 7, 2, ?, ?, ?, ?)",
                   (off, issued if st else None, 1 if st else None, why if st else None))
        db.execute("INSERT INTO rocpd_disassembly_data_0b2c VALUES (1, 7, 2, ?, 's_nop 0', '')", (off,))
    db.commit()
PY

# PcSampleSet seeds: two small sets, protobuf written by hand (tests/cli/
# pbwire.py's varints): entries of code objects 2 and 0, texts, reasons.
wire_seeds=$build/fuzz-seeds-pcs-wire
mkdir -p "$wire_seeds"
python3 - "$wire_seeds" "$src/tests/cli" <<'PY'
import os, sys
sys.path.insert(0, sys.argv[2])
from pbwire import varint, field_bytes
def packed(num, vals):
    return field_bytes(num, b"".join(varint(v) for v in vals))
def setof(cos, offs, samples, texts, reasons):
    b = packed(1, cos) + packed(2, offs) + packed(3, samples) + packed(4, [0] * len(cos)) + packed(5, samples)
    if reasons:
        b += packed(6, reasons)
    b += field_bytes(7, b"".join(t.encode() + b"\0" for t in texts))
    b += packed(10, [2]) + packed(11, [4096]) + packed(12, [8192]) + packed(13, [4096]) + field_bytes(14, b"file:///a\0")
    return b
open(os.path.join(sys.argv[1], "two.pb"), "wb").write(
    setof([2, 2, 0], [256, 260, 9], [3, 1, 2], ["s_nop 0", "v_mov_b32 v0, v1", ""], [0, 0, 0, 3] + [0] * 26))
open(os.path.join(sys.argv[1], "one.pb"), "wb").write(setof([2], [0], [1], [""], []))
PY

# Container seeds: the HIP fixtures under 200 KB (the bombs excluded: they
# state more than the fuzz target's limits and only say so).
hip_fixtures=${TREG_HIP_FIXTURES:-$build/fixtures-hip}
if [[ ! -d $hip_fixtures ]]; then
  "$src/tests/fixtures/make-hip-fixtures.sh" "$hip_fixtures" >&2 ||
    echo "note: could not build the HIP fixtures; fuzz_container without them" >&2
fi
container_seeds=$build/fuzz-seeds-container
mkdir -p "$container_seeds"
if [[ -d $hip_fixtures ]]; then
  find "$hip_fixtures" -maxdepth 2 -type f -size -200k ! -name '*bomb*' ! -name '*.tsv' -print0 |
    while IFS= read -r -d '' f; do
      cp -f "$f" "$container_seeds/$(echo "$f" | md5sum | cut -c1-16)"
    done
fi

# A bundled assembly listing (clang-22 -S of a HIP file for two targets, a
# section each and the host's): the seed of the listing reader.
if command -v clang-22 >/dev/null; then
  PATH=/usr/lib/llvm-22/bin:$PATH clang-22 -x hip --offload-arch=gfx906 --offload-arch=gfx90a \
    -nogpulib -nogpuinc -I "$src/tests/fixtures/src" -S -o "$container_seeds/listing.s" \
    "$src/tests/fixtures/src/hip/reduce.hip" 2>/dev/null ||
    echo "note: clang-22 made no bundled listing; fuzz_container without one" >&2
fi

render_seeds=$build/fuzz-seeds-render
mkdir -p "$render_seeds"
if [[ " ${targets[*]} " == *" fuzz_render "* ]]; then
  find "$seeds" -name '*.hsaco' -print0 | xargs -0 -r "$build/tests/fuzz/report_seeds" "$render_seeds" ||
    echo "note: no report seeds for fuzz_render" >&2
fi

# Gate seeds: request heads as clients send them (two seed bytes first:
# the chunk sizes), with and without a token, with bodies, pipelined.
gate_seeds=$build/fuzz-seeds-gate
mkdir -p "$gate_seeds"
printf '\x07\x01POST /v1/analyze HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\n\r\n0123456789GET /v1/health HTTP/1.1\r\n\r\n' >"$gate_seeds/post-get"
printf '\x03\x02POST /v1/analyze HTTP/1.1\r\nAuthorization: Bearer fuzz-token\r\nContent-Length: 4\r\n\r\nabcd' >"$gate_seeds/trusted"
printf '\x11\x05POST / HTTP/1.1\nTransfer-Encoding: chunked\nExpect: 100-continue\n\n5\r\nhello\r\n0\r\n\r\n' >"$gate_seeds/chunked-lf"
printf '\x00\x00GET /v1/reports HTTP/1.1\r\nAuthorization: Bearer wrong\r\nContent-Length: 999999999999\r\nContent-Length: 1\r\n\r\nx' >"$gate_seeds/conflict"

# Web seeds: cookie, next, message, then names, a line each.
web_seeds=$build/fuzz-seeds-web
mkdir -p "$web_seeds"
printf 'a=1; treg_session=%s\n/r/abc?inputs=x\nsigned out\nmatmul\nvgpr\n%s\n%s\nk.hsaco\ngfx942\n' \
  "$(printf '%064d' 7)" "$(printf '%064d' 1)" "$(printf '%064d' 2)" >"$web_seeds/plain"
printf 'treg_session=<script>\n//evil.example\n<script>alert(1)</script>\n<b>\n"\n&amp;\n\x01\n</td>\n\n' >"$web_seeds/hostile"

for t in "${targets[@]}"; do
  mkdir -p "$build/fuzz-corpus/$t" "$build/fuzz-artifacts/$t"
  seed_dir=$seeds
  maxlen=131072 # seed code objects run up to ~42 KB; mutated inputs may grow past that
  if [[ $t == fuzz_render ]]; then
    seed_dir=$render_seeds
    maxlen=1048576 # packed reports with rows run up to ~370 KB
  elif [[ $t == fuzz_asm ]]; then
    seed_dir=$asm_seeds
    maxlen=262144
  elif [[ $t == fuzz_asm_macro ]]; then
    seed_dir=$macro_seeds
    maxlen=65536 # expansions may grow 16 times, at least to 1 MiB
  elif [[ $t == fuzz_ttgir ]]; then
    seed_dir=$ttgir_seeds
    maxlen=262144
  elif [[ $t == fuzz_triton_json ]]; then
    seed_dir=$json_seeds
    maxlen=65536
  elif [[ $t == fuzz_pcsamples ]]; then
    seed_dir=$pcs_seeds
    maxlen=524288 # the code.json seed is 269 KB
  elif [[ $t == fuzz_rocpd ]]; then
    seed_dir=$rocpd_seeds
    maxlen=16384 # the seeds are a few 512-byte pages
  elif [[ $t == fuzz_pcs_wire ]]; then
    seed_dir=$wire_seeds
    maxlen=65536
  elif [[ $t == fuzz_gate ]]; then
    seed_dir=$gate_seeds
    maxlen=262144 # past GATE_HEAD_MAX (80 KiB)
  elif [[ $t == fuzz_web ]]; then
    seed_dir=$web_seeds
    maxlen=16384
  elif [[ $t == fuzz_container ]]; then
    seed_dir=$container_seeds
    maxlen=262144 # the executables run to ~96 KB
  fi
  echo "== $t for ${seconds}s" >&2
  "$build/tests/fuzz/$t" -max_total_time="$seconds" -max_len="$maxlen" \
    -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
    -artifact_prefix="$build/fuzz-artifacts/$t/" "${extra[@]}" "$build/fuzz-corpus/$t" "$seed_dir"
done

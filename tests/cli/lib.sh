# Shared by the tests/cli/test_*.sh scripts (sourced, not run): reporting in
# CTest's terms, the treg-analyze under test, and byte patches of code
# objects.  The sourcing script sets prog first.
# shellcheck shell=bash
# shellcheck disable=SC2154 # prog is set by the sourcing script

# Where the sources and the corpus (tests/data unless CTest says otherwise) are.
TREG_SOURCE_ROOT=${TREG_SOURCE_ROOT:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}
TREG_CORPUS=${TREG_CORPUS:-$TREG_SOURCE_ROOT/tests/data}

# skip MESSAGE: CTest's skip (SKIP_RETURN_CODE 77), with the reason.
skip() {
  echo "$prog: SKIP: $*"
  exit 77
}

# fail MESSAGE: the test fails, naming why.
fail() {
  echo "$prog: FAIL: $*" >&2
  exit 1
}

# wait_for SECONDS COMMAND...: runs COMMAND every 0.05 s until it succeeds;
# status 1 if it did not within SECONDS.
wait_for() {
  local tries=$(($1 * 20))
  shift
  until "$@"; do
    ((--tries > 0)) || return 1
    sleep 0.05
  done
}

# wait_port FILE PID LOG: until the tregd PID has written its port to FILE
# (--port-file); fails, with LOG's tail, if it exits first or takes 10 s.
wait_port() {
  local tries=200
  until [[ -s $1 ]]; do
    kill -0 "$2" 2>/dev/null || fail "tregd exited at startup: $(tail -n3 "$3")"
    ((--tries > 0)) || fail "tregd wrote no port to $1 in 10 s: $(tail -n3 "$3")"
    sleep 0.05
  done
}

# self_signed DIR: a key and a self-signed certificate for 127.0.0.1 and
# localhost, DIR/key.pem and DIR/cert.pem, for a tregd of a test's own.
self_signed() {
  openssl req -x509 -newkey rsa:2048 -nodes -keyout "$1/key.pem" -out "$1/cert.pem" \
    -days 1 -subj /CN=localhost -addext subjectAltName=IP:127.0.0.1,DNS:localhost 2>/dev/null ||
    fail "openssl could not make a self-signed certificate"
}

# stop_server: SIGTERM to the tregd whose pid is in $pid, and wait for it.
stop_server() {
  if [[ -n ${pid:-} ]] && kill -0 "$pid" 2>/dev/null; then
    kill -TERM "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
  fi
  pid=
}

# require_tregd TOOL...: TREGD and TREGC (next to treg-analyze's build unless
# set) and the commands named; skips (77) without any of them.
require_tregd() {
  require_analyzer
  local build t
  build=$(cd "$(dirname "$TREG_ANALYZE")/.." && pwd)
  TREGD=${TREGD:-$build/server/tregd}
  TREGC=${TREGC:-$build/client/tregc}
  [[ -x $TREGD && -x $TREGC ]] || skip "tregd or tregc is not built (looked for $TREGD, $TREGC)"
  for t in "$@"; do
    command -v "$t" >/dev/null 2>&1 || skip "$t is not installed (scripts/install-deps.sh)"
  done
}

# start_tregd DIR [TREGD ARGS...]: a tregd of its own on 127.0.0.1 (a fresh CA
# and certificate from deploy/make-certs.sh, a random token, store DIR/store,
# log DIR/tregd.log; TREGD_NAMES: the certificate's names, default 127.0.0.1),
# in its own process group, killed by an EXIT trap; sets
# server_pid and port.  tregc_to ARGS... runs tregc against it, bounded;
# stop_tregd sends SIGTERM and waits.  Needs TREGD, TREGC and openssl.
start_tregd() {
  local dir=$1
  shift
  # shellcheck disable=SC2086 # TREGD_NAMES: one or more names
  "$TREG_SOURCE_ROOT/deploy/make-certs.sh" "$dir/certs" ${TREGD_NAMES:-127.0.0.1} >/dev/null || fail "deploy/make-certs.sh failed"
  tregd_dir=$dir
  tregd_token=$(head -c 24 /dev/urandom | od -An -tx1 | tr -d ' \n')
  printf 'test %s\n' "$("$TREGD" hash-token "$tregd_token" | grep -oE '[0-9a-f]{64}' | head -n1)" >"$dir/tokens"
  server_pid=""
  trap '[[ -z $server_pid ]] || kill -KILL -- "-$server_pid" 2>/dev/null || true' EXIT
  : >"$dir/tregd.log"
  launch_tregd "$@"
}
# launch_tregd [TREGD ARGS...]: start_tregd's tregd again (after stop_tregd),
# on the same certificate, tokens file and store; sets server_pid and port.
launch_tregd() {
  local dir=$tregd_dir
  rm -f "$dir/port"
  setsid "$TREGD" --listen 127.0.0.1:0 --port-file "$dir/port" --cert "$dir/certs/server.pem" \
    --key "$dir/certs/server.key" --store "$dir/store" --tokens-file "$dir/tokens" "$@" \
    2>>"$dir/tregd.log" &
  server_pid=$!
  wait_port "$dir/port" "$server_pid" "$dir/tregd.log"
  port=$(tr -dc '0-9' <"$dir/port")
}
# (TREGC_TOKEN: another team's token than start_tregd's)
tregc_to() {
  timeout 120 "$TREGC" --server "https://127.0.0.1:$port" --ca "$tregd_dir/certs/ca.pem" \
    --token "${TREGC_TOKEN:-$tregd_token}" "$@"
}
# pb ARGS...: tests/cli/pbwire.py, the hand-rolled treg.v1 messages
pb() { python3 "$TREG_SOURCE_ROOT/tests/cli/pbwire.py" "$@"; }
stop_tregd() {
  kill -TERM "$server_pid"
  wait "$server_pid" 2>/dev/null
  server_pid=""
}

# needs_newer_llvm ERRFILE: true, with a note, when a failure in ERRFILE is
# only the linked LLVM (TREG_LLVM_MAJOR, set by CTest) being older than the
# suite's reference, LLVM 22, and unable to decode the target or a word
# (scripts/test-llvm.sh builds against Debian's older ones).
TREG_REFERENCE_LLVM=22
needs_newer_llvm() {
  ((${TREG_LLVM_MAJOR:-$TREG_REFERENCE_LLVM} < TREG_REFERENCE_LLVM)) || return 1
  grep -Eq 'no substitute ISA is known|undecodable instruction word' "$1" || return 1
  echo "$prog: note: skipped, LLVM $TREG_LLVM_MAJOR cannot decode it: $(head -c 200 "$1")"
}

# require_analyzer: TREG_ANALYZE names an executable treg-analyze (CTest sets it).
require_analyzer() {
  [[ -n ${TREG_ANALYZE:-} ]] || fail "TREG_ANALYZE is not set (path of treg-analyze; CTest sets it)"
  [[ -x $TREG_ANALYZE ]] || fail "treg-analyze not found or not executable at $TREG_ANALYZE"
}

# patch IN OUT PYTHON: OUT is IN's bytes after the python3 statements, which
# edit the bytearray b; replace(old, new) swaps every occurrence of old for
# new (same length; old must occur).
patch() {
  python3 - "$1" "$2" "$3" <<'PY'
import sys
src, dst, code = sys.argv[1], sys.argv[2], sys.argv[3]
b = bytearray(open(src, "rb").read())
def replace(old, new):
    assert len(old) == len(new), (old, new)
    i = b.find(old)
    if i < 0:
        sys.exit(f"{src}: {old!r} not found")
    while i >= 0:
        b[i:i + len(old)] = new
        i = b.find(old, i + len(new))
exec(code)
open(dst, "wb").write(b)
PY
}

# first_insn_addr FILE MCPU ERE: the address (hex digits, as llvm-objdump
# prints them) of the first instruction whose line matches ERE.  awk reads
# to the end: exiting early would SIGPIPE objdump and fail under pipefail.
first_insn_addr() {
  "${OBJDUMP:-llvm-objdump-22}" -d --mcpu="$2" "$1" |
    awk -v re="$3" '$0 ~ re && !found { sub(/^.*\/\/ /, ""); sub(/:.*/, ""); print; found = 1 }'
}

# text_write ADDR WORDS: python statements for patch that write WORDS (a
# python tuple of 32-bit ints, little-endian) at virtual address 0xADDR of
# the code object's .text.
text_write() {
  cat <<PY
import struct
shoff, = struct.unpack_from('<Q', b, 40)
shentsize, shnum, shstrndx = struct.unpack_from('<HHH', b, 58)
def sh(i): return struct.unpack_from('<IIQQQQ', b, shoff + i * shentsize)
stroff = sh(shstrndx)[4]
for i in range(shnum):
    name, _, _, addr, off, size = sh(i)
    if b[stroff + name:stroff + name + 6] == b'.text\0':
        words = $2
        struct.pack_into('<%dI' % len(words), b, 0x$1 - addr + off, *words)
        break
else:
    sys.exit('no .text')
PY
}

# hygon_code_object TEXT OUT [MC LLD]: OUT is a code object of a Hygon
# compiler's .amdgcn TEXT whose instructions are all gfx906's (the fork's
# gfx936 test inputs): assembled by upstream llvm-mc as gfx906 (the
# Hygon-only descriptor directives dropped), then relabelled as DTK's object
# carries it: EF_AMDGPU_MACH 0 and the note's target id back to TEXT's.
hygon_code_object() {
  local text=$1 out=$2 mc=${3:-${MC:-llvm-mc-22}} lld=${4:-${LLD:-ld.lld-22}} gfx tmp
  gfx=$(grep -m1 -o 'amdgcn-amd-amdhsa--gfx[0-9a-z]*' "$text" | sed 's/.*--//')
  [[ ${#gfx} == 6 ]] || fail "$text: no six-letter gfx target in its .amdgcn_target"
  tmp=$(mktemp -d "${TMPDIR:-/tmp}/treg-hygon-co.XXXXXX")
  sed -e "s/$gfx/gfx906/g" -e '/\.amdhsa_matrix_excp/d' -e '/\.amdhsa_cancellation_excp/d' \
    -e '/\.amdhsa_load_store_out_of_order/d' "$text" >"$tmp/k.s"
  "$mc" -triple=amdgcn-amd-amdhsa -mcpu=gfx906 -mattr=-xnack -filetype=obj "$tmp/k.s" -o "$tmp/k.o" \
    2>"$tmp/mc.err" || fail "$mc could not assemble $text as gfx906: $(head -c 300 "$tmp/mc.err")"
  "$lld" -shared "$tmp/k.o" -o "$tmp/k.hsaco" || fail "$lld failed on $text"
  patch "$tmp/k.hsaco" "$out" "b[48] = 0; replace(b'amdgcn-amd-amdhsa--gfx906', b'amdgcn-amd-amdhsa--$gfx')"
  rm -rf "$tmp"
}

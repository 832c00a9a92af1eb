#!/usr/bin/env bash
# tregc without a tregd: what it must refuse or diagnose on its own, each as
# one line "tregc: ..." on stderr with the right exit status and nothing on
# stdout (text mode).
#   - usage errors exit 2: no command, an unknown command or option, a bad
#     --format / --timeout / --limit, upload without files, a fetch hash that
#     is not 64 hex digits, list-only options elsewhere, no server configured,
#     a non-https server, an unreadable --ca, a malformed client.conf (the
#     message names its line);
#   - a file that is not an AMDGPU code object (text, x86-64 ELF, empty) and a
#     folder without .hsaco are refused before any connection (the server
#     given is a closed port, so a connection attempt would say so instead);
#     in JSON mode stdout is one document with the errors under "errors";
#   - a closed loopback port: "cannot connect to 127.0.0.1:PORT: Connection
#     refused", exit 1, for upload, fetch, list and health;
#   - a self-signed TLS listener (openssl s_server, certificate made here):
#     without --ca "TLS: certificate verify failed for 127.0.0.1 (use --ca)";
#     with its certificate as --ca the handshake passes (its HTTP answer is not
#     tregd's), with --ca but a host name the certificate does not carry the
#     verification fails again;
#   - ldd: tregc links neither libLLVM nor libdw (libelf, for HIP executables, it may).
# Environment (CTest sets it, see tests/CMakeLists.txt): TREGC, and
# TREG_FIXTURES for the bad-input fixtures (cases needing them are skipped
# with a note when absent).  Needs openssl and python3 (skips otherwise).
set -euo pipefail

prog=test_tregc_offline
# shellcheck source=tests/cli/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

[[ -n ${TREGC:-} ]] || fail "TREGC is not set (path of tregc; CTest sets it)"
[[ -x $TREGC ]] || fail "tregc not found or not executable at $TREGC"
command -v openssl >/dev/null 2>&1 || skip "openssl is needed for the TLS listener"
command -v python3 >/dev/null 2>&1 || skip "python3 is needed to pick free ports and read JSON"
fx=${TREG_FIXTURES:-}

work=$(mktemp -d "${TMPDIR:-/tmp}/tregc-offline.XXXXXX")
server_pid=
cleanup() {
  if [[ -n $server_pid ]]; then
    kill "$server_pid" 2>/dev/null || true
    wait "$server_pid" 2>/dev/null || true
  fi
  rm -rf "$work"
}
trap cleanup EXIT

# No settings from the developer's environment or files.
unset TREG_SERVER TREG_TOKEN TREG_CA TREG_CONFIG XDG_CONFIG_HOME
export HOME=$work/home
mkdir -p "$HOME"

checks=0
# free_port: a loopback TCP port nobody listens on (bound, then released).
free_port() {
  python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}
closed=$(free_port)
S=(--server "https://127.0.0.1:$closed")

# run OUT ARGS...: tregc under a time limit; stdout OUT.out, stderr OUT.err, $rc.
run() {
  local out=$1
  shift
  rc=0
  timeout 30 "$TREGC" "$@" >"$out.out" 2>"$out.err" || rc=$?
}

# expect WHAT STATUS PREFIX KEYWORD ARGS...: exit STATUS, stderr exactly one
# line starting with PREFIX and containing KEYWORD, stdout empty.
expect() {
  local what=$1 status=$2 prefix=$3 keyword=$4
  shift 4
  local o=$work/o lines
  run "$o" "$@"
  ((rc == status)) || fail "$what: exit $rc, expected $status; stderr: $(cat "$o.err")"
  mapfile -t lines <"$o.err"
  ((${#lines[@]} == 1)) || fail "$what: stderr has ${#lines[@]} lines, not 1:"$'\n'"$(cat "$o.err")"
  [[ ${lines[0]} == "$prefix"* ]] || fail "$what: stderr '${lines[0]}' does not start with '$prefix'"
  [[ ${lines[0]} == *"$keyword"* ]] || fail "$what: stderr '${lines[0]}' does not say '$keyword'"
  [[ ! -s $o.out ]] || fail "$what: printed on stdout: $(head -c 300 "$o.out")"
  checks=$((checks + 1))
  echo "$prog: ok: $what: ${lines[0]}"
}

# --- usage: exit 2 -------------------------------------------------------------------
run "$work/o"
((rc == 2)) || fail "no arguments: exit $rc, expected 2"
[[ ! -s $work/o.out ]] || fail "no arguments: printed on stdout"
grep -q '^usage: tregc' "$work/o.err" || fail "no arguments: no usage on stderr"
checks=$((checks + 1))
run "$work/o" --help
((rc == 0)) || fail "--help: exit $rc, expected 0"
grep -q '^usage: tregc' "$work/o.out" || fail "--help: no usage on stdout"
checks=$((checks + 1))

expect "unknown command" 2 "tregc: unknown command 'frobnicate'" "upload, fetch, diff, watch, list or health" \
  "${S[@]}" frobnicate
expect "unknown option" 2 "tregc: --bogus: " "unknown option" "${S[@]}" --bogus health
expect "bad --format" 2 "tregc: --format" "text, json or html" "${S[@]}" --format xml health
expect "html without rows" 2 "tregc: upload: " "not with --no-rows" "${S[@]}" --format html --no-rows upload /dev/null
expect "-o without html" 2 "tregc: upload: " "-o/--output is for --format html" "${S[@]}" -o x.html upload /dev/null
expect "bad --timeout" 2 "tregc: --timeout: " "whole number" "${S[@]}" --timeout 0 health
expect "bad --limit" 2 "tregc: --limit: " "whole number" "${S[@]}" list --limit -3
expect "upload without files" 2 "tregc: upload: " "at least one FILE" "${S[@]}" upload
expect "fetch of a short hash" 2 "tregc: fetch: 'abc123'" "64 hex digits" "${S[@]}" fetch abc123
expect "fetch without a hash" 2 "tregc: fetch: " "exactly one HASH" "${S[@]}" fetch
expect "list with an argument" 2 "tregc: list: " "takes no arguments" "${S[@]}" list extra
expect "--kernel outside list" 2 "tregc: upload: " "are for list" "${S[@]}" upload --kernel x /dev/null
expect "no server anywhere" 2 "tregc: no server" "--server https://HOST:PORT" health
expect "http:// server" 2 "tregc: --server: " "not an https:// URL" --server "http://127.0.0.1:$closed" health
expect "server URL with a path" 2 "tregc: --server: " "without a path" \
  --server "https://127.0.0.1:$closed/api" health
expect "missing --ca" 2 "tregc: --ca $work/absent.pem: " "No such file" \
  "${S[@]}" --ca "$work/absent.pem" health

# A malformed client.conf, found the default way ($HOME/.config/treg), and
# through TREG_CONFIG; the message names the file and the line.
mkdir -p "$HOME/.config/treg"
printf '# team server\nserver = https://127.0.0.1:%s\ntokn = abc\n' "$closed" >"$HOME/.config/treg/client.conf"
expect "malformed client.conf" 2 "tregc: $HOME/.config/treg/client.conf:3: " "unknown key 'tokn'" health
printf 'server https://x:1\n' >"$work/other.conf"
TREG_CONFIG=$work/other.conf expect "malformed TREG_CONFIG file" 2 "tregc: $work/other.conf:1: " \
  "expected 'key = value'" health
TREG_CONFIG=$work/absent.conf expect "missing TREG_CONFIG file" 2 "tregc: $work/absent.conf: " \
  "No such file" health
rm "$HOME/.config/treg/client.conf"

# --- bad local inputs: refused before connecting ----------------------------------------
printf 'not a code object\n' >"$work/text.hsaco"
: >"$work/empty.hsaco"
mkdir -p "$work/no-hsaco"
printf 'notes\n' >"$work/no-hsaco/README.txt"
expect "text file" 1 "tregc: $work/text.hsaco: " "not a code object, offload bundle or ELF with GPU code" \
  "${S[@]}" upload "$work/text.hsaco"
expect "empty file" 1 "tregc: $work/empty.hsaco: " "empty file" \
  "${S[@]}" upload "$work/empty.hsaco"
expect "missing file" 1 "tregc: $work/absent.hsaco: " "No such file" \
  "${S[@]}" upload "$work/absent.hsaco"
expect "folder without .hsaco" 1 "tregc: $work/no-hsaco: " "no .hsaco files" \
  "${S[@]}" upload "$work/no-hsaco"
if [[ -n $fx && -f $fx/bad/x86_64-elf.hsaco ]]; then
  expect "x86-64 ELF" 1 "tregc: $fx/bad/x86_64-elf.hsaco: " "with no GPU code: not AMDGPU" \
    "${S[@]}" upload "$fx/bad/x86_64-elf.hsaco"
else
  echo "$prog: note: no fixtures at ${fx:-(TREG_FIXTURES unset)}; the x86-64 ELF case is not checked"
fi

# JSON mode: one document, no report, the errors in argument order.
run "$work/o" "${S[@]}" --format json upload "$work/text.hsaco" "$work/no-hsaco"
((rc == 1)) || fail "bad inputs (json): exit $rc, expected 1"
(($(wc -l <"$work/o.err") == 2)) || fail "bad inputs (json): stderr is not two lines: $(cat "$work/o.err")"
python3 - "$work/o.out" "$work/text.hsaco" "$work/no-hsaco" <<'PY' || fail "bad inputs (json): see above"
import json, sys
doc = json.load(open(sys.argv[1]))
if doc.get("reports") != []:
    sys.exit(f"reports {doc.get('reports')!r}, expected []")
errs = [(e.get("file"), e.get("message")) for e in doc.get("errors", [])]
want = [(sys.argv[2], "not a code object, offload bundle or ELF with GPU code (it starts with 6e 6f 74 20)"),
        (sys.argv[3], "no .hsaco files in this folder")]
if errs != want:
    sys.exit(f"errors {errs}, expected {want}")
PY
checks=$((checks + 1))
echo "$prog: ok: bad inputs (json): one document, both errors, no report"

# --- server unreachable: a closed loopback port -----------------------------------------
refused="cannot connect to 127.0.0.1:$closed: Connection refused"
expect "unreachable (health)" 1 "tregc: $refused" "" "${S[@]}" health
expect "unreachable (list)" 1 "tregc: $refused" "" "${S[@]}" list --kernel add_kernel
expect "unreachable (fetch)" 1 "tregc: $refused" "" "${S[@]}" fetch "$(printf '%064d' 0)"
if [[ -n $fx && -f $fx/gfx906/loop_kernel.hsaco ]]; then
  good=$fx/gfx906/loop_kernel.hsaco
  expect "unreachable (upload)" 1 "tregc: $refused" "" "${S[@]}" upload "$good" "$good"
  # JSON: the file being sent carries the error; the run stops there.
  run "$work/o" "${S[@]}" --format json upload "$good" "$good"
  ((rc == 1)) || fail "unreachable (upload, json): exit $rc, expected 1"
  python3 - "$work/o.out" "$good" "$refused" <<'PY' || fail "unreachable (upload, json): see above"
import json, sys
doc = json.load(open(sys.argv[1]))
if doc["reports"] or [(e["file"], e["message"]) for e in doc["errors"]] != [(sys.argv[2], sys.argv[3])]:
    sys.exit(f"unexpected document {doc}")
PY
  checks=$((checks + 1))
else
  echo "$prog: note: no fixtures; upload to an unreachable server is not checked"
fi

# --- TLS verification against a throwaway self-signed listener -------------------------
openssl req -x509 -newkey rsa:2048 -nodes -keyout "$work/key.pem" -out "$work/cert.pem" -days 1 \
  -subj /CN=127.0.0.1 -addext subjectAltName=IP:127.0.0.1 >/dev/null 2>&1 ||
  fail "openssl could not make a self-signed certificate"
tls_port=$(free_port)
openssl s_server -accept "127.0.0.1:$tls_port" -cert "$work/cert.pem" -key "$work/key.pem" -www \
  -quiet >"$work/s_server.log" 2>&1 </dev/null &
server_pid=$!
for _ in $(seq 50); do
  python3 -c 'import socket, sys; socket.create_connection(("127.0.0.1", int(sys.argv[1])), 1)' \
    "$tls_port" 2>/dev/null && break
  kill -0 "$server_pid" 2>/dev/null || fail "openssl s_server did not start: $(cat "$work/s_server.log")"
  sleep 0.1
done
T=(--server "https://127.0.0.1:$tls_port")
expect "self-signed, no --ca" 1 "tregc: TLS: certificate verify failed for 127.0.0.1 (use --ca)" \
  "self-signed" "${T[@]}" health
TREG_SERVER=https://127.0.0.1:$tls_port expect "self-signed, no --ca, server from TREG_SERVER" 1 \
  "tregc: TLS: certificate verify failed for 127.0.0.1 (use --ca)" "" list
expect "--ca, wrong host name" 1 "tregc: TLS: certificate verify failed for localhost" \
  "hostname mismatch" --server "https://localhost:$tls_port" --ca "$work/cert.pem" health
# With the certificate trusted the handshake passes: s_server's HTML is no Health.
expect "--ca trusted, not tregd" 1 "tregc: 127.0.0.1:$tls_port: " "not a Health" \
  "${T[@]}" --ca "$work/cert.pem" health
# The same trust from client.conf (ca relative to the file).
cp "$work/cert.pem" "$HOME/.config/treg/team-ca.pem"
printf 'server = https://127.0.0.1:%s\nca = team-ca.pem\n' "$tls_port" >"$HOME/.config/treg/client.conf"
expect "--ca from client.conf" 1 "tregc: 127.0.0.1:$tls_port: " "not a Health" health
rm "$HOME/.config/treg/client.conf"

# --- no analyzer in the client -----------------------------------------------------------
if ! ldd "$TREGC" >/dev/null 2>&1 && "$TREGC" --version | grep -q '(static,'; then
  checks=$((checks + 1)) # the static tregc: test_tregc_static.sh checks it
  echo "$prog: ok: ldd: a static executable"
elif command -v ldd >/dev/null 2>&1; then
  libs=$(ldd "$TREGC")
  if grep -Ei 'libLLVM|libdw|libclang' <<<"$libs"; then
    fail "tregc links the analyzer's libraries:"$'\n'"$libs"
  fi
  grep -q 'libevent_openssl' <<<"$libs" || fail "tregc does not link libevent_openssl: $libs"
  checks=$((checks + 1))
  echo "$prog: ok: ldd: no libLLVM or libdw"
else
  echo "$prog: note: no ldd; the link check is not run"
fi

echo "$prog: PASS ($checks checks)"

#!/usr/bin/env bash
# The one-file tregc (scripts/build-static-tregc.sh; CTest's TREGC_STATIC is
# the copy the main build makes in BUILD/tregc-static) on a node that has
# nothing but it: a real tregd on 127.0.0.1, and tregc run in an empty root
# (a folder holding only the binary, a CA file, etc/hosts, etc/resolv.conf
# and the inputs, entered with chroot, or unshare -r --root without root),
# under an empty environment.  There is no libc, no NSS module, no
# /usr/lib/ssl there: any call into glibc's NSS or the build machine's
# OpenSSL paths fails.
#   - ldd says it is not a dynamic executable; no PT_INTERP, no DT_NEEDED;
#     --version names the libraries and the CA places;
#   - a name from etc/hosts: upload a Triton cache entry and a HIP
#     executable, fetch the report by hash as HTML (-o), list, health;
#   - a name only a DNS server knows (dns_stub.py on 127.0.0.1, named in
#     etc/resolv.conf): health;
#   - a name nobody knows: "cannot connect to NAME:PORT: ..." exit 1;
#   - the CA found where Debian/Ubuntu, RHEL 7+ and openSUSE keep it, no
#     --ca; nowhere: exit 2 naming --ca; then --ca and TREG_CA;
#   - the report it fetches equals, byte for byte, what the dynamic tregc
#     fetches (JSON and HTML).
# The rest of what tregc does, the static one does through the dynamic
# one's own tests (tests/CMakeLists.txt runs some again with TREGC_STATIC).
set -euo pipefail

prog=test_tregc_static
# shellcheck source=tests/cli/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
require_tregd openssl python3 readelf
S=${TREGC_STATIC:-}
[[ -n $S ]] || skip "TREGC_STATIC is not set (a build with -DTREG_STATIC_TREGC=OFF, or sanitized)"
[[ -x $S ]] || fail "the static tregc is not at $S"
entry=$TREG_SOURCE_ROOT/tests/data/triton-cache/3EB5ITNVJJEASVGOOFNBKD6OBZIVKCNTM3VGAWZY5Z3USBCVGDFQ
hx=${TREG_HIP_FIXTURES:-}
[[ -f $hx/app ]] || fail "no HIP fixtures at ${hx:-(TREG_HIP_FIXTURES unset)}"

work=$(mktemp -d "${TMPDIR:-/tmp}/tregc-static.XXXXXX")
dns_pid=

# --- the file itself ----------------------------------------------------------
if ldd "$S" >"$work/ldd" 2>&1; then fail "ldd lists libraries: $(head -c 300 "$work/ldd")"; fi
grep -q "not a dynamic executable" "$work/ldd" || fail "ldd: $(head -c 200 "$work/ldd")"
! readelf -lW "$S" | grep -q INTERP || fail "$S asks for a program interpreter"
! readelf -dW "$S" | grep -q NEEDED || fail "$S needs shared libraries"
"$S" --version >"$work/version" || fail "--version failed"
grep -q "^tregc .* (static, x86-64 Linux)$" "$work/version" || fail "--version: $(head -n1 "$work/version")"
grep -q "OpenSSL [0-9].*libevent 2.*protobuf-c .*json-c .*zlib .*zstd .*glibc" "$work/version" ||
  fail "--version names no libraries: $(sed -n 2p "$work/version")"
grep -qx "  /etc/pki/ca-trust/extracted/pem/tls-ca-bundle.pem" "$work/version" ||
  fail "--version lists no RHEL CA place"

# --- a server, and a DNS server -----------------------------------------------
TREGD_NAMES="127.0.0.1 treg-node.test treg-dns.test" start_tregd "$work"
# (after start_tregd, whose EXIT trap this one extends)
trap '[[ -z $server_pid ]] || kill -KILL -- "-$server_pid" 2>/dev/null || true
  [[ -z $dns_pid ]] || kill "$dns_pid" 2>/dev/null || true; rm -rf "$work"' EXIT
python3 "$TREG_SOURCE_ROOT/tests/cli/dns_stub.py" "$work/dns-port" treg-dns.test &
dns_pid=$!
for _ in $(seq 100); do [[ -s $work/dns-port ]] && break; sleep 0.05; done
[[ -s $work/dns-port ]] || fail "dns_stub.py wrote no port"
dns_port=$(cat "$work/dns-port")

# make_root DIR CA_PLACE: an empty root with the binary, the CA at CA_PLACE
# (none when empty), etc/hosts, etc/resolv.conf and the inputs.
make_root() {
  local r=$1
  mkdir -p "$r/etc" "$r/in" "$r/out"
  cp "$S" "$r/tregc"
  printf '127.0.0.1 treg-node.test\n' >"$r/etc/hosts"
  printf 'nameserver 127.0.0.1:%s\n' "$dns_port" >"$r/etc/resolv.conf"
  cp -r "$entry" "$r/in/entry"
  cp "$hx/app" "$r/in/app"
  if [[ -n $2 ]]; then
    mkdir -p "$r/$(dirname "$2")"
    cp "$work/certs/ca.pem" "$r/$2"
  fi
}
# in_root DIR ARGS...: /tregc ARGS in DIR as root directory, with nothing
# in the environment but TREG_TOKEN and what EXTRA_ENV adds.
chroot_cmd=$(command -v chroot || true)
in_root() {
  local r=$1
  shift
  # shellcheck disable=SC2086 # EXTRA_ENV: NAME=VALUE words
  if ((EUID == 0)) && [[ -n $chroot_cmd ]]; then
    timeout 60 env -i TREG_TOKEN="$tregd_token" ${EXTRA_ENV:-} "$chroot_cmd" "$r" /tregc "$@"
  else
    timeout 60 env -i TREG_TOKEN="$tregd_token" ${EXTRA_ENV:-} "$(command -v unshare)" -r \
      --root="$r" /tregc "$@"
  fi
}
deb=$work/root-debian
make_root "$deb" etc/ssl/certs/ca-certificates.crt
if ! in_root "$deb" --version >"$work/in-root.out" 2>&1; then
  ((EUID != 0)) || fail "chroot into $deb failed: $(head -c 300 "$work/in-root.out")"
  skip "neither root nor a user namespace to enter an empty root: $(head -c 200 "$work/in-root.out")"
fi
grep -qx "  /etc/ssl/certs/ca-certificates.crt   (found here)" "$work/in-root.out" ||
  fail "--version in the root does not find its CA: $(cat "$work/in-root.out")"

# --- by a name in etc/hosts: upload, fetch as HTML, list, health --------------
srv=https://treg-node.test:$port
in_root "$deb" --server "$srv" --format json --no-rows upload /in/entry /in/app >"$work/up.json" \
  2>"$work/up.err" || fail "upload in the empty root failed: $(head -c 400 "$work/up.err")"
read -r hash nreports < <(python3 - "$work/up.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
assert not d["errors"], d["errors"]
names = {k["name"] for r in d["reports"] for k in r["kernels"]}
assert "matmul_kernel" in names, names
print(next(r["hash"] for r in d["reports"] if r["kernels"][0]["name"] == "matmul_kernel"), len(d["reports"]))
PY
) || fail "the upload's JSON: see above"
((nreports == 9)) || fail "upload: $nreports reports, not the entry's 1 and app's 8"
in_root "$deb" --server "$srv" --format html -o /out/page.html fetch "$hash" 2>"$work/fetch.err" ||
  fail "fetch -o in the empty root failed: $(head -c 300 "$work/fetch.err")"
grep -q "^<!doctype html>" "$deb/out/page.html" || fail "the fetched page is not HTML"
grep -q "matmul_kernel" "$deb/out/page.html" || fail "the fetched page does not name the kernel"
in_root "$deb" --server "$srv" list --kernel matmul_kernel >"$work/list.txt" 2>&1 ||
  fail "list failed: $(head -c 300 "$work/list.txt")"
grep -q "${hash:0:12}" "$work/list.txt" || fail "list does not show $hash"
in_root "$deb" --server "$srv" health >"$work/health" 2>&1 || fail "health: $(cat "$work/health")"

# --- by a name only DNS knows, and by one nobody knows -------------------------
in_root "$deb" --server "https://treg-dns.test:$port" health >"$work/dns" 2>&1 ||
  fail "health by a DNS name failed: $(head -c 300 "$work/dns")"
rc=0
in_root "$deb" --server "https://nosuch.test:$port" --timeout 5 health >"$work/nx" 2>&1 || rc=$?
if ((rc != 1)) || ! grep -q "^tregc: cannot connect to nosuch.test:$port: " "$work/nx"; then
  fail "an unknown name: exit $rc, $(head -c 300 "$work/nx")"
fi

# --- the CA where other distributions keep it, and nowhere --------------------
for place in etc/pki/ca-trust/extracted/pem/tls-ca-bundle.pem etc/ssl/ca-bundle.pem; do
  r=$work/root-$(basename "$place")
  make_root "$r" "$place"
  in_root "$r" --server "$srv" health >"$work/ca.out" 2>&1 ||
    fail "the CA at /$place was not found: $(head -c 300 "$work/ca.out")"
done
bare=$work/root-bare
make_root "$bare" ""
rc=0
in_root "$bare" --server "$srv" health >"$work/noca" 2>&1 || rc=$?
if ((rc != 2)) || ! grep -q "^tregc: TLS: no CA certificates where the common distributions keep them .*--ca" \
  "$work/noca"; then
  fail "no CA anywhere: exit $rc, $(head -c 300 "$work/noca")"
fi
cp "$work/certs/ca.pem" "$bare/ca.pem"
in_root "$bare" --server "$srv" --ca /ca.pem health >/dev/null 2>"$work/ca.err" ||
  fail "--ca in the root: $(head -c 300 "$work/ca.err")"
EXTRA_ENV="TREG_CA=/ca.pem TREG_SERVER=$srv" in_root "$bare" health >/dev/null 2>"$work/ca.err" ||
  fail "TREG_CA and TREG_SERVER in the root: $(head -c 300 "$work/ca.err")"

# --- the same report as the dynamic tregc's ------------------------------------
for f in json html; do
  in_root "$deb" --server "https://127.0.0.1:$port" --format "$f" fetch "$hash" >"$work/static.$f" 2>&1 ||
    fail "static fetch --format $f: $(head -c 300 "$work/static.$f")"
  tregc_to --format "$f" fetch "$hash" >"$work/dynamic.$f" 2>&1 ||
    fail "dynamic fetch --format $f: $(head -c 300 "$work/dynamic.$f")"
  cmp -s "$work/static.$f" "$work/dynamic.$f" ||
    fail "the static and dynamic tregc print different $f for $hash: $(diff "$work/static.$f" "$work/dynamic.$f" | head -c 600)"
done
echo "$prog: ok ($(stat -c %s "$S") bytes; hosts, DNS, 3 CA places, upload/fetch/list/health in an empty root)"

#!/usr/bin/env bash
# The one-file tregc for the nodes: a static x86-64 Linux executable with no
# shared library or NSS dependency (names through libevent's evdns from
# /etc/hosts and /etc/resolv.conf; CA certificates from --ca, TREG_CA,
# client.conf, SSL_CERT_FILE/SSL_CERT_DIR or the common distributions'
# places: tregc --version lists them).  Copy the one file to a node and run it.
# Needs only what scripts/install-deps.sh installs (the -dev packages carry
# the .a archives; libc6-dev glibc's).  No LLVM: tregc never analyzes.
# Usage: scripts/build-static-tregc.sh [BUILD_DIR]   (default build-static)
# Prints the path of the executable and its size.
set -euo pipefail
cd "$(dirname "$0")/.."
dir=${1:-build-static}
jobs=$(nproc 2>/dev/null || echo 2)
cmake -S . -B "$dir" -DTREG_CLIENT_ONLY=ON -DTREG_STATIC=ON -DCMAKE_BUILD_TYPE=Release >/dev/null
# glibc's linker notes on getaddrinfo, dlopen and the like are about code in
# libcrypto and libevent that tregc never reaches with a name (libevent's own
# getaddrinfo call gets a number, which needs no NSS; tests/cli/
# test_tregc_static.sh runs it in an empty root, where a lookup through NSS
# would fail): left out here.
cmake --build "$dir" -j "$jobs" 2>&1 |
  grep -Ev "in statically linked applications requires at runtime|: in function \`" || true
exe=$dir/client/tregc
[[ -x $exe ]] || { echo "build-static-tregc.sh: $exe was not built" >&2; exit 1; }
if ldd "$exe" >/dev/null 2>&1; then
  echo "build-static-tregc.sh: $exe is a dynamic executable" >&2
  exit 1
fi
printf '%s  %s bytes\n' "$(cd "$(dirname "$exe")" && pwd)/tregc" "$(stat -c %s "$exe")"

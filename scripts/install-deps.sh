#!/usr/bin/env bash
# Installs (or, with --check, only verifies) the Debian 12 packages needed to
# build treg and run its whole test suite: compilers, CMake, Debian's LLVM 22
# (libraries, llc/clang/lld for the fixtures and the oracle test, compiler-rt
# for ASan/UBSan/libFuzzer builds with clang, clang-tools-22's
# clang-offload-bundler for the HIP fixtures), libelf/libdw, zlib and zstd
# (compressed offload bundles; the zstd command for fixtures), msgpack-c, json-c,
# cmocka, python3 (oracle test), shellcheck (lint of the shell scripts), and
# for the HTML report's browser test Debian's chromium with a font, Node.js
# (Debian's nodejs and npm unless a node is already installed) and
# playwright-core from the npm registry, pinned by tests/browser/package-lock.json;
# libpq and PostgreSQL 15 (tregd's shared index, a throwaway server in the
# tests) and HAProxy (several tregd behind one address, in the tests).
# Idempotent; run as root, or as a user with sudo.
#
# usage: scripts/install-deps.sh [--check | --dry-run | --llvm VERSION]
#   --check    only verify that everything is installed (exit 1 naming what is not)
#   --dry-run  apt-get update, then simulate the install (apt-get -s)
#   --llvm N   only a second LLVM to build against (llvm-N, llvm-N-dev: scripts/test-llvm.sh)
set -euo pipefail

prog=install-deps.sh
die() {
  printf '%s: error: %s\n' "$prog" "$*" >&2
  exit 1
}

PACKAGES=(
  build-essential cmake pkg-config git ca-certificates
  llvm-22 llvm-22-dev llvm-22-tools clang-22 clang-tools-22 lld-22 libclang-rt-22-dev
  libelf-dev libdw-dev libmsgpack-dev libjson-c-dev libyaml-dev libcmocka-dev
  zlib1g-dev libzstd-dev zstd libseccomp-dev
  libprotobuf-c-dev protobuf-c-compiler libevent-dev libssl-dev libsqlite3-dev openssl curl
  libpq-dev postgresql haproxy
  python3 shellcheck clang-format cppcheck strace time
  chromium fonts-dejavu-core
)
# Node.js: whatever node the machine has, else Debian's.
if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then
  PACKAGES+=(nodejs npm)
fi
browser_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")/../tests/browser" && pwd)
# Commands the build and tests call by name, with the package providing each.
TOOLS=(
  cc:build-essential make:build-essential cmake:cmake pkg-config:pkg-config git:git
  clang-22:clang-22 llc-22:llvm-22 llvm-objdump-22:llvm-22 llvm-readelf-22:llvm-22
  llvm-strip-22:llvm-22 llvm-objcopy-22:llvm-22 ld.lld-22:lld-22 zstd:zstd
  /usr/lib/llvm-22/bin/clang-offload-bundler:clang-tools-22 python3:python3 shellcheck:shellcheck
  clang-format:clang-format cppcheck:cppcheck protoc-c:protobuf-c-compiler openssl:openssl
  curl:curl chromium:chromium node:nodejs npm:npm strace:strace /usr/bin/time:time
  /usr/lib/postgresql/15/bin/initdb:postgresql-15 haproxy:haproxy
)

usage="usage: $prog [--check | --dry-run | --llvm VERSION]"
check=0 simulate=() second_llvm=""
case ${1:-} in
'') ;;
--check) check=1 ;;
--dry-run) simulate=(-s) ;;
--llvm)
  [[ ${2:-} =~ ^[0-9]+$ ]] || die "--llvm needs a version number ($usage)"
  second_llvm=$2
  PACKAGES=("llvm-$2" "llvm-$2-dev")
  shift
  ;;
-h | --help)
  sed -n '2,15p' "$0" | sed 's/^# \{0,1\}//'
  exit 0
  ;;
*) die "unknown argument '$1' ($usage)" ;;
esac
(($# <= 1)) || die "too many arguments ($usage)"

[[ -r /etc/debian_version ]] || die "this is not a Debian system (no /etc/debian_version)"

installed() { # PACKAGE: installed and configured
  [[ $(dpkg-query -W -f='${db:Status-Status}' "$1" 2>/dev/null) == installed ]]
}

verify() {
  local missing=() p t
  for p in "${PACKAGES[@]}"; do
    installed "$p" || missing+=("$p")
  done
  for t in "${TOOLS[@]}"; do
    command -v "${t%%:*}" >/dev/null 2>&1 || missing+=("${t#*:} (command ${t%%:*})")
  done
  if ! python3 -c 'import json' >/dev/null 2>&1; then
    missing+=("python3 (module json)")
  fi
  [[ -f $browser_dir/node_modules/playwright-core/package.json ]] ||
    missing+=("playwright-core (npm ci in tests/browser)")
  if ((${#missing[@]})); then
    printf '%s: missing: %s\n' "$prog" "${missing[*]}" >&2
    return 1
  fi
  echo "$prog: all ${#PACKAGES[@]} packages and ${#TOOLS[@]} tools present"
}

if ((check)); then
  verify
  exit
fi

if ((EUID == 0)); then
  SUDO=()
else
  command -v sudo >/dev/null 2>&1 || die "not root and sudo is not installed: run as root"
  SUDO=(sudo)
fi
"${SUDO[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update

# Name every package the archive lacks at once, rather than apt's first.
unknown=()
for p in "${PACKAGES[@]}"; do
  cand=$(apt-cache policy "$p" 2>/dev/null | awk '/Candidate:/ { print $2 }')
  [[ -n $cand && $cand != "(none)" ]] || unknown+=("$p")
done
((${#unknown[@]} == 0)) ||
  die "no installation candidate for: ${unknown[*]} (enable the apt repository that provides Debian's llvm-22 packages)"

"${SUDO[@]}" env DEBIAN_FRONTEND=noninteractive \
  apt-get install -y --no-install-recommends "${simulate[@]}" "${PACKAGES[@]}"
if [[ -n $second_llvm ]]; then
  [[ -f /usr/lib/llvm-$second_llvm/lib/cmake/llvm/LLVMConfig.cmake ]] ||
    die "llvm-$second_llvm-dev installed no /usr/lib/llvm-$second_llvm/lib/cmake/llvm"
  echo "$prog: LLVM $second_llvm at /usr/lib/llvm-$second_llvm"
elif ((${#simulate[@]} == 0)); then
  # Exactly the versions in package-lock.json; no browser download (Debian's is used).
  (cd "$browser_dir" && PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 npm ci --no-audit --no-fund) ||
    die "npm ci in $browser_dir failed (the npm registry must be reachable)"
  verify
fi

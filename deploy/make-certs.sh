#!/usr/bin/env bash
# Makes a private CA and a server certificate signed by it for tregd, with the
# openssl command-line tool only.
#
# usage: deploy/make-certs.sh [--days N] DIR NAME...
#
#   DIR    where the files go (created, mode 0700):
#            ca.pem      the CA certificate: hand this to clients (tregc --ca, TREG_CA)
#            ca.key      the CA's private key: keep it offline once the server has its cert
#            server.pem  the server certificate (tregd --cert)
#            server.key  its private key (tregd --key), mode 0600
#   NAME   the server's names as clients will type them in --server: DNS names
#          (treg.example.org) and IP addresses (127.0.0.1, ::1), one or more; the
#          first is the certificate's CN; all go into subjectAltName, which is what
#          clients check.
#   --days validity of the server certificate (default 825); the CA gets 3650.
#
# Idempotent: an existing CA is kept (so certificates handed out stay valid);
# the server certificate is kept when it is signed by that CA, names exactly
# the same subjectAltName and is valid for at least 30 more days, and is made
# again otherwise.  Keys are EC P-256.
set -euo pipefail

prog=make-certs.sh
die() {
  printf '%s: error: %s\n' "$prog" "$*" >&2
  exit 1
}
usage="usage: $prog [--days N] DIR NAME..."

days=825
while (($#)); do
  case $1 in
  --days)
    (($# >= 2)) || die "--days needs a number ($usage)"
    [[ $2 =~ ^[1-9][0-9]{0,4}$ ]] || die "--days: '$2' is not a number of days"
    days=$2
    shift 2
    ;;
  -h | --help)
    sed -n '2,22p' "$0" | sed 's/^# \{0,1\}//'
    exit 0
    ;;
  --)
    shift
    break
    ;;
  -*) die "unknown option '$1' ($usage)" ;;
  *) break ;;
  esac
done
(($# >= 2)) || die "$usage"
command -v openssl >/dev/null 2>&1 || die "openssl not found (Debian package openssl)"

dir=$1
shift
names=("$@")

# subjectAltName from the names: IPv4/IPv6 literals as IP:, the rest as DNS:.
san=""
for n in "${names[@]}"; do
  if [[ $n =~ ^[0-9]{1,3}(\.[0-9]{1,3}){3}$ || $n == *:* ]]; then
    entry="IP:$n"
  elif [[ $n =~ ^[A-Za-z0-9*]([A-Za-z0-9.-]*[A-Za-z0-9])?$ ]]; then
    entry="DNS:$n"
  else
    die "'$n' is neither a DNS name nor an IP address"
  fi
  san+=${san:+,}$entry
done
cn=${names[0]}

umask 077
mkdir -p "$dir"
chmod 700 "$dir"
ca_key=$dir/ca.key ca_pem=$dir/ca.pem
key=$dir/server.key pem=$dir/server.pem

# Files are written under a temporary name and renamed, so an interrupted run
# never leaves a half-written key or certificate where tregd would read it.
tmp=$(mktemp -d "$dir/.make-certs.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

newkey() { openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out "$1" 2>/dev/null; }

if [[ -s $ca_key && -s $ca_pem ]]; then
  echo "$prog: keeping the CA in $ca_pem"
else
  newkey "$tmp/ca.key"
  openssl req -x509 -new -key "$tmp/ca.key" -sha256 -days 3650 \
    -subj "/CN=treg private CA $(date -u +%Y%m%d%H%M%S)" \
    -addext "basicConstraints=critical,CA:TRUE,pathlen:0" \
    -addext "keyUsage=critical,keyCertSign,cRLSign" \
    -out "$tmp/ca.pem" 2>/dev/null
  mv "$tmp/ca.key" "$ca_key"
  chmod 644 "$tmp/ca.pem"
  mv "$tmp/ca.pem" "$ca_pem"
  rm -f "$pem" # signed by a CA that is gone
  echo "$prog: made a CA: $ca_pem (give this file to clients) and $ca_key"
fi

# The subjectAltName of a certificate as "DNS:a,IP:b" (openssl's "IP Address:"
# spelled as in a config file), or nothing.
san_of() {
  openssl x509 -in "$1" -noout -ext subjectAltName 2>/dev/null |
    sed -n '2,$p' | tr -d ' ' | sed 's/IPAddress:/IP:/g' | tr -d '\n'
}
# The same list as given, normalised the same way (openssl prints IPv6 in full).
want_san() {
  printf 'subjectAltName=%s\n' "$san" >"$tmp/want.cnf"
  newkey "$tmp/probe.key"
  openssl req -new -x509 -key "$tmp/probe.key" -subj /CN=probe -days 1 \
    -addext "$(cat "$tmp/want.cnf")" -out "$tmp/probe.pem" 2>/dev/null
  san_of "$tmp/probe.pem"
}

keep=0
if [[ -s $key && -s $pem ]] &&
  openssl verify -CAfile "$ca_pem" "$pem" >/dev/null 2>&1 &&
  openssl x509 -in "$pem" -noout -checkend $((30 * 86400)) >/dev/null 2>&1 &&
  [[ $(san_of "$pem") == "$(want_san)" ]] &&
  [[ $(openssl pkey -in "$key" -pubout 2>/dev/null) == $(openssl x509 -in "$pem" -noout -pubkey 2>/dev/null) ]]; then
  keep=1
fi

if ((keep)); then
  echo "$prog: keeping the server certificate $pem ($san)"
else
  newkey "$tmp/server.key"
  openssl req -new -key "$tmp/server.key" -subj "/CN=$cn" -out "$tmp/server.csr" 2>/dev/null
  cat >"$tmp/ext.cnf" <<EOF
basicConstraints=critical,CA:FALSE
keyUsage=critical,digitalSignature,keyEncipherment
extendedKeyUsage=serverAuth
subjectKeyIdentifier=hash
authorityKeyIdentifier=keyid
subjectAltName=$san
EOF
  openssl x509 -req -in "$tmp/server.csr" -CA "$ca_pem" -CAkey "$ca_key" \
    -set_serial "0x$(openssl rand -hex 16)" -sha256 -days "$days" \
    -extfile "$tmp/ext.cnf" -out "$tmp/server.pem" 2>/dev/null
  openssl verify -CAfile "$ca_pem" "$tmp/server.pem" >/dev/null ||
    die "the new server certificate does not verify against $ca_pem"
  chmod 644 "$tmp/server.pem"
  mv "$tmp/server.key" "$key"
  mv "$tmp/server.pem" "$pem"
  echo "$prog: made a server certificate for $san: $pem, key $key"
fi

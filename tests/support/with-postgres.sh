#!/usr/bin/env bash
# with-postgres.sh CMD [ARG...]: runs CMD beside a throwaway PostgreSQL —
# initdb in a temporary folder, the server on 127.0.0.1 at a free port and
# its socket in that folder, trust authentication (nothing but loopback
# reaches it), a database "treg" — with TREG_TEST_INDEX set to its URL.
# The server is stopped and its folder removed afterwards, whatever CMD
# did; CMD's exit status is the script's.  As root, PostgreSQL (which
# refuses to run as root) runs as the "postgres" user.  Exits 77 (a skip)
# when PostgreSQL's server is not installed (scripts/install-deps.sh).
set -euo pipefail
prog=with-postgres.sh
(($# > 0)) || {
  echo "usage: $prog CMD [ARG...]" >&2
  exit 2
}
bin=$(find /usr/lib/postgresql -maxdepth 3 -path '*/bin/initdb' -printf '%h\n' 2>/dev/null | sort -V | tail -n1)
if [[ -z $bin || ! -x $bin/pg_ctl ]]; then
  echo "$prog: skipped: no PostgreSQL server (initdb) under /usr/lib/postgresql; scripts/install-deps.sh installs it"
  exit 77
fi
as=()
if ((EUID == 0)); then
  id postgres >/dev/null 2>&1 || {
    echo "$prog: skipped: running as root and there is no postgres user to run PostgreSQL as"
    exit 77
  }
  as=(runuser -u postgres --)
fi
# PostgreSQL's tools run from its own folder: the caller's may be closed to the
# postgres user (a checkout under /root).
pg() { (cd "$dir" && "${as[@]}" "$@"); }

dir=$(mktemp -d "${TMPDIR:-/tmp}/treg-pg.XXXXXX")
((EUID == 0)) && chown postgres "$dir"
chmod 700 "$dir"
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
# shellcheck disable=SC2317 # called by the EXIT trap
stop() {
  pg "$bin/pg_ctl" -D "$dir/data" -m immediate -w stop >/dev/null 2>&1 || true
  rm -rf "$dir"
}
trap stop EXIT
pg "$bin/initdb" -D "$dir/data" -U postgres --auth=trust -E UTF8 --no-locale >"$dir/initdb.log" 2>&1 || {
  echo "$prog: initdb failed: $(tail -n3 "$dir/initdb.log")" >&2
  exit 1
}
pg "$bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 60 \
  -o "-c listen_addresses=127.0.0.1 -p $port -k $dir -c fsync=off" start >/dev/null || {
  echo "$prog: PostgreSQL did not start: $(tail -n3 "$dir/server.log")" >&2
  exit 1
}
pg "$bin/createdb" -h 127.0.0.1 -p "$port" -U postgres treg
export TREG_TEST_INDEX="postgresql://postgres@127.0.0.1:$port/treg"
export TREG_TEST_PG_LOG=$dir/server.log
echo "$prog: PostgreSQL $("$bin/postgres" --version | grep -oE '[0-9]+(\.[0-9]+)+' | head -n1) on 127.0.0.1:$port"
rc=0
"$@" || rc=$?
exit "$rc"

#!/usr/bin/env bash
# Stop the throwaway PostgreSQL test server started by postgres-up.sh (harmless if not running).
set -euo pipefail

DIR="${REDEEM_PG_DIR:-/tmp/redeem-pg}"
BIN="$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n1)"
cd /

if [[ -n "$BIN" && -f "$DIR/postmaster.pid" ]] \
   && runuser -u postgres -- "$BIN/pg_ctl" -D "$DIR" status >/dev/null 2>&1; then
  echo "postgres-down: stopping server in $DIR" >&2
  runuser -u postgres -- "$BIN/pg_ctl" -D "$DIR" -m fast -w stop >&2
else
  echo "postgres-down: not running" >&2
fi

#!/usr/bin/env bash
# Start a throwaway PostgreSQL test server on 127.0.0.1 (idempotent).
# Progress goes to stderr; the only stdout line is the connection URL.
set -euo pipefail

DIR="${REDEEM_PG_DIR:-/tmp/redeem-pg}"
PORT="${REDEEM_PG_PORT:-54329}"
URL="postgres://postgres@127.0.0.1:${PORT}/postgres"
log() { echo "postgres-up: $*" >&2; }

# Newest installed server bin dir, if any.
find_bin() { ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n1; }

BIN="$(find_bin)"
if [[ -z "$BIN" || ! -x "$BIN/pg_ctl" ]]; then
  log "installing postgresql via apt-get"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update >&2
  apt-get install -y --no-install-recommends postgresql >&2
  BIN="$(find_bin)"
fi

cd /  # postgres user may not be able to read the caller's cwd
as_pg() { runuser -u postgres -- "$@"; }

# Already running on that port? Nothing to do.
if "$BIN/pg_isready" -q -h 127.0.0.1 -p "$PORT"; then
  log "already running on port $PORT"
  echo "$URL"; exit 0
fi

mkdir -p "$DIR"
chown postgres:postgres "$DIR"
chmod 700 "$DIR"

if [[ ! -f "$DIR/PG_VERSION" ]]; then
  log "initdb in $DIR"
  as_pg "$BIN/initdb" -D "$DIR" -U postgres --auth=trust --no-sync -E UTF8 --locale=C.UTF-8 >&2
  # Test-only settings: loopback only, socket in data dir, speed over durability.
  cat >> "$DIR/postgresql.conf" <<CONF
listen_addresses = '127.0.0.1'
port = $PORT
unix_socket_directories = '$DIR'
fsync = off
synchronous_commit = off
full_page_writes = off
max_connections = 300
CONF
  # Trust for unix socket and 127.0.0.1 only (replaces initdb's defaults).
  cat > "$DIR/pg_hba.conf" <<HBA
local all all trust
host  all all 127.0.0.1/32 trust
HBA
  chown postgres:postgres "$DIR/postgresql.conf" "$DIR/pg_hba.conf"
fi

log "starting server on 127.0.0.1:$PORT"
# Retry: after a crash the old postmaster PID can linger briefly as a zombie.
for try in 1 2 3; do
  as_pg "$BIN/pg_ctl" -D "$DIR" -l "$DIR/server.log" -o "-p $PORT" -w -t 30 start >&2 && break
  [[ $try == 3 ]] && { tail -n 20 "$DIR/server.log" >&2 || true; exit 1; }
  sleep 2
done

for _ in $(seq 60); do
  if "$BIN/pg_isready" -q -h 127.0.0.1 -p "$PORT"; then echo "$URL"; exit 0; fi
  sleep 0.5
done
log "server did not become ready within 30s; see $DIR/server.log"
exit 1

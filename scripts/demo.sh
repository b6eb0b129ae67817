#!/usr/bin/env bash
# Builds Redeem and runs the server on SQLite (./redeem.sqlite) with a ready demo app, printing its keys.
# Extra arguments go to `redeem demo`, e.g. --port 9090 or --database-url postgres://…
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/system-deps.sh pkg-config libqrencode-dev libcurl4-openssl-dev libsqlite3-dev
swift build -c release --product redeem
exec .build/release/redeem demo "$@"

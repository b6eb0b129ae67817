#!/usr/bin/env bash
# The whole test suite: installs what the tests need, starts a throwaway PostgreSQL on loopback,
# builds, runs the CLI end-to-end checks and then every Swift test on SQLite and PostgreSQL.
set -euo pipefail
cd "$(dirname "$0")/.."

# System packages the tests use (PostgreSQL comes in through postgres-up.sh).
missing=()
command -v python3 >/dev/null || missing+=(python3)
command -v curl >/dev/null || missing+=(curl)
if [ ${#missing[@]} -gt 0 ]; then
  echo "installing: ${missing[*]}" >&2
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq >&2 && apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2
fi

export REDEEM_TEST_POSTGRES_URL="${REDEEM_TEST_POSTGRES_URL:-$(bash scripts/postgres-up.sh)}"
# Drop databases that earlier, interrupted runs left behind.
psql "$REDEEM_TEST_POSTGRES_URL" -Atqc "SELECT datname FROM pg_database WHERE datname LIKE 'redeem\_t\_%' OR datname LIKE 'redeem\_template\_%' OR datname LIKE 'redeem\_e2e\_%'" \
  | while read -r db; do psql "$REDEEM_TEST_POSTGRES_URL" -qc "DROP DATABASE IF EXISTS \"$db\" WITH (FORCE)" >/dev/null; done

swift build --build-tests
python3 Tests/e2e/cli_e2e.py .build/debug/redeem
swift test --skip-build

#!/usr/bin/env bash
# The whole test suite: installs what the tests need, starts a throwaway PostgreSQL on loopback,
# builds, runs the CLI end-to-end checks and then every Swift test on SQLite and PostgreSQL.
set -euo pipefail
cd "$(dirname "$0")/.."

# System packages: the build's C libraries, and what the tests drive (PostgreSQL comes in through postgres-up.sh).
bash scripts/system-deps.sh pkg-config libqrencode-dev libcurl4-openssl-dev libsqlite3-dev openssl zbar-tools chromium python3 curl nginx
# A real SMTP server for the mail tests (aiosmtpd, from PyPI).
python3 -m pip --version >/dev/null 2>&1 || bash scripts/system-deps.sh python3-pip
python3 -c "import aiosmtpd" 2>/dev/null || python3 -m pip install -q aiosmtpd 2>/dev/null \
  || python3 -m pip install -q --break-system-packages aiosmtpd
# schemathesis checks every response against the OpenAPI document (Tests/e2e/contract_check.py).
python3 -c "import schemathesis" 2>/dev/null || python3 -m pip install -q schemathesis 2>/dev/null \
  || python3 -m pip install -q --break-system-packages schemathesis
# Playwright drives Debian's Chromium for the console's browser test (its own browser download is not used).
python3 -c "import playwright" 2>/dev/null || python3 -m pip install -q playwright 2>/dev/null \
  || python3 -m pip install -q --break-system-packages playwright

export REDEEM_TEST_POSTGRES_URL="${REDEEM_TEST_POSTGRES_URL:-$(bash scripts/postgres-up.sh)}"
# Drop databases that earlier, interrupted runs left behind.
psql "$REDEEM_TEST_POSTGRES_URL" -Atqc "SELECT datname FROM pg_database WHERE datname LIKE 'redeem\_t\_%' OR datname LIKE 'redeem\_template\_%' OR datname LIKE 'redeem\_e2e\_%'" \
  | while read -r db; do psql "$REDEEM_TEST_POSTGRES_URL" -qc "DROP DATABASE IF EXISTS \"$db\" WITH (FORCE)" >/dev/null; done

# The generated JSON API code must be what the OpenAPI document generates (builds the generator, about a minute).
bash scripts/openapi-generate.sh --check
# Formatting: the toolchain's swift-format with .swift-format (150 columns); fix with `swift format --in-place --recursive …`.
swift format lint --strict --recursive --parallel Sources Tests Package.swift Kit/Sources Kit/Tests Kit/Package.swift
swift test --package-path Kit          # RedeemKit, the client SDK, on its own
bash scripts/check-sdk-install.sh      # an app that adds this repository builds RedeemKit and nothing of the server
swift build --build-tests
python3 Tests/e2e/cli_e2e.py .build/debug/redeem
python3 Tests/e2e/operations_e2e.py .build/debug/redeem   # busy port, 2 s shutdown, backup under load and restore
python3 Tests/e2e/nginx_front.py .build/debug/redeem       # deploy/: nginx with TLS in front, the systemd unit verified
python3 Tests/e2e/contract_check.py .build/debug/redeem    # schemathesis, every operation, with each kind of key
python3 Tests/e2e/console_browser.py .build/debug/redeem  # the console in Chromium; screenshots in test-artifacts/console
python3 Tests/e2e/portal_browser.py .build/debug/redeem   # the customer portal in Chromium; screenshots in test-artifacts/portal
python3 Tests/e2e/metrics_e2e.py .build/debug/redeem     # GET /metrics on its own loopback listener; GET /
python3 Tests/e2e/tracing_e2e.py .build/debug/redeem     # spans per request to an OTLP/HTTP collector, no tokens in them
python3 Tests/e2e/postgres_outage.py .build/debug/redeem  # PostgreSQL restarts under load: 503s, never 500s or hangs; recovers
python3 Tests/e2e/multi_instance.py .build/debug/redeem   # two serve processes on one PostgreSQL: storm, cache, limits, webhooks, e-mail once
swift test --skip-build

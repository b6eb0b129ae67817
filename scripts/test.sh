#!/usr/bin/env bash
# The whole test suite: installs what the tests need, starts a throwaway PostgreSQL on loopback,
# builds, runs the CLI end-to-end checks and then every Swift test on SQLite and PostgreSQL.
set -euo pipefail
cd "$(dirname "$0")/.."

# System packages: the build's C libraries, and what the tests drive (PostgreSQL comes in through postgres-up.sh).
bash scripts/system-deps.sh pkg-config libqrencode-dev libcurl4-openssl-dev libsqlite3-dev openssl zbar-tools chromium fonts-wqy-zenhei python3 curl nginx pgbouncer
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
# pip can succeed for another interpreter than python3: stop here, not in the middle of the tests.
python3 -c "import aiosmtpd, schemathesis, playwright"

# Assigned on its own line, then exported: `export VAR=$(cmd)` returns export's status and hides a failing cmd.
REDEEM_TEST_POSTGRES_URL="${REDEEM_TEST_POSTGRES_URL:-$(bash scripts/postgres-up.sh)}"
[ -n "$REDEEM_TEST_POSTGRES_URL" ] || { echo "scripts/postgres-up.sh printed no URL" >&2; exit 1; }
export REDEEM_TEST_POSTGRES_URL
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
python3 Tests/e2e/operations_e2e.py .build/debug/redeem   # busy port, SIGTERM mid-request, backup under load, --no-migrate, pool size, --host
python3 Tests/e2e/nginx_front.py .build/debug/redeem       # deploy/: nginx with TLS in front, the systemd unit verified
python3 Tests/e2e/contract_check.py .build/debug/redeem    # schemathesis, every operation, with each kind of key
python3 Tests/e2e/console_browser.py .build/debug/redeem  # the console in Chromium; screenshots in test-artifacts/console
python3 Tests/e2e/portal_browser.py .build/debug/redeem   # the customer portal in Chromium; screenshots in test-artifacts/portal
python3 Tests/e2e/offer_claims_browser.py .build/debug/redeem  # web offer claims by e-mail in Chromium, SQLite then PostgreSQL; screenshots in test-artifacts/offer-claims
python3 Tests/e2e/buyer_forms_browser.py .build/debug/redeem  # a buyer's typos and a server without Stripe are never a dead end, in Chromium; screenshots in test-artifacts/buyer-forms
python3 Tests/e2e/buyer_languages_browser.py .build/debug/redeem  # the buyer pages in German, Japanese, Chinese (Taiwan) and a Swedish fallback to English, in Chromium; screenshots in test-artifacts/buyer-languages
python3 Tests/e2e/team_browser.py .build/debug/redeem  # an invitation from the real SMTP server, a disabled session, a password reset, in Chromium; screenshots in test-artifacts/team
python3 Tests/e2e/purchase_links_browser.py .build/debug/redeem  # a product's link copied from the console and bought through, in Chromium; screenshots in test-artifacts/purchase-links
python3 Tests/e2e/customer_browser.py .build/debug/redeem  # the Customers tab, a customer's page (30 purchases stay short), export and erasure with the database file scanned after, in Chromium; screenshots in test-artifacts/customer
python3 Tests/e2e/metrics_browser.py .build/debug/redeem  # a known history's subscription metrics on the overview at 1280 and 390 px and from redeem metrics --json; screenshots in test-artifacts/metrics
python3 Tests/e2e/web_billing_browser.py .build/debug/redeem  # a EUR price added in the console and bought with ?currency=EUR, a sandbox trial converted on the accelerated clock; screenshots in test-artifacts/web-billing
python3 Tests/e2e/chargeback_browser.py .build/debug/redeem  # a chargeback from signed Stripe events: the subscription cancelled at a fake Stripe, the access ended, the e-mail, console and portal; screenshots in test-artifacts/chargeback
python3 Tests/e2e/metrics_e2e.py .build/debug/redeem     # GET /metrics on its own loopback listener, each documented metric; GET /
python3 Tests/e2e/branding_browser.py .build/debug/redeem  # first steps ticked as an app is set up, checkout branding previewed light and dark and applied to the sandbox checkout; screenshots in test-artifacts/branding
python3 Tests/e2e/tracing_e2e.py .build/debug/redeem     # spans per request to an OTLP/HTTP collector, no tokens in them
python3 Tests/e2e/log_secrets.py .build/debug/redeem     # a whole flow at trace and debug level: no key, token, link or session in the log
python3 Tests/e2e/postgres_outage.py .build/debug/redeem  # PostgreSQL restarts under load: 503s, never 500s or hangs; recovers
python3 Tests/e2e/multi_instance.py .build/debug/redeem   # two serve processes on one PostgreSQL: storm, cache, limits, webhooks, e-mail once
# Every Swift test, on SQLite and PostgreSQL. Each PostgreSQL case writes its name to a ledger; with PostgreSQL
# configured, a PostgreSQL test reported as skipped fails the run, and the count of cases that ran is printed.
# At most 8 tests at once: on 2 cores, Swift Testing's default (every test at once) starved the in-process servers'
# event loops for seconds under the whole suite, and connects to them timed out; 8 is also faster here (97 s against 104 s).
export SWT_EXPERIMENTAL_MAXIMUM_PARALLELIZATION_WIDTH="${SWT_EXPERIMENTAL_MAXIMUM_PARALLELIZATION_WIDTH:-8}"
ledger="$(mktemp)"; output="$(mktemp)"
trap 'rm -f "$ledger" "$output"' EXIT
REDEEM_TEST_POSTGRES_LEDGER="$ledger" swift test --skip-build 2>&1 | tee "$output"
if grep -E "skipped.*REDEEM_TEST_POSTGRES_URL" "$output"; then
  echo "PostgreSQL is configured, yet the PostgreSQL tests above were skipped" >&2; exit 1
fi
ran=$(wc -l < "$ledger")
echo "PostgreSQL: $ran PostgreSQL databases made for the test cases that ran on it"
[ "$ran" -gt 0 ] || { echo "no test ran on PostgreSQL" >&2; exit 1; }

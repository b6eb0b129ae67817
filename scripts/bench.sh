#!/usr/bin/env bash
# Benchmarks: builds a release binary, installs wrk and PostgreSQL if needed, and runs every benchmark
# on SQLite and PostgreSQL (Customer Info, redemption links against two baselines and SQLite's writer thread, offer codes, RevenueCat's other SDK
# routes, the cost of metrics,
# one and two instances on one PostgreSQL). Figures go to stdout; copy them into docs/benchmarks.md.
set -euo pipefail
cd "$(dirname "$0")/.."
if ! command -v wrk >/dev/null; then
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq >&2 && apt-get install -y -qq --no-install-recommends wrk >&2
fi
export REDEEM_BENCH_POSTGRES_URL="${REDEEM_BENCH_POSTGRES_URL:-$(bash scripts/postgres-up.sh)}"
swift build -c release --product redeem
python3 benchmarks/customer_info.py .build/release/redeem
python3 benchmarks/redemption.py .build/release/redeem
python3 benchmarks/sqlite_writer.py .build/release/redeem
python3 benchmarks/offer_codes.py .build/release/redeem
python3 benchmarks/revenuecat_sdk.py .build/release/redeem
python3 benchmarks/metrics_cost.py .build/release/redeem
python3 benchmarks/two_instances.py .build/release/redeem

#!/usr/bin/env python3
"""Benchmarks GET /v1/subscribers/{id} against GET /health in the same run, with wrk on loopback,
on SQLite and (when REDEEM_BENCH_POSTGRES_URL is set) PostgreSQL. Prints req/s, p50, p99 and the ratio."""
import json, os, sys, tempfile, urllib.request, uuid

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import CONNECTIONS, DURATION, cli, postgres_database, serve, wrk  # noqa: E402


def post(url, key, body, idempotency):
    request = urllib.request.Request(url, method="POST", data=json.dumps(body).encode())
    request.add_header("Authorization", f"Bearer {key}")
    request.add_header("Content-Type", "application/json")
    request.add_header("Idempotency-Key", idempotency)
    with urllib.request.urlopen(request) as response:
        return json.loads(response.read())


def measure(url, key=None):
    rps, p50, p99, bad, _ = wrk(url, headers=[f"Authorization: Bearer {key}"] if key else [])
    if bad:
        raise SystemExit(f"{url}: {bad} non-2xx responses")
    return rps, p50, p99


def run(label, database_url, extra_env=None):
    env = {"REDEEM_DATABASE_URL": database_url, **(extra_env or {})}
    cli(["migrate"], env)
    app = json.loads(cli(["apps", "create", "--name", "Bench", "--json"], env))
    for pid, kind, period, ents in [("monthly", "subscription", "P1M", ["pro"]), ("yearly", "subscription", "P1Y", ["pro", "cloud"]),
                                     ("weekly", "subscription", "P1W", ["ads_free"]), ("lifetime", "non_consumable", None, ["pro", "themes"]),
                                     ("coins", "consumable", None, [])]:
        args = ["products", "create", "--app", app["id"], "--id", pid, "--type", kind, "--json"] + (["--period", period] if period else [])
        for e in ents:
            args += ["--entitlement", e]
        cli(args, env)
    with serve(env) as base:
        for product in ["monthly", "yearly", "weekly", "lifetime", "coins", "coins"]:
            post(base + "/v1/purchases", app["keys"]["secret"], {"app_user_id": "bench-user", "product_id": product}, str(uuid.uuid4()))
        info_url = base + "/v1/subscribers/bench-user"
        info = json.loads(urllib.request.urlopen(urllib.request.Request(info_url, headers={"Authorization": "Bearer " + app["keys"]["public_production"]})).read())
        assert len(info["subscriber"]["subscriptions"]) == 3 and len(info["subscriber"]["entitlements"]) == 4, info
        measure(base + "/health")  # warm-up
        health = measure(base + "/health")
        customer = measure(info_url, app["keys"]["public_production"])
    print(f"| {label} | GET /health | {health[0]:,.0f} | {health[1]:.2f} | {health[2]:.2f} | |")
    print(f"| {label} | GET /v1/subscribers/{{id}} | {customer[0]:,.0f} | {customer[1]:.2f} | {customer[2]:.2f} | {customer[0] / health[0]:.2f}× |")
    sys.stdout.flush()


print(f"wrk -t1 -c{CONNECTIONS} -d{DURATION}s; customer with 3 subscriptions, 1 lifetime, 2 consumables, 4 entitlements\n")
print("| backend | route | req/s | p50 ms | p99 ms | ratio to /health |")
print("|---|---|---|---|---|---|")
with tempfile.TemporaryDirectory() as tmp:
    run("SQLite", f"sqlite://{tmp}/bench.sqlite")
pg = os.environ.get("REDEEM_BENCH_POSTGRES_URL")
if pg:
    with postgres_database(pg, "redeem_bench") as url:
        run("PostgreSQL", url)
    # The same build with its listener pointed nowhere: every request reads the tag, as before migration 31.
    with postgres_database(pg, "redeem_bench") as url:
        run("PostgreSQL, no listener", url, {"REDEEM_DATABASE_LISTEN_URL": "postgres://postgres@127.0.0.1:1/none"})

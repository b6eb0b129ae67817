#!/usr/bin/env python3
"""Benchmarks what RevenueCat's SDKs call besides Customer Info, on SQLite and (with REDEEM_BENCH_POSTGRES_URL)
PostgreSQL: offerings and the product-entitlement mapping against GET /health in the same run (routes in turn,
REDEEM_BENCH_ROUNDS rounds), then logIn (`POST /v1/subscribers/identify`, a new user each time) and subscriber
attributes with their p99."""
import json, os, sys, tempfile, urllib.request, uuid

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import CONNECTIONS, DURATION, cli, postgres_database, serve, wrk  # noqa: E402

ROUNDS = int(os.environ.get("REDEEM_BENCH_ROUNDS", "3"))


def get(url, key, platform="iOS"):
    request = urllib.request.Request(url, headers={"Authorization": f"Bearer {key}", "X-Platform": platform})
    return json.loads(urllib.request.urlopen(request).read())


def checked(url, key=None, **kwargs):
    headers = [f"Authorization: Bearer {key}", "X-Platform: iOS"] if key else []
    rps, p50, p99, bad, cpu = wrk(url, headers=headers, **kwargs)
    if bad:
        raise SystemExit(f"{url}: {bad} non-2xx responses")
    return rps, p50, p99, cpu


def run(label, database_url):
    env = {"REDEEM_DATABASE_URL": database_url}
    cli(["migrate"], env)
    app = json.loads(cli(["apps", "create", "--name", "Bench", "--json"], env))
    key = app["keys"]["public_production"]
    with_app = {**env, "REDEEM_APP": app["id"]}
    for pid, kind, period, play in [("monthly", "subscription", "P1M", ["--play-base-plan", "monthly"]),
                                    ("yearly", "subscription", "P1Y", ["--play-base-plan", "yearly"]),
                                    ("lifetime", "non_consumable", None, [])]:
        args = ["products", "create", "--id", pid, "--type", kind, "--entitlement", "pro", "--price", "9.99",
                "--app-store-id", f"com.bench.{pid}", "--play-store-id", "pro" if kind == "subscription" else pid, *play]
        cli(args + (["--period", period] if period else []), with_app)
    cli(["offerings", "create", "--id", "default", "--description", "Main", "--current", "--metadata", '{"headline": "Go Pro"}',
         "--package", "$rc_monthly=monthly", "--package", "$rc_annual=yearly", "--package", "$rc_lifetime=lifetime"], with_app)
    cli(["offerings", "create", "--id", "winback", "--package", "$rc_annual=yearly"], with_app)
    with serve(env) as base:
        offerings_url = base + "/v1/subscribers/bench-user/offerings"
        mapping_url = base + "/v1/product_entitlement_mapping"
        assert [p["platform_product_identifier"] for p in get(offerings_url, key)["offerings"][0]["packages"]] == \
            ["com.bench.monthly", "com.bench.yearly", "com.bench.lifetime"]
        assert len(get(mapping_url, key)["product_entitlement_mapping"]) == 6
        routes = [("GET /health", base + "/health", None), ("GET /v1/subscribers/{id}/offerings", offerings_url, key),
                  ("GET /v1/product_entitlement_mapping", mapping_url, key)]
        for _, url, k in routes:
            checked(url, k, seconds=1)  # unmeasured: each connection's first requests
        rounds = {name: [] for name, _, _ in routes}
        for _ in range(ROUNDS):
            for name, url, k in routes:
                rounds[name].append(checked(url, k, seconds=max(1, DURATION // ROUNDS)))
        run_id = uuid.uuid4().hex[:8]
        identify = wrk(base + "/", script="revenuecat_sdk.lua", env={"MODE": "identify", "KEY": key, "RUN": run_id})
        attributes = wrk(base + "/", script="revenuecat_sdk.lua", env={"MODE": "attributes", "KEY": key, "RUN": run_id})
    health = rounds["GET /health"]
    for name, _, _ in routes:
        results = rounds[name]
        rps = sum(r[0] for r in results) / len(results)
        ratios = ", ".join(f"{r[0] / h[0]:.2f}" for r, h in zip(results, health))
        p50 = sorted(r[1] for r in results)[len(results) // 2]
        p99 = max(r[2] for r in results)
        ratio = "" if name == "GET /health" else f"{rps / (sum(h[0] for h in health) / len(health)):.2f}× (rounds {ratios})"
        print(f"| {label} | {name} | {rps:,.0f} | {p50:.2f} | {p99:.2f} | {ratio} |")
    for name, result in [("POST /v1/subscribers/identify (new user)", identify), ("POST /v1/subscribers/{id}/attributes", attributes)]:
        rps, p50, p99, bad, cpu = result
        if bad:
            raise SystemExit(f"{name}: {bad} non-2xx responses")
        print(f"| {label} | {name} | {rps:,.0f} | {p50:.2f} | {p99:.2f} | p99/p50 {p99 / p50:.1f}×, {cpu:.2f} ms CPU per request |")
    sys.stdout.flush()


print(f"wrk -t1 -c{CONNECTIONS}, {ROUNDS} rounds in turn over {DURATION}s per route; 3 products in 2 offerings\n")
print("| backend | route | req/s | p50 ms | p99 ms | ratio to /health, or p99 |")
print("|---|---|---|---|---|---|")
with tempfile.TemporaryDirectory() as tmp:
    run("SQLite", f"sqlite://{tmp}/bench.sqlite")
pg = os.environ.get("REDEEM_BENCH_POSTGRES_URL")
if pg:
    with postgres_database(pg, "redeem_bench") as url:
        run("PostgreSQL", url)

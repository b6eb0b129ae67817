#!/usr/bin/env python3
"""Benchmarks successful redemptions (a fresh token per request, with the real association and grant) against two
baseline routes on the same engine, in the same run, with wrk on loopback: a single UPDATE … RETURNING, and the same
writes a redemption makes (its rate-limit hits, then token consumed, claimant created, purchase moved, attempt recorded)
with no reads or rules.
Runs at two token-table sizes (REDEEM_BENCH_SMALL, default 10,000; REDEEM_BENCH_LARGE, default 10,000,000; 0 skips one), on
SQLite and (with REDEEM_BENCH_POSTGRES_URL) PostgreSQL; REDEEM_BENCH_BACKENDS=sqlite or postgres runs one. Prints req/s, p50 and p99
and the ratios: from throughput, and from CPU per request (the server's and PostgreSQL's). The baseline leaves part
of the cores idle (each request waits on round trips), so by CPU a redemption costs more, relative to it, than
throughput shows."""
import json, os, sys, tempfile, time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import CONNECTIONS, DURATION, GENEROUS_LIMITS, cli, postgres_database, serve, wrk  # noqa: E402

SIZES = [int(os.environ.get("REDEEM_BENCH_SMALL", "10000")), int(os.environ.get("REDEEM_BENCH_LARGE", "10000000"))]
SIZES = [size for size in SIZES if size > 0]  # 0 skips a size
BACKENDS = os.environ.get("REDEEM_BENCH_BACKENDS", "sqlite,postgres").split(",")
KEEP = int(os.environ.get("REDEEM_BENCH_KEEP", "300000"))  # enough fresh tokens for the three runs


def run(label, database_url, size):
    env = {"REDEEM_DATABASE_URL": database_url}
    purchases = min(size, 10000)
    cli(["migrate"], env)
    app = json.loads(cli(["apps", "create", "--name", "Bench", "--json"], env))
    cli(["products", "create", "--app", app["id"], "--id", "lifetime", "--type", "non_consumable", "--entitlement", "pro", "--json"], env)
    with tempfile.TemporaryDirectory() as tmp:
        tokens = os.path.join(tmp, "tokens.txt")
        started = time.time()
        # `size` tokens stay stored besides the fresh ones the run uses.
        cli(["bench", "seed", "--app", app["id"], "--product", "lifetime", "--purchases", str(purchases),
             "--tokens", str(size + KEEP), "--keep", str(KEEP), "--out", tokens], env)
        seeded = time.time() - started
        with open(tokens) as f:
            lines = f.read().split()
        third = len(lines) // 3
        files = {}
        for n, name in enumerate(["baseline", "same", "redeem"]):
            files[name] = os.path.join(tmp, f"{name}.txt")
            with open(files[name], "w") as f:
                f.write("\n".join(lines[n * third:(n + 1) * third]) + "\n")
        key = app["keys"]["public_sandbox"]
        with serve(env, GENEROUS_LIMITS) as base:
            baseline = wrk(base, "redeem_tokens.lua", {"TOKENS": files["baseline"], "KEY": key, "ROUTE": "/v1/benchmark/baseline"})
            same = wrk(base, "redeem_tokens.lua", {"TOKENS": files["same"], "KEY": key, "ROUTE": "/v1/benchmark/same-writes", "USERS": "same-"})
            redeem = wrk(base, "redeem_tokens.lua", {"TOKENS": files["redeem"], "KEY": key, "ROUTE": "/v1/subscribers/redeem_purchase"})
    def row(route, r, ratios="", cpu_ratios="", seeding=""):
        print(f"| {label} | {size:,} | {route} | {r[0]:,.0f} | {r[1]:.2f} | {r[2]:.2f} | {r[4]:.3f} | {ratios} | {cpu_ratios} | {seeding} |")
    row("baseline UPDATE … RETURNING", baseline, seeding=f"{seeded:.0f} s")
    row("baseline: the same writes", same)
    # Throughput ratios, and the same ratios from CPU per request (the baseline's CPU over the redemption's).
    row("redemption", redeem, f"{redeem[0] / baseline[0]:.2f}× / {redeem[0] / same[0]:.2f}×",
        f"{baseline[4] / redeem[4]:.2f}× / {same[4] / redeem[4]:.2f}×")
    # The seeded buyers are anonymous. The same-writes phase moves each purchase (its tokens go round robin) to an
    # identified user, so the redemptions after it are transfers: the writes that baseline makes. A purchase it did not
    # reach is merged on its first redemption instead, which writes more (the owner's aliases moved, the owner deleted).
    if same[0] * DURATION < purchases:
        print(f"  (the same-writes phase moved about {same[0] * DURATION:,.0f} of {purchases:,} purchases: "
              "the others' first redemptions were merges, which write more than that baseline)")
    if redeem[3] or baseline[3] or same[3]:
        print(f"  (non-2xx: baseline {baseline[3]}, same writes {same[3]}, redemption {redeem[3]}: token file exhausted or errors)")
    sys.stdout.flush()


print(f"wrk -t1 -c{CONNECTIONS} -d{DURATION}s, a fresh token per request\n")
print("| backend | tokens stored | route | req/s | p50 ms | p99 ms | CPU ms/req | ratio to UPDATE / to same writes | by CPU | seeding |")
print("|---|---|---|---|---|---|---|---|---|---|")
for size in SIZES if "sqlite" in BACKENDS else []:
    with tempfile.TemporaryDirectory() as tmp:
        run("SQLite", f"sqlite://{tmp}/bench.sqlite", size)
pg = os.environ.get("REDEEM_BENCH_POSTGRES_URL")
if pg and "postgres" in BACKENDS:
    for size in SIZES:
        with postgres_database(pg, "redeem_bench") as url:
            run("PostgreSQL", url, size)

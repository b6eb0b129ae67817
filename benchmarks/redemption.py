#!/usr/bin/env python3
"""Benchmarks successful redemptions (a fresh token per request, with the real association and grant) against two
baseline routes on the same engine, in the same run, with wrk on loopback: a single UPDATE … RETURNING, and the same
writes a redemption makes (its rate-limit hits, then token consumed, claimant created, purchase moved, attempt recorded)
with no reads or rules.
Runs at two token-table sizes (REDEEM_BENCH_SMALL, default 10,000; REDEEM_BENCH_LARGE, default 10,000,000; 0 skips one), on
SQLite and (with REDEEM_BENCH_POSTGRES_URL) PostgreSQL; REDEEM_BENCH_BACKENDS=sqlite or postgres runs one. Prints req/s, p50 and p99
and the ratios: from throughput, and from CPU per request (the server's and PostgreSQL's). The baseline leaves part
of the cores idle (each request waits on round trips), so by CPU a redemption costs more, relative to it, than
throughput shows.
The three routes run in turn, REDEEM_BENCH_ROUNDS rounds (default 3) sharing REDEEM_BENCH_SECONDS, so that the
machine's drift during a run falls on all three; each round's ratios are printed too."""
import os, sys, tempfile, time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import CONNECTIONS, DURATION, GENEROUS_LIMITS, postgres_database, seed_links, serve, wrk  # noqa: E402

SIZES = [int(os.environ.get("REDEEM_BENCH_SMALL", "10000")), int(os.environ.get("REDEEM_BENCH_LARGE", "10000000"))]
SIZES = [size for size in SIZES if size > 0]  # 0 skips a size
BACKENDS = os.environ.get("REDEEM_BENCH_BACKENDS", "sqlite,postgres").split(",")
KEEP = int(os.environ.get("REDEEM_BENCH_KEEP", "300000"))  # enough fresh tokens for the three routes
# Each route runs ROUNDS times, in turn with the others, for REDEEM_BENCH_SECONDS in all.
ROUNDS = int(os.environ.get("REDEEM_BENCH_ROUNDS", "3"))
SEGMENT = max(1, DURATION // ROUNDS)
ROUTES = {"baseline": "/v1/benchmark/baseline", "same": "/v1/benchmark/same-writes", "redeem": "/v1/subscribers/redeem_purchase"}


def run(label, database_url, size):
    env = {"REDEEM_DATABASE_URL": database_url}
    purchases = min(size, 10000)
    with tempfile.TemporaryDirectory() as tmp:
        started = time.time()
        # `size` tokens stay stored besides the fresh ones the run uses.
        app, lines = seed_links(env, tmp, purchases, size + KEEP, KEEP)
        seeded = time.time() - started
        # The first `purchases` tokens name each purchase once (they go round robin), for the warm-up; as many again
        # prime each route; the rest are split between the routes and their rounds. So every request that consumes a
        # token has one no other request used.
        def write(name, chosen):
            path = os.path.join(tmp, f"{name}.txt")
            with open(path, "w") as f:
                f.write("\n".join(chosen) + "\n")
            return path
        warm = write("warm", lines[:purchases])
        primers = {route: write(f"primer-{route}", lines[(n + 1) * purchases:(n + 2) * purchases]) for n, route in enumerate(ROUTES)}
        rest = lines[4 * purchases:]
        share = len(rest) // (3 * ROUNDS)
        files = {(route, r): write(f"{route}{r}", rest[(3 * r + n) * share:(3 * r + n + 1) * share])
                 for r in range(ROUNDS) for n, route in enumerate(ROUTES)}
        key = app["keys"]["public_sandbox"]
        results = {route: [] for route in ROUTES}
        with serve(env, GENEROUS_LIMITS) as base:
            # The seeded buyers are anonymous, so a purchase's first redemption is a merge, which writes more than the
            # same-writes baseline (the owner's aliases moved, the owner deleted). The warm-up moves every purchase to an
            # identified user first, so that both routes measured after it make a transfer's writes. Its tokens repeat
            # once used up; those requests find nothing to consume.
            moved, passes = 0, 0
            while moved < purchases:
                passes += 1
                warmed = wrk(base, "redeem_tokens.lua", {"TOKENS": warm, "KEY": key, "ROUTE": ROUTES["same"], "USERS": f"warm{passes}-"},
                             seconds=SEGMENT)
                moved += warmed[0] * SEGMENT
            # Then a second of each route, unmeasured, so that the first round does not pay for each pool connection's
            # first executions of its statements (on PostgreSQL, prepared and planned at first).
            for route in ROUTES:
                wrk(base, "redeem_tokens.lua", {"TOKENS": primers[route], "KEY": key, "ROUTE": ROUTES[route], "USERS": f"primer-{route}-"},
                    seconds=1)
            # Rounds of the three routes in turn: a machine that speeds up or slows down during the run weighs on all
            # three alike, not on whichever route ran then.
            for r in range(ROUNDS):
                for route in ROUTES:
                    results[route].append(wrk(base, "redeem_tokens.lua", {
                        "TOKENS": files[(route, r)], "KEY": key, "ROUTE": ROUTES[route], "USERS": f"{route}{r}-"}, seconds=SEGMENT))
    baseline, same, redeem = (combined(results[route]) for route in ROUTES)

    def row(route, r, ratios="", cpu_ratios="", seeding=""):
        print(f"| {label} | {size:,} | {route} | {r[0]:,.0f} | {r[1]:.2f} | {r[2]:.2f} | {r[4]:.3f} | {ratios} | {cpu_ratios} | {seeding} |")
    row("baseline UPDATE … RETURNING", baseline, seeding=f"{seeded:.0f} s")
    row("baseline: the same writes", same)
    # Throughput ratios, and the same ratios from CPU per request (the baseline's CPU over the redemption's).
    row("redemption", redeem, f"{redeem[0] / baseline[0]:.2f}× / {redeem[0] / same[0]:.2f}×",
        f"{baseline[4] / redeem[4]:.2f}× / {same[4] / redeem[4]:.2f}×")
    rounds = ", ".join(f"{d[0] / b[0]:.2f}× / {d[0] / w[0]:.2f}×" for b, w, d in zip(*(results[route] for route in ROUTES)))
    print(f"  (each round's ratios: {rounds}; redemption's p50 / p99 ms: "
          f"{', '.join(f'{r[1]:.1f} / {r[2]:.1f}' for r in results['redeem'])})")
    failed = [route for route in ROUTES if any(r[3] for r in results[route])]
    if failed:
        print(f"  (non-2xx answers on {', '.join(failed)}: token file exhausted or errors)")
    # A used token consumes nothing: past its share, a same-writes request would be measured doing no writes.
    short = [route for route in ("same", "redeem") if any(r[0] * SEGMENT > share for r in results[route])]
    if short:
        print(f"  (more {' and '.join(short)} requests than the {share:,} tokens of a round: raise REDEEM_BENCH_KEEP)")
    sys.stdout.flush()


def combined(segments):
    """One route's rounds as one run: req/s over all of them, p50 weighted by requests, the highest p99 of any round,
    CPU per request over all requests."""
    total = sum(s[0] for s in segments)
    return (total / len(segments), sum(s[1] * s[0] for s in segments) / total, max(s[2] for s in segments),
            sum(s[3] for s in segments), sum(s[4] * s[0] for s in segments) / total)


print(f"wrk -t1 -c{CONNECTIONS}, a fresh token per request; each route {ROUNDS} × {SEGMENT} s, the routes in turn, "
      "after a warm-up that moves every purchase once and runs each route\n")
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

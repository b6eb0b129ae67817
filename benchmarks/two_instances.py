#!/usr/bin/env python3
"""One and two `redeem serve` processes on one PostgreSQL database: Customer Info and redemptions (a fresh token per
request), with the same total load (32 connections: all on the one instance, or 16 on each of the two, from two wrk
processes at once). Prints throughput (the sum) and p99 (the worse of the two). On this 2-core machine the servers, wrk
and PostgreSQL share the cores, so a second instance cannot add capacity here; the run shows what sharing one database
costs, and docs/scaling.md sizes real deployments. Needs REDEEM_BENCH_POSTGRES_URL."""
import contextlib, json, os, re, subprocess, sys, tempfile, urllib.request, uuid

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import DURATION, GENEROUS_LIMITS, HERE, cli, postgres_database, serve  # noqa: E402

TOTAL = int(os.environ.get("REDEEM_BENCH_CONNECTIONS", "32"))


def start_wrk(url, connections, script=None, env=None, headers=()):
    args = ["wrk", "-t1", f"-c{connections}", f"-d{DURATION}s", "--latency"]
    for header in headers:
        args += ["-H", header]
    if script:
        args += ["-s", os.path.join(HERE, script)]
    return subprocess.Popen([*args, url], stdout=subprocess.PIPE, text=True, env={**os.environ, **(env or {})})


def result(process):
    out = process.communicate()[0]
    rps = float(re.search(r"Requests/sec:\s+([\d.]+)", out).group(1))
    value, unit = re.search(r"\s99%\s+([\d.]+)(us|ms|s)", out).groups()
    bad = re.search(r"Non-2xx or 3xx responses: (\d+)", out)
    return rps, float(value) * {"us": 0.001, "ms": 1, "s": 1000}[unit], int(bad.group(1)) if bad else 0


def together(runs):
    """Starts every wrk at once; returns (summed req/s, worst p99, non-2xx)."""
    results = [result(process) for process in [start_wrk(*run[:2], **run[2]) for run in runs]]
    return sum(r[0] for r in results), max(r[1] for r in results), sum(r[2] for r in results)


def main():
    pg = os.environ.get("REDEEM_BENCH_POSTGRES_URL")
    if not pg:
        raise SystemExit("REDEEM_BENCH_POSTGRES_URL is not set")
    with postgres_database(pg, "redeem_two") as url, tempfile.TemporaryDirectory() as tmp:
        env = {"REDEEM_DATABASE_URL": url}
        cli(["migrate"], env)
        app = json.loads(cli(["apps", "create", "--name", "Bench", "--json"], env))
        cli(["products", "create", "--app", app["id"], "--id", "lifetime", "--type", "non_consumable", "--entitlement", "pro"], env)
        tokens = os.path.join(tmp, "tokens.txt")
        cli(["bench", "seed", "--app", app["id"], "--product", "lifetime", "--purchases", "10000", "--tokens", "130000",
             "--keep", "120000", "--out", tokens], env)
        lines = open(tokens).read().split()
        parts = []
        for n in range(3):
            path = os.path.join(tmp, f"tokens-{n}.txt")
            with open(path, "w") as f:
                f.write("\n".join(lines[n * 40000:(n + 1) * 40000]) + "\n")
            parts.append(path)
        key, secret = app["keys"]["public_production"], app["keys"]["secret"]
        auth = [f"Authorization: Bearer {key}"]
        rows = []
        with serve(env, GENEROUS_LIMITS) as one:
            request = urllib.request.Request(one + "/v1/purchases", method="POST", data=json.dumps(
                {"app_user_id": "info-user", "product_id": "lifetime"}).encode())
            for name, value in [("Authorization", f"Bearer {secret}"), ("Content-Type", "application/json"), ("Idempotency-Key", str(uuid.uuid4()))]:
                request.add_header(name, value)
            urllib.request.urlopen(request).read()
            info = "/v1/subscribers/info-user"
            together([(one + "/health", TOTAL, {})])  # warm-up
            rows.append(("1", "GET /health", together([(one + "/health", TOTAL, {})])))
            rows.append(("1", "Customer Info", together([(one + info, TOTAL, {"headers": auth})])))
            rows.append(("1", "redemption", together([(one, TOTAL, {"script": "redeem_tokens.lua", "env": {
                "TOKENS": parts[0], "KEY": key, "USERS": "one-"}})])))
            with serve(env, GENEROUS_LIMITS) as two:
                half = TOTAL // 2
                rows.append(("2", "GET /health", together([(one + "/health", half, {}), (two + "/health", half, {})])))
                rows.append(("2", "Customer Info", together([(one + info, half, {"headers": auth}), (two + info, half, {"headers": auth})])))
                rows.append(("2", "redemption", together([
                    (one, half, {"script": "redeem_tokens.lua", "env": {"TOKENS": parts[1], "KEY": key, "USERS": "twoa-"}}),
                    (two, half, {"script": "redeem_tokens.lua", "env": {"TOKENS": parts[2], "KEY": key, "USERS": "twob-"}})])))
    print(f"wrk -t1, {TOTAL} connections in all, -d{DURATION}s; PostgreSQL, one database\n")
    print("| instances | route | req/s (sum) | p99 ms (worst) |")
    print("|---|---|---|---|")
    for instances, route, (rps, p99, bad) in rows:
        note = f" ({bad} non-2xx)" if bad else ""
        print(f"| {instances} | {route} | {rps:,.0f}{note} | {p99:.2f} |")


main()

#!/usr/bin/env python3
"""Benchmarks successful redemptions (a fresh token per request, with the real association and grant) against a
baseline route that runs a single UPDATE … RETURNING on the same engine, in the same run, with wrk on loopback.
Runs at two token-table sizes (REDEEM_BENCH_SMALL, default 10,000; REDEEM_BENCH_LARGE, default 10,000,000; 0 skips one), on
SQLite and (with REDEEM_BENCH_POSTGRES_URL) PostgreSQL; REDEEM_BENCH_BACKENDS=sqlite or postgres runs one. Prints req/s, p50 and p99
and the ratio."""
import json, os, re, socket, subprocess, sys, tempfile, time, urllib.request, uuid

BIN = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else ".build/release/redeem")
HERE = os.path.dirname(os.path.abspath(__file__))
DURATION = int(os.environ.get("REDEEM_BENCH_SECONDS", "8"))
CONNECTIONS = os.environ.get("REDEEM_BENCH_CONNECTIONS", "32")
SIZES = [int(os.environ.get("REDEEM_BENCH_SMALL", "10000")), int(os.environ.get("REDEEM_BENCH_LARGE", "10000000"))]
SIZES = [size for size in SIZES if size > 0]  # 0 skips a size
BACKENDS = os.environ.get("REDEEM_BENCH_BACKENDS", "sqlite,postgres").split(",")
KEEP = int(os.environ.get("REDEEM_BENCH_KEEP", "150000"))  # enough fresh tokens for one run


def cli(args, env):
    return subprocess.run([BIN, *args], capture_output=True, text=True, env={**os.environ, **env}, check=True).stdout


def wrk(url, key, tokens, route):
    env = {**os.environ, "TOKENS": tokens, "KEY": key, "ROUTE": route}
    out = subprocess.run(["wrk", "-t1", f"-c{CONNECTIONS}", f"-d{DURATION}s", "--latency", "-s", os.path.join(HERE, "redeem_tokens.lua"), url],
                         capture_output=True, text=True, check=True, env=env).stdout
    rps = float(re.search(r"Requests/sec:\s+([\d.]+)", out).group(1))
    bad = re.search(r"Non-2xx or 3xx responses: (\d+)", out)

    def percentile(p):
        value, unit = re.search(rf"\s{p}%\s+([\d.]+)(us|ms|s)", out).groups()
        return float(value) * {"us": 0.001, "ms": 1, "s": 1000}[unit]
    return rps, percentile(50), percentile(99), int(bad.group(1)) if bad else 0


def run(label, database_url, size):
    env = {"REDEEM_DATABASE_URL": database_url}
    app = json.loads(cli(["apps", "create", "--name", "Bench", "--json"], env))
    cli(["products", "create", "--app", app["id"], "--id", "lifetime", "--type", "non_consumable", "--entitlement", "pro", "--json"], env)
    with tempfile.TemporaryDirectory() as tmp:
        tokens = os.path.join(tmp, "tokens.txt")
        started = time.time()
        # `size` tokens stay stored besides the fresh ones the run uses.
        cli(["bench", "seed", "--app", app["id"], "--product", "lifetime", "--purchases", str(min(size, 10000)),
             "--tokens", str(size + KEEP), "--keep", str(KEEP), "--out", tokens], env)
        seeded = time.time() - started
        with open(tokens) as f:
            lines = f.read().split()
        half = len(lines) // 2
        baseline_tokens, redeem_tokens = os.path.join(tmp, "baseline.txt"), os.path.join(tmp, "redeem.txt")
        with open(baseline_tokens, "w") as f:
            f.write("\n".join(lines[:half]) + "\n")
        with open(redeem_tokens, "w") as f:
            f.write("\n".join(lines[half:]) + "\n")
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
        # Limits stay on (each request still counts its hits) but high enough not to refuse the load.
        server = subprocess.Popen([BIN, "serve", "--port", str(port), "--log-level", "error", "--benchmark-routes",
                                   "--rate-limit-per-ip", "100000000", "--rate-limit-per-user", "1000"],
                                  env={**os.environ, **env}, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        base = f"http://127.0.0.1:{port}"
        try:
            for _ in range(100):
                try:
                    urllib.request.urlopen(base + "/health").read()
                    break
                except OSError:
                    time.sleep(0.1)
            baseline = wrk(base, app["keys"]["public_sandbox"], baseline_tokens, "/v1/benchmark/baseline")
            redeem = wrk(base, app["keys"]["public_sandbox"], redeem_tokens, "/v1/subscribers/redeem_purchase")
        finally:
            server.terminate()
            server.wait()
    print(f"| {label} | {size:,} | baseline UPDATE … RETURNING | {baseline[0]:,.0f} | {baseline[1]:.2f} | {baseline[2]:.2f} | | {seeded:.0f} s |")
    print(f"| {label} | {size:,} | redemption | {redeem[0]:,.0f} | {redeem[1]:.2f} | {redeem[2]:.2f} | {redeem[0] / baseline[0]:.2f}× | |")
    if redeem[3] or baseline[3]:
        print(f"  (non-2xx: baseline {baseline[3]}, redemption {redeem[3]} — token file exhausted or errors)")
    sys.stdout.flush()


print(f"wrk -t1 -c{CONNECTIONS} -d{DURATION}s, a fresh token per request\n")
print("| backend | tokens stored | route | req/s | p50 ms | p99 ms | ratio | seeding |")
print("|---|---|---|---|---|---|---|---|")
for size in SIZES if "sqlite" in BACKENDS else []:
    with tempfile.TemporaryDirectory() as tmp:
        run("SQLite", f"sqlite://{tmp}/bench.sqlite", size)
pg = os.environ.get("REDEEM_BENCH_POSTGRES_URL")
if pg and "postgres" in BACKENDS:
    for size in SIZES:
        name = "redeem_bench_" + uuid.uuid4().hex[:8]
        subprocess.run(["psql", pg, "-qc", f"CREATE DATABASE {name}"], check=True)
        try:
            run("PostgreSQL", pg.rsplit("/", 1)[0] + "/" + name, size)
        finally:
            subprocess.run(["psql", pg, "-qc", f"DROP DATABASE IF EXISTS {name} WITH (FORCE)"], check=True)

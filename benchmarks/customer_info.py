#!/usr/bin/env python3
"""Benchmarks GET /v1/subscribers/{id} against GET /health in the same run, with wrk on loopback,
on SQLite and (when REDEEM_BENCH_POSTGRES_URL is set) PostgreSQL. Prints req/s, p50, p99 and the ratio."""
import json, os, re, socket, subprocess, sys, tempfile, time, urllib.request, uuid

BIN = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else ".build/release/redeem")
DURATION = os.environ.get("REDEEM_BENCH_DURATION", "10s")
CONNECTIONS = os.environ.get("REDEEM_BENCH_CONNECTIONS", "32")


def cli(args, env):
    out = subprocess.run([BIN, *args, "--json"], capture_output=True, text=True, env={**os.environ, **env}, check=True)
    return json.loads(out.stdout)


def post(url, key, body, idempotency):
    request = urllib.request.Request(url, method="POST", data=json.dumps(body).encode())
    request.add_header("Authorization", f"Bearer {key}")
    request.add_header("Content-Type", "application/json")
    request.add_header("Idempotency-Key", idempotency)
    with urllib.request.urlopen(request) as response:
        return json.loads(response.read())


def wrk(url, key=None):
    args = ["wrk", "-t1", f"-c{CONNECTIONS}", f"-d{DURATION}", "--latency", url]
    if key:
        args[1:1] = ["-H", f"Authorization: Bearer {key}"]
    out = subprocess.run(args, capture_output=True, text=True, check=True).stdout
    rps = float(re.search(r"Requests/sec:\s+([\d.]+)", out).group(1))
    errors = re.search(r"Non-2xx or 3xx responses: (\d+)", out)
    if errors:
        raise SystemExit(f"{url}: {errors.group(1)} non-2xx responses\n{out}")

    def percentile(p):
        value, unit = re.search(rf"\s{p}%\s+([\d.]+)(us|ms|s)", out).groups()
        return float(value) * {"us": 0.001, "ms": 1, "s": 1000}[unit]
    return rps, percentile(50), percentile(99)


def run(label, database_url):
    env = {"REDEEM_DATABASE_URL": database_url}
    app = cli(["apps", "create", "--name", "Bench"], env)
    for pid, kind, period, ents in [("monthly", "subscription", "P1M", ["pro"]), ("yearly", "subscription", "P1Y", ["pro", "cloud"]),
                                     ("weekly", "subscription", "P1W", ["ads_free"]), ("lifetime", "non_consumable", None, ["pro", "themes"]),
                                     ("coins", "consumable", None, [])]:
        args = ["products", "create", "--app", app["id"], "--id", pid, "--type", kind] + (["--period", period] if period else [])
        for e in ents:
            args += ["--entitlement", e]
        cli(args, env)
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    server = subprocess.Popen([BIN, "serve", "--port", str(port), "--log-level", "warning"], env={**os.environ, **env},
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    base = f"http://127.0.0.1:{port}"
    try:
        for _ in range(100):
            try:
                urllib.request.urlopen(base + "/health").read()
                break
            except OSError:
                time.sleep(0.1)
        for product in ["monthly", "yearly", "weekly", "lifetime", "coins", "coins"]:
            post(base + "/v1/purchases", app["keys"]["secret"], {"app_user_id": "bench-user", "product_id": product}, str(uuid.uuid4()))
        info_url = base + "/v1/subscribers/bench-user"
        info = json.loads(urllib.request.urlopen(urllib.request.Request(info_url, headers={"Authorization": "Bearer " + app["keys"]["public_production"]})).read())
        assert len(info["subscriber"]["subscriptions"]) == 3 and len(info["subscriber"]["entitlements"]) == 4, info
        wrk(base + "/health")  # warm-up
        health = wrk(base + "/health")
        customer = wrk(info_url, app["keys"]["public_production"])
    finally:
        server.terminate()
        server.wait()
    print(f"| {label} | GET /health | {health[0]:,.0f} | {health[1]:.2f} | {health[2]:.2f} | |")
    print(f"| {label} | GET /v1/subscribers/{{id}} | {customer[0]:,.0f} | {customer[1]:.2f} | {customer[2]:.2f} | {customer[0] / health[0]:.2f}× |")
    sys.stdout.flush()


print(f"wrk -t1 -c{CONNECTIONS} -d{DURATION}; customer with 3 subscriptions, 1 lifetime, 2 consumables, 4 entitlements\n")
print("| backend | route | req/s | p50 ms | p99 ms | ratio to /health |")
print("|---|---|---|---|---|---|")
with tempfile.TemporaryDirectory() as tmp:
    run("SQLite", f"sqlite://{tmp}/bench.sqlite")
pg = os.environ.get("REDEEM_BENCH_POSTGRES_URL")
if pg:
    name = "redeem_bench_" + uuid.uuid4().hex[:8]
    subprocess.run(["psql", pg, "-qc", f"CREATE DATABASE {name}"], check=True)
    try:
        run("PostgreSQL", pg.rsplit("/", 1)[0] + "/" + name)
    finally:
        subprocess.run(["psql", pg, "-qc", f"DROP DATABASE IF EXISTS {name} WITH (FORCE)"], check=True)

#!/usr/bin/env python3
"""What `--metrics-port` costs: Customer Info and redemption with metrics off, and on with /metrics scraped every
second (Prometheus scrapes every 15 s by default), in the same run, in the order off, on, on, off so drift cancels.
SQLite, and PostgreSQL with REDEEM_BENCH_POSTGRES_URL. Prints req/s, p99 and the ratio on/off."""
import json, os, socket, sys, tempfile, threading, urllib.request, uuid

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import CONNECTIONS, DURATION, GENEROUS_LIMITS, cli, postgres_database, serve, wrk  # noqa: E402

TOKENS_PER_RUN = int(os.environ.get("REDEEM_BENCH_KEEP", "60000"))


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def scraper(url, stop):
    scraped = 0
    while not stop.wait(1.0):
        urllib.request.urlopen(url, timeout=10).read()
        scraped += 1
    return scraped


def one(env, app, info_url_path, tokens, metrics):
    extra = list(GENEROUS_LIMITS)
    port = free_port()
    if metrics:
        extra += ["--metrics-port", str(port)]
    stop = threading.Event()
    with serve(env, extra) as base:
        thread = None
        if metrics:
            thread = threading.Thread(target=scraper, args=(f"http://127.0.0.1:{port}/metrics", stop), daemon=True)
            thread.start()
        key = app["keys"]["public_production"]
        info = wrk(base + info_url_path, headers=[f"Authorization: Bearer {key}"])
        redeem = wrk(base, "redeem_tokens.lua", {"TOKENS": tokens, "KEY": app["keys"]["public_sandbox"], "ROUTE": "/v1/subscribers/redeem_purchase"})
        stop.set()
        if thread:
            thread.join()
    return info, redeem


def run(label, database_url):
    env = {"REDEEM_DATABASE_URL": database_url}
    cli(["migrate"], env)
    app = json.loads(cli(["apps", "create", "--name", "Bench", "--json"], env))
    cli(["products", "create", "--app", app["id"], "--id", "lifetime", "--type", "non_consumable", "--entitlement", "pro", "--json"], env)
    with tempfile.TemporaryDirectory() as tmp:
        all_tokens = os.path.join(tmp, "tokens.txt")
        cli(["bench", "seed", "--app", app["id"], "--product", "lifetime", "--purchases", "1000", "--tokens", str(4 * TOKENS_PER_RUN),
             "--keep", str(4 * TOKENS_PER_RUN), "--out", all_tokens], env)
        with open(all_tokens) as f:
            lines = f.read().split()
        files = []
        for i in range(4):
            path = os.path.join(tmp, f"tokens{i}.txt")
            with open(path, "w") as f:
                f.write("\n".join(lines[i * TOKENS_PER_RUN:(i + 1) * TOKENS_PER_RUN]) + "\n")
            files.append(path)
        user = "bench-" + uuid.uuid4().hex[:6]
        with serve(env, GENEROUS_LIMITS) as base:
            request = urllib.request.Request(base + "/v1/purchases", method="POST", data=json.dumps({"app_user_id": user, "product_id": "lifetime"}).encode())
            request.add_header("Authorization", "Bearer " + app["keys"]["secret"])
            request.add_header("Content-Type", "application/json")
            request.add_header("Idempotency-Key", str(uuid.uuid4()))
            urllib.request.urlopen(request).read()
        results = {False: [], True: []}
        for i, metrics in enumerate([False, True, True, False]):
            results[metrics].append(one(env, app, f"/v1/subscribers/{user}", files[i], metrics))
    for index, route in [(0, "Customer Info"), (1, "redemption")]:
        off = [r[index] for r in results[False]]
        on = [r[index] for r in results[True]]
        off_rps, on_rps = sum(r[0] for r in off) / 2, sum(r[0] for r in on) / 2
        off_p99, on_p99 = sum(r[2] for r in off) / 2, sum(r[2] for r in on) / 2
        bad = sum(r[3] for r in off + on)
        runs = " / ".join(f"{r[0]:,.0f}" for r in [off[0], on[0], on[1], off[1]])
        print(f"| {label} | {route} | {off_rps:,.0f} | {on_rps:,.0f} | {on_rps / off_rps:.2f}× | {off_p99:.2f} | {on_p99:.2f} | {runs} |"
              + (f" ({bad} non-2xx)" if bad else ""))
    sys.stdout.flush()


print(f"wrk -t1 -c{CONNECTIONS} -d{DURATION}s per run; runs off, on, on, off; /metrics scraped every second while on\n")
print("| backend | route | req/s metrics off | req/s metrics on | ratio on/off | p99 ms off | p99 ms on | runs: off / on / on / off |")
print("|---|---|---|---|---|---|---|---|")
with tempfile.TemporaryDirectory() as tmp:
    run("SQLite", f"sqlite://{tmp}/bench.sqlite")
pg = os.environ.get("REDEEM_BENCH_POSTGRES_URL")
if pg:
    with postgres_database(pg, "redeem_bench") as url:
        run("PostgreSQL", url)

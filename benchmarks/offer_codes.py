#!/usr/bin/env python3
"""Offer codes: (1) generating, storing and exporting 1,000,000 one-time codes with `redeem codes generate`;
(2) custom-code redemptions (each request a new app user, so each is a real redemption with its purchase, quota count,
one-per-customer record and webhook event) against the redemption benchmark's single-UPDATE baseline, in the same run,
with wrk on loopback. SQLite, and PostgreSQL when REDEEM_BENCH_POSTGRES_URL is set."""
import json, os, re, socket, subprocess, sys, tempfile, time, urllib.request, uuid

BIN = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else ".build/release/redeem")
HERE = os.path.dirname(os.path.abspath(__file__))
DURATION = int(os.environ.get("REDEEM_BENCH_SECONDS", "8"))
CONNECTIONS = os.environ.get("REDEEM_BENCH_CONNECTIONS", "32")
CODES = int(os.environ.get("REDEEM_BENCH_CODES", "1000000"))


def cli(args, env):
    return subprocess.run([BIN, *args], capture_output=True, text=True, env={**os.environ, **env}, check=True).stdout


def wrk(url, script, env):
    out = subprocess.run(["wrk", "-t1", f"-c{CONNECTIONS}", f"-d{DURATION}s", "--latency", "-s", os.path.join(HERE, script), url],
                         capture_output=True, text=True, check=True, env={**os.environ, **env}).stdout
    rps = float(re.search(r"Requests/sec:\s+([\d.]+)", out).group(1))
    bad = re.search(r"Non-2xx or 3xx responses: (\d+)", out)

    def percentile(p):
        value, unit = re.search(rf"\s{p}%\s+([\d.]+)(us|ms|s)", out).groups()
        return float(value) * {"us": 0.001, "ms": 1, "s": 1000}[unit]
    return rps, percentile(50), percentile(99), int(bad.group(1)) if bad else 0


def setup(env):
    app = json.loads(cli(["apps", "create", "--name", "Bench", "--json"], env))
    cli(["products", "create", "--app", app["id"], "--id", "monthly", "--type", "subscription", "--period", "P1M",
         "--entitlement", "pro", "--json"], env)
    offer = json.loads(cli(["offers", "create", "--app", app["id"], "--product", "monthly", "--reference-name", "Bench trial",
                            "--payment-mode", "free_trial", "--duration", "P1M", "--eligibility", "new", "--json"], env))
    return app, offer


def generation(label, database_url):
    env = {"REDEEM_DATABASE_URL": database_url}
    _, offer = setup(env)
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "codes.csv")
        started = time.time()
        printed = cli(["codes", "generate", "--offer", offer["id"], "--count", str(CODES), "--out", out, "--quiet",
                       "--public-url", "https://redeem.example.com"], env)
        total = time.time() - started
        inner = float(re.search(r"in ([\d.]+) s", printed).group(1))
        with open(out) as f:
            lines = sum(1 for _ in f) - 1
    assert lines == CODES, f"{lines} codes in the file"
    print(f"| {label} | {CODES:,} | {inner:.1f} s | {total:.1f} s |")
    sys.stdout.flush()


def redemption(label, database_url):
    env = {"REDEEM_DATABASE_URL": database_url}
    app, offer = setup(env)
    cli(["codes", "create-custom", "--offer", offer["id"], "--code", "BENCH2026", "--max-redemptions", "1000000"], env)
    with tempfile.TemporaryDirectory() as tmp:
        tokens = os.path.join(tmp, "tokens.txt")
        cli(["bench", "seed", "--app", app["id"], "--product", "monthly", "--purchases", "100", "--tokens", "150000",
             "--keep", "150000", "--out", tokens], env)
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
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
            key = app["keys"]["public_sandbox"]
            baseline = wrk(base, "redeem_tokens.lua", {"TOKENS": tokens, "KEY": key, "ROUTE": "/v1/benchmark/baseline"})
            redeem = wrk(base, "redeem_offer_code.lua", {"CODE": "BENCH2026", "KEY": key, "USER_PREFIX": uuid.uuid4().hex[:8]})
        finally:
            server.terminate()
            server.wait()
    print(f"| {label} | baseline UPDATE … RETURNING | {baseline[0]:,.0f} | {baseline[1]:.2f} | {baseline[2]:.2f} | |")
    print(f"| {label} | custom-code redemption | {redeem[0]:,.0f} | {redeem[1]:.2f} | {redeem[2]:.2f} | {redeem[0] / baseline[0]:.2f}× |")
    if redeem[3] or baseline[3]:
        print(f"  (non-2xx: baseline {baseline[3]}, redemption {redeem[3]})")
    sys.stdout.flush()


with tempfile.TemporaryDirectory() as tmp:
    backends = [("SQLite", lambda name: f"sqlite://{os.path.join(tmp, name + '.sqlite')}")]
    pg = os.environ.get("REDEEM_BENCH_POSTGRES_URL")
    if pg:
        def pg_db(name):
            db = f"bench_{name}_{uuid.uuid4().hex[:8]}"
            subprocess.run(["psql", pg, "-qc", f"CREATE DATABASE {db}"], check=True, capture_output=True)
            return pg.rsplit("/", 1)[0] + "/" + db
        backends.append(("PostgreSQL", pg_db))
    print("One-time codes: generated, hashed, written to CSV and stored (one transaction)\n")
    print("| backend | codes | generate + store + export | whole command |")
    print("|---|---|---|---|")
    for label, url in backends:
        generation(label, url("gen"))
    print(f"\nCustom-code redemptions vs the single-statement baseline (wrk -t1 -c{CONNECTIONS} -d{DURATION}s)\n")
    print("| backend | route | req/s | p50 ms | p99 ms | ratio |")
    print("|---|---|---|---|---|---|")
    for label, url in backends:
        redemption(label, url("redeem"))

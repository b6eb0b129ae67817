#!/usr/bin/env python3
"""Offer codes: (1) generating, storing and exporting 1,000,000 one-time codes with `redeem codes generate`;
(2) custom-code redemptions (each request a new app user, so each is a real redemption with its purchase, quota count,
one-per-customer record and CustomerInfo answer) against the redemption benchmark's single-UPDATE baseline, in the same
run, with wrk on loopback. SQLite, and PostgreSQL when REDEEM_BENCH_POSTGRES_URL is set; REDEEM_BENCH_BACKENDS=sqlite or
postgres generates on one. REDEEM_BENCH_BEFORE=<another redeem binary> alternates its generation runs with this binary's
(run by run, so the same load falls on both) and prints both medians."""
import contextlib, json, os, re, statistics, subprocess, sys, tempfile, time, uuid

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import BIN, CONNECTIONS, DURATION, GENEROUS_LIMITS, cli, postgres_database, serve, wrk  # noqa: E402

CODES = int(os.environ.get("REDEEM_BENCH_CODES", "1000000"))


def setup(env):
    cli(["migrate"], env)
    app = json.loads(cli(["apps", "create", "--name", "Bench", "--json"], env))
    cli(["products", "create", "--app", app["id"], "--id", "monthly", "--type", "subscription", "--period", "P1M",
         "--entitlement", "pro", "--json"], env)
    offer = json.loads(cli(["offers", "create", "--app", app["id"], "--product", "monthly", "--reference-name", "Bench trial",
                            "--payment-mode", "free_trial", "--duration", "P1M", "--eligibility", "new", "--json"], env))
    return app, offer


RUNS = int(os.environ.get("REDEEM_BENCH_RUNS", "5"))
BEFORE = os.environ.get("REDEEM_BENCH_BEFORE")
BACKENDS = os.environ.get("REDEEM_BENCH_BACKENDS", "sqlite,postgres").split(",")


def generate_once(database_url, binary=BIN):
    """One `codes generate` of CODES codes into a fresh database: (seconds it reports, whole command's seconds, peak RSS
    in MB from /usr/bin/time -v)."""
    env = {"REDEEM_DATABASE_URL": database_url}
    _, offer = setup(env)
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "codes.csv")
        started = time.time()
        run = subprocess.run(["/usr/bin/time", "-v", binary, "codes", "generate", "--offer", offer["id"], "--count", str(CODES),
                              "--out", out, "--quiet", "--public-url", "https://redeem.example.com"],
                             capture_output=True, text=True, env={**os.environ, **env}, check=True)
        total = time.time() - started
        inner = float(re.search(r"in ([\d.]+) s", run.stdout).group(1))
        rss = int(re.search(r"Maximum resident set size \(kbytes\): (\d+)", run.stderr).group(1)) / 1024
        with open(out) as f:
            lines = sum(1 for _ in f) - 1
    assert lines == CODES, f"{lines} codes in the file"
    return inner, total, rss


def generation(label, make_database):
    """RUNS runs, each into a fresh database (with REDEEM_BENCH_BEFORE, a run of each binary in turn); prints each run
    and the medians."""
    binaries = [(label, BIN)] if not BEFORE else [(f"{label}, before", os.path.abspath(BEFORE)), (f"{label}, after", BIN)]
    runs = {name: [] for name, _ in binaries}
    for _ in range(RUNS):
        for name, binary in binaries:
            with make_database() as url:
                runs[name].append(generate_once(url, binary))
    for name, _ in binaries:
        for inner, total, rss in runs[name]:
            print(f"  ({name} run: {inner:.1f} s reported, {total:.2f} s whole command, {rss:.0f} MB peak RSS)")
    for name, _ in binaries:
        median = [statistics.median(column) for column in zip(*runs[name])]
        print(f"| {name} | {CODES:,} | {median[0]:.1f} s | {median[1]:.2f} s | {median[2]:.0f} MB |")
    sys.stdout.flush()


@contextlib.contextmanager
def sqlite_database():
    with tempfile.TemporaryDirectory() as tmp:
        yield f"sqlite://{tmp}/gen.sqlite"


def redemption(label, database_url):
    env = {"REDEEM_DATABASE_URL": database_url}
    app, offer = setup(env)
    cli(["codes", "create-custom", "--offer", offer["id"], "--code", "BENCH2026", "--max-redemptions", "1000000"], env)
    with tempfile.TemporaryDirectory() as tmp:
        tokens = os.path.join(tmp, "tokens.txt")
        cli(["bench", "seed", "--app", app["id"], "--product", "monthly", "--purchases", "100", "--tokens", "150000",
             "--keep", "150000", "--out", tokens], env)
        key = app["keys"]["public_sandbox"]
        with serve(env, GENEROUS_LIMITS) as base:
            baseline = wrk(base, "redeem_tokens.lua", {"TOKENS": tokens, "KEY": key, "ROUTE": "/v1/benchmark/baseline"})
            redeem = wrk(base, "redeem_offer_code.lua", {"CODE": "BENCH2026", "KEY": key, "USER_PREFIX": uuid.uuid4().hex[:8]})
    print(f"| {label} | baseline UPDATE … RETURNING | {baseline[0]:,.0f} | {baseline[1]:.2f} | {baseline[2]:.2f} | |")
    print(f"| {label} | custom-code redemption | {redeem[0]:,.0f} | {redeem[1]:.2f} | {redeem[2]:.2f} | {redeem[0] / baseline[0]:.2f}× |")
    if redeem[3] or baseline[3]:
        print(f"  (non-2xx: baseline {baseline[3]}, redemption {redeem[3]})")
    sys.stdout.flush()


def each_backend(name, body):
    with tempfile.TemporaryDirectory() as tmp:
        body("SQLite", f"sqlite://{tmp}/{name}.sqlite")
    pg = os.environ.get("REDEEM_BENCH_POSTGRES_URL")
    if pg:
        with postgres_database(pg, f"offer_bench_{name}") as url:
            body("PostgreSQL", url)


print(f"One-time codes: generated, hashed, written to CSV and stored (one transaction); median of {RUNS} runs\n")
print("| backend | codes | generate + store + export | whole command | peak RSS |")
print("|---|---|---|---|---|")
if "sqlite" in BACKENDS:
    generation("SQLite", sqlite_database)
if os.environ.get("REDEEM_BENCH_POSTGRES_URL") and "postgres" in BACKENDS:
    generation("PostgreSQL", lambda: postgres_database(os.environ["REDEEM_BENCH_POSTGRES_URL"], "offer_bench_gen"))
if os.environ.get("REDEEM_BENCH_ONLY_GENERATION"):
    sys.exit(0)
print(f"\nCustom-code redemptions vs the single-statement baseline (wrk -t1 -c{CONNECTIONS} -d{DURATION}s)\n")
print("| backend | route | req/s | p50 ms | p99 ms | ratio |")
print("|---|---|---|---|---|---|")
each_backend("redeem", redemption)

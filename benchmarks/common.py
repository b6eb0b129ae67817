"""What the benchmark scripts share: the binary, wrk runs and their figures, a server on loopback, throwaway databases."""
import contextlib, json, os, re, socket, subprocess, sys, time, urllib.request, uuid

BIN = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else ".build/release/redeem")
HERE = os.path.dirname(os.path.abspath(__file__))
DURATION = int(os.environ.get("REDEEM_BENCH_SECONDS", "8"))
CONNECTIONS = os.environ.get("REDEEM_BENCH_CONNECTIONS", "32")
# Limits stay on (each request still counts its hits) but high enough not to refuse the load.
GENEROUS_LIMITS = ["--rate-limit-per-ip", "100000000", "--rate-limit-per-user", "1000"]


def cli(args, env):
    return subprocess.run([BIN, *args], capture_output=True, text=True, env={**os.environ, **env}, check=True).stdout


# The `redeem serve` processes running now, whose CPU time `wrk` counts.
SERVERS = []


def _cpu_processes():
    """The running servers and every PostgreSQL process on this machine."""
    pids = list(SERVERS)
    for entry in os.listdir("/proc"):
        try:
            if entry.isdigit() and open(f"/proc/{entry}/comm").read().strip() == "postgres":
                pids.append(int(entry))
        except OSError:
            pass
    return pids


def _cpu_ticks(pids):
    """User and system CPU time of each process (clock ticks), for those still running."""
    ticks = {}
    for pid in pids:
        try:
            fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
            ticks[pid] = int(fields[11]) + int(fields[12])
        except (OSError, IndexError):
            pass
    return ticks


def wrk(url, script=None, env=None, headers=(), seconds=None):
    """Runs wrk (with a Lua script from this folder, if given) for `seconds` (default REDEEM_BENCH_SECONDS); returns
    (req/s, p50 ms, p99 ms, non-2xx responses, CPU ms per request). The CPU is the servers' and PostgreSQL's, from
    /proc: what a request costs, which throughput hides when a route leaves a core idle."""
    pids = _cpu_processes()
    before = _cpu_ticks(pids)
    args = ["wrk", "-t1", f"-c{CONNECTIONS}", f"-d{seconds or DURATION}s", "--latency"]
    for header in headers:
        args += ["-H", header]
    if script:
        args += ["-s", os.path.join(HERE, script)]
    out = subprocess.run([*args, url], capture_output=True, text=True, check=True, env={**os.environ, **(env or {})}).stdout
    after = _cpu_ticks(pids)
    ticks = sum(after[pid] - before[pid] for pid in after if pid in before)
    requests = int(re.search(r"(\d+) requests in", out).group(1))
    cpu = ticks / os.sysconf("SC_CLK_TCK") * 1000 / max(requests, 1)
    rps = float(re.search(r"Requests/sec:\s+([\d.]+)", out).group(1))
    bad = re.search(r"Non-2xx or 3xx responses: (\d+)", out)

    def percentile(p):
        value, unit = re.search(rf"\s{p}%\s+([\d.]+)(us|ms|s)", out).groups()
        return float(value) * {"us": 0.001, "ms": 1, "s": 1000}[unit]
    return rps, percentile(50), percentile(99), int(bad.group(1)) if bad else 0, cpu


@contextlib.contextmanager
def serve(env, extra=()):
    """`redeem serve` on a free loopback port, with the benchmark routes; yields its base URL once /health answers."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    server = subprocess.Popen([BIN, "serve", "--port", str(port), "--log-level", "error", "--benchmark-routes", *extra],
                              env={**os.environ, **env}, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    base = f"http://127.0.0.1:{port}"
    SERVERS.append(server.pid)
    try:
        for _ in range(100):
            try:
                urllib.request.urlopen(base + "/health").read()
                break
            except OSError:
                time.sleep(0.1)
        yield base
    finally:
        SERVERS.remove(server.pid)
        server.terminate()
        server.wait()


@contextlib.contextmanager
def postgres_database(server_url, prefix):
    """A fresh database on the PostgreSQL server, dropped afterwards; yields its URL."""
    name = f"{prefix}_{uuid.uuid4().hex[:8]}"
    subprocess.run(["psql", server_url, "-qc", f"CREATE DATABASE {name}"], check=True, capture_output=True)
    try:
        yield server_url.rsplit("/", 1)[0] + "/" + name
    finally:
        subprocess.run(["psql", server_url, "-qc", f"DROP DATABASE IF EXISTS {name} WITH (FORCE)"], check=True, capture_output=True)


def seed_links(env, tmp, purchases, tokens, keep):
    """A fresh database with one app, a lifetime product and `purchases` anonymous web purchases holding `tokens`
    redemption tokens (`keep` of them written out, in round robin over the purchases); returns (app, the kept tokens)."""
    cli(["migrate"], env)
    app = json.loads(cli(["apps", "create", "--name", "Bench", "--json"], env))
    cli(["products", "create", "--app", app["id"], "--id", "lifetime", "--type", "non_consumable", "--entitlement", "pro", "--json"], env)
    out = os.path.join(tmp, "tokens.txt")
    cli(["bench", "seed", "--app", app["id"], "--product", "lifetime", "--purchases", str(purchases), "--tokens", str(tokens),
         "--keep", str(keep), "--out", out], env)
    with open(out) as f:
        return app, f.read().split()

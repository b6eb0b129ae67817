"""What the benchmark scripts share: the binary, wrk runs and their figures, a server on loopback, throwaway databases."""
import contextlib, os, re, socket, subprocess, sys, time, urllib.request, uuid

BIN = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else ".build/release/redeem")
HERE = os.path.dirname(os.path.abspath(__file__))
DURATION = int(os.environ.get("REDEEM_BENCH_SECONDS", "8"))
CONNECTIONS = os.environ.get("REDEEM_BENCH_CONNECTIONS", "32")
# Limits stay on (each request still counts its hits) but high enough not to refuse the load.
GENEROUS_LIMITS = ["--rate-limit-per-ip", "100000000", "--rate-limit-per-user", "1000"]


def cli(args, env):
    return subprocess.run([BIN, *args], capture_output=True, text=True, env={**os.environ, **env}, check=True).stdout


def wrk(url, script=None, env=None, headers=()):
    """Runs wrk (with a Lua script from this folder, if given); returns (req/s, p50 ms, p99 ms, non-2xx responses)."""
    args = ["wrk", "-t1", f"-c{CONNECTIONS}", f"-d{DURATION}s", "--latency"]
    for header in headers:
        args += ["-H", header]
    if script:
        args += ["-s", os.path.join(HERE, script)]
    out = subprocess.run([*args, url], capture_output=True, text=True, check=True, env={**os.environ, **(env or {})}).stdout
    rps = float(re.search(r"Requests/sec:\s+([\d.]+)", out).group(1))
    bad = re.search(r"Non-2xx or 3xx responses: (\d+)", out)

    def percentile(p):
        value, unit = re.search(rf"\s{p}%\s+([\d.]+)(us|ms|s)", out).groups()
        return float(value) * {"us": 0.001, "ms": 1, "s": 1000}[unit]
    return rps, percentile(50), percentile(99), int(bad.group(1)) if bad else 0


@contextlib.contextmanager
def serve(env, extra=()):
    """`redeem serve` on a free loopback port, with the benchmark routes; yields its base URL once /health answers."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    server = subprocess.Popen([BIN, "serve", "--port", str(port), "--log-level", "error", "--benchmark-routes", *extra],
                              env={**os.environ, **env}, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    base = f"http://127.0.0.1:{port}"
    try:
        for _ in range(100):
            try:
                urllib.request.urlopen(base + "/health").read()
                break
            except OSError:
                time.sleep(0.1)
        yield base
    finally:
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

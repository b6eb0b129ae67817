#!/usr/bin/env python3
"""Prometheus metrics from a real `redeem serve --metrics-port`: the listener is on loopback and separate from the
public port, and after a purchase, a redemption, a refused redemption and a rate-limited one, the counters the docs
list have moved. Also the landing page at GET /. Usage: metrics_e2e.py path/to/redeem. Prints 'N passed, M failed'."""
import json, os, re, subprocess, sys, urllib.error, urllib.request, uuid

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from support import check, finish, free_port, http, scratch_dir, wait_healthy  # noqa: E402

BIN = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else ".build/debug/redeem")


def cli(args, env):
    done = subprocess.run([BIN, *args], env=env, capture_output=True, text=True)
    if done.returncode != 0:
        raise RuntimeError(f"{args}: {done.stderr}")
    return done.stdout


def scrape(url):
    with urllib.request.urlopen(url, timeout=10) as response:
        return response.status, response.headers.get("Content-Type", ""), response.read().decode()


def value(text, name, **labels):
    """The sample of `name` whose labels include `labels`; 0 when absent."""
    total = 0.0
    for line in text.splitlines():
        match = re.match(r'^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{(.*)\})? (\S+)$', line)
        if not match or match.group(1) != name:
            continue
        found = dict(re.findall(r'([a-zA-Z_]+)="([^"]*)"', match.group(3) or ""))
        if all(found.get(k) == v for k, v in labels.items()):
            total += float(match.group(4))
    return total


def listening_addresses(port):
    """The IPv4 addresses listening on `port`, from /proc/net/tcp (state 0A is LISTEN)."""
    found = []
    with open("/proc/net/tcp") as f:
        for line in f.readlines()[1:]:
            local, state = line.split()[1], line.split()[3]
            address, hex_port = local.split(":")
            if state == "0A" and int(hex_port, 16) == port:
                found.append(".".join(str(int(address[i:i + 2], 16)) for i in (6, 4, 2, 0)))
    return found


def main():
    workdir = scratch_dir("redeem-metrics-")
    env = {**os.environ, "REDEEM_DATABASE_URL": os.path.join(workdir, "redeem.sqlite")}
    cli(["migrate"], env)
    app = json.loads(cli(["apps", "create", "--name", "Metrics Demo", "--json"], env))
    cli(["products", "create", "--app", app["id"], "--id", "pro", "--type", "non_consumable", "--entitlement", "pro"], env)
    port, metrics_port = free_port(), free_port()
    base, metrics = f"http://127.0.0.1:{port}", f"http://127.0.0.1:{metrics_port}/metrics"
    server = subprocess.Popen([BIN, "serve", "--port", str(port), "--metrics-port", str(metrics_port), "--rate-limit-per-user", "3"],
                              env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        check("serve starts with a metrics listener", wait_healthy(base))
        status, kind, before = scrape(metrics)
        check("GET /metrics answers in Prometheus's text format", status == 200 and kind.startswith("text/plain; version=0.0.4"), kind)
        try:
            urllib.request.urlopen(base + "/metrics", timeout=10)
            public = 200
        except urllib.error.HTTPError as error:
            public = error.code
        check("the public port does not serve /metrics", public == 404, public)
        check("the metrics listener is bound to loopback only", listening_addresses(metrics_port) == ["127.0.0.1"],
              listening_addresses(metrics_port))

        status, granted = http("POST", base + "/v1/purchases", key=app["keys"]["secret"],
                               body={"app_user_id": "web-" + uuid.uuid4().hex[:8], "product_id": "pro", "email": "m@example.com"},
                               headers={"Idempotency-Key": uuid.uuid4().hex})
        token = granted["redemption_https_url"].rsplit("/", 1)[-1]
        status, _ = http("POST", base + "/v1/subscribers/redeem_purchase", key=app["keys"]["public_production"],
                         body={"app_user_id": "phone-1", "redemption_token": token})
        check("the buyer redeems", status == 200, status)
        for _ in range(4):
            http("POST", base + "/v1/subscribers/redeem_purchase", key=app["keys"]["public_production"],
                 body={"app_user_id": "guesser", "redemption_token": "A" * 43})
        _, _, after = scrape(metrics)

        check("redeem_redemptions_total counted the redemption",
              value(after, "redeem_redemptions_total", outcome="redeemed") == 1, re.findall(r"redeem_redemptions_total.*", after))
        check("and the invalid tokens", value(after, "redeem_redemptions_total", outcome="invalid") == 3,
              re.findall(r"redeem_redemptions_total.*", after))
        check("redeem_rate_limited_total counted the guess over the per-user limit",
              value(after, "redeem_rate_limited_total", limit="redeem_user") == 1, re.findall(r"redeem_rate_limited.*", after))
        check("redeem_purchases_total counted the server API's purchase", value(after, "redeem_purchases_total", source="server_api") == 1)
        route = "/v1/subscribers/redeem_purchase"
        check("requests are counted by route pattern and status",
              value(after, "redeem_http_requests_total", route=route, status="200") == 1
              and value(after, "redeem_http_requests_total", route=route, status="429") == 1,
              re.findall(r"redeem_http_requests_total.*redeem_purchase.*", after))
        check("with a latency histogram per route",
              value(after, "redeem_http_request_duration_seconds_count", route=route) == 5
              and value(after, "redeem_http_request_duration_seconds_bucket", route=route, le="+Inf") == 5)
        check("no token or key reaches a label", token not in after and app["keys"]["secret"] not in after and "AAAAAAAA" not in after)
        check("database calls and their waits are timed",
              value(after, "redeem_db_call_seconds_count", kind="write") > value(before, "redeem_db_call_seconds_count", kind="write")
              and value(after, "redeem_db_wait_seconds_count", kind="read") > 0)
        check("the outboxes are reported", "redeem_email_queue_depth" in after and "redeem_webhook_queue_oldest_seconds" in after)

        with urllib.request.urlopen(base + "/", timeout=10) as response:
            landing = (response.status, response.headers["Content-Type"], response.read().decode())
        check("GET / is a landing page with the console and the API document",
              landing[0] == 200 and landing[1].startswith("text/html") and 'href="/console"' in landing[2]
              and 'href="/openapi.json"' in landing[2] and "healthy" in landing[2], landing[:2])
    finally:
        server.terminate()
        server.wait(timeout=20)
    busy = subprocess.run([BIN, "serve", "--port", str(port), "--metrics-port", str(port)], env=env, capture_output=True, text=True, timeout=30)
    check("--metrics-port equal to --port is refused", busy.returncode != 0 and "--metrics-port" in busy.stderr, busy.stderr)
    finish()


main()

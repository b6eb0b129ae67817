#!/usr/bin/env python3
"""Tracing from a real `redeem serve --otlp-endpoint`: a collector on loopback (OTLP/HTTP with JSON) receives one server
span per request, named after the route pattern; a caller's `traceparent` continues its trace; and no token, key or
e-mail address from a URL or body reaches the exported spans. Usage: tracing_e2e.py path/to/redeem."""
import base64, json, os, subprocess, sys, threading, uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from support import HANG_GUARD, check, fetch, finish, free_port, http, scratch_dir, wait_for, wait_healthy  # noqa: E402

BIN = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else ".build/debug/redeem")
received = []  # (path, raw body) of each export


class Collector(BaseHTTPRequestHandler):
    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
        received.append((self.path, self.headers.get("Content-Type", ""), body.decode("utf-8", errors="replace")))
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.end_headers()
        self.wfile.write(b"{}")

    def log_message(self, *args):
        pass


def spans():
    """Every span exported so far, flattened from the OTLP JSON payloads."""
    found = []
    for path, _, body in received:
        for resource in json.loads(body).get("resourceSpans", []):
            for scope in resource.get("scopeSpans", []):
                found.extend(scope.get("spans", []))
    return found


def hex_id(value):
    """An ID as hex: OTLP JSON writes hex, protobuf's JSON mapping (which swift-otel uses) base64."""
    if len(value) == 32 and all(c in "0123456789abcdefABCDEF" for c in value):
        return value.lower()
    return base64.b64decode(value).hex() if value else ""


def cli(args, env):
    done = subprocess.run([BIN, *args], env=env, capture_output=True, text=True)
    if done.returncode != 0:
        raise RuntimeError(f"{args}: {done.stderr}")
    return done.stdout


def main():
    workdir = scratch_dir("redeem-tracing-")
    env = {**os.environ, "REDEEM_DATABASE_URL": os.path.join(workdir, "redeem.sqlite")}
    cli(["migrate"], env)
    app = json.loads(cli(["apps", "create", "--name", "Tracing Demo", "--json"], env))
    cli(["products", "create", "--app", app["id"], "--id", "pro", "--type", "non_consumable", "--entitlement", "pro"], env)
    collector = ThreadingHTTPServer(("127.0.0.1", 0), Collector)
    threading.Thread(target=collector.serve_forever, daemon=True).start()
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    # JSON on the wire so this script can read it; export every 200 ms instead of every 5 s.
    serve_env = {**env, "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL": "http/json", "OTEL_BSP_SCHEDULE_DELAY": "200"}
    bad = subprocess.run([BIN, "serve", "--port", str(port), "--otlp-endpoint", "collector:4318"], env=serve_env,
                         capture_output=True, text=True, timeout=HANG_GUARD)
    check("a malformed OTLP endpoint stops start-up with a clear error", bad.returncode != 0 and "--otlp-endpoint" in bad.stderr,
          bad.stderr[-300:])
    log = open(os.path.join(workdir, "server.log"), "w")
    server = subprocess.Popen([BIN, "serve", "--port", str(port), "--otlp-endpoint", f"http://127.0.0.1:{collector.server_port}"],
                              env=serve_env, stdout=subprocess.DEVNULL, stderr=log)
    try:
        check("serve starts with tracing on", wait_healthy(base, server))
        status, granted = http("POST", base + "/v1/purchases", key=app["keys"]["secret"],
                               body={"app_user_id": "tracer", "product_id": "pro", "email": "traced.buyer@example.com", "is_sandbox": True},
                               headers={"Idempotency-Key": uuid.uuid4().hex})
        token = granted["redemption_https_url"].rsplit("/", 1)[-1]
        status, headers, page = fetch(base + f"/r/{token}")
        check("the link page opens as HTML", status == 200 and headers.get("Content-Type", "").startswith("text/html"), status)
        trace_id = uuid.uuid4().hex
        parent = {"traceparent": f"00-{trace_id}-{uuid.uuid4().hex[:16]}-01"}
        status, _ = http("POST", base + "/v1/subscribers/redeem_purchase", key=app["keys"]["public_production"],
                         body={"app_user_id": "phone", "redemption_token": token}, headers=parent)
        check("the redemption succeeds", status == 200, status)
        wanted = {"POST /v1/purchases", "GET /r/{token}", "POST /v1/subscribers/redeem_purchase"}
        wait_for(lambda: wanted <= {s["name"] for s in spans()})  # exported every 200 ms
        names = {s["name"] for s in spans()}
        check("each request is a server span named after its route pattern", wanted <= names, sorted(names))
        check("spans are sent to the collector's /v1/traces as OTLP JSON",
              received and all(path == "/v1/traces" and "json" in kind for path, kind, _ in received), [(p, k) for p, k, _ in received][:3])
        redemption = next((s for s in spans() if s["name"] == "POST /v1/subscribers/redeem_purchase"), {})
        attributes = {a["key"]: a["value"] for a in redemption.get("attributes", [])}
        check("the span carries the route and the status", attributes.get("http.route", {}).get("stringValue") == "/v1/subscribers/redeem_purchase"
              and str(attributes.get("http.response.status_code", {}).get("intValue")) == "200", attributes)
        check("a caller's traceparent continues its trace", hex_id(redemption.get("traceId", "")) == trace_id, redemption.get("traceId"))
        exported = "".join(body for _, _, body in received)
        secrets = [token, app["keys"]["secret"], app["keys"]["public_production"], "traced.buyer@example.com", "tracer"]
        check("no token, key, e-mail address or user ID reaches the traces", not [s for s in secrets if s in exported],
              [s[:8] for s in secrets if s in exported])
    finally:
        server.terminate()
        server.wait(timeout=HANG_GUARD)
        log.close()
        collector.shutdown()
    finish()


main()

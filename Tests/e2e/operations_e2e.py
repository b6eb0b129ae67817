#!/usr/bin/env python3
"""End-to-end checks of running Redeem in production: a busy port fails before the database is touched, SIGTERM stops
the server within 2 s (an in-flight request answered, a webhook delivery to a hung endpoint abandoned), and
`redeem backup` copies a live database under redemption load that `redeem restore` brings back row for row.
Usage: operations_e2e.py path/to/redeem. Prints 'N passed, M failed'."""
import json, os, signal, socket, subprocess, sys, tempfile, threading, time, uuid

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from support import check, finish, free_port, http, wait_healthy  # noqa: E402

BIN = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else ".build/debug/redeem")


def run(args, db):
    return subprocess.run([BIN, *args], capture_output=True, text=True, timeout=120, env={**os.environ, "REDEEM_DATABASE_URL": db})


def set_up(db):
    """A migrated database with an app, a subscription product and an admin key."""
    run(["migrate"], db)
    app = json.loads(run(["apps", "create", "--name", "Ops", "--json"], db).stdout)
    run(["products", "create", "--app", app["id"], "--id", "pro", "--type", "subscription", "--period", "P1M", "--entitlement", "pro"], db)
    admin = json.loads(run(["keys", "create", "--admin", "--json"], db).stdout)
    return app, admin["key"]


def serve(db, port):
    # Limits high enough for the load below; they still count every request.
    # The log goes to a file: a pipe nobody reads fills up and then blocks the server's logging, and its requests.
    log = tempfile.TemporaryFile(mode="w+")
    server = subprocess.Popen([BIN, "serve", "--port", str(port), "--rate-limit-per-ip", "100000", "--rate-limit-per-user", "1000"],
                              env={**os.environ, "REDEEM_DATABASE_URL": db}, stdout=subprocess.DEVNULL, stderr=log, text=True)
    if wait_healthy(f"http://127.0.0.1:{port}"):
        return server
    server.kill()
    log.seek(0)
    raise RuntimeError("server did not start: " + log.read())


def busy_port(tmp):
    db_path = f"{tmp}/busy.sqlite"
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        started = time.monotonic()
        result = run(["serve", "--port", str(port)], f"sqlite://{db_path}")
    check("a busy port fails at once, naming the setting and the address",
          result.returncode != 0 and "--port" in result.stderr and f"127.0.0.1:{port} is already in use" in result.stderr
          and time.monotonic() - started < 10, result.stderr)
    check("a busy port fails before the database is created or migrated", not os.path.exists(db_path))


def hung_endpoint():
    """A webhook receiver that accepts, reads the request and never answers; `seen` is set once a delivery arrives."""
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen()
    seen = threading.Event()
    held = []

    def accept():
        while True:
            try:
                connection, _ = listener.accept()
            except OSError:
                return
            held.append(connection)
            connection.recv(65536)
            seen.set()

    threading.Thread(target=accept, daemon=True).start()
    return listener, seen


def shutdown(tmp):
    db = f"sqlite://{tmp}/shutdown.sqlite"
    app, admin = set_up(db)
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    listener, seen = hung_endpoint()
    server = serve(db, port)
    try:
        hook = f"http://127.0.0.1:{listener.getsockname()[1]}/hook"
        status, _ = http("POST", f"{base}/admin/v1/apps/{app['id']}/webhooks", key=admin, body={"url": hook})
        http("POST", f"{base}/admin/v1/apps/{app['id']}/webhooks/test", key=admin)
        check("a test event reaches the hung endpoint", status == 201 and seen.wait(10))
        # A request in flight: headers and half the body sent before SIGTERM, the rest after.
        body = json.dumps({"app_user_id": "in-flight", "product_id": "pro"}).encode()
        client = socket.create_connection(("127.0.0.1", port))
        client.sendall((f"POST /v1/purchases HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {app['keys']['secret']}\r\n"
                        f"Idempotency-Key: {uuid.uuid4()}\r\nContent-Type: application/json\r\n"
                        f"Content-Length: {len(body)}\r\n\r\n").encode() + body[:10])
        time.sleep(0.2)
        started = time.monotonic()
        server.send_signal(signal.SIGTERM)
        time.sleep(0.2)
        client.sendall(body[10:])
        client.settimeout(5)
        answer = b""
        try:
            while b"\r\n\r\n" not in answer:
                chunk = client.recv(4096)
                if not chunk:
                    break
                answer += chunk
        except OSError:
            pass
        server.wait(timeout=30)
        elapsed = time.monotonic() - started
        check("the request in flight at SIGTERM is answered", answer.startswith(b"HTTP/1.1 201"), answer[:200])
        check(f"SIGTERM stops the server in under 2 s with a delivery hung ({elapsed:.2f} s)", elapsed < 2.0, elapsed)
        check("the server exits 0 on SIGTERM", server.returncode == 0, server.returncode)
    finally:
        if server.poll() is None:
            server.kill()
        listener.close()


def backup_under_load(tmp):
    db = f"sqlite://{tmp}/live.sqlite"
    app, _ = set_up(db)
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    server = serve(db, port)
    stop = threading.Event()
    done = []
    errors = []

    def load(worker):
        n = 0
        while not stop.is_set():
            n += 1
            user = f"buyer-{worker}-{n}"
            status, granted = http("POST", base + "/v1/purchases", key=app["keys"]["secret"],
                                   body={"app_user_id": f"$RCAnonymousID:{uuid.uuid4().hex}", "product_id": "pro"},
                                   headers={"Idempotency-Key": str(uuid.uuid4())})
            token = (granted or {}).get("redemption_https_url", "/").rsplit("/", 1)[1]
            status2, _ = http("POST", base + "/v1/subscribers/redeem_purchase", key=app["keys"]["public_production"],
                              body={"app_user_id": user, "redemption_token": token})
            (done if status == 201 and status2 == 200 else errors).append(user)

    threads = [threading.Thread(target=load, args=(i,)) for i in range(4)]
    try:
        for thread in threads:
            thread.start()
        time.sleep(1.5)
        before = len(done)
        backed = run(["backup", "--to", f"{tmp}/copy.sqlite", "--json"], db)
        at_backup = len(done)
        time.sleep(1.0)
    finally:
        stop.set()
        for thread in threads:
            thread.join()
        server.terminate()
        server.wait(timeout=30)
    check("redemptions ran before and after the backup", 0 < at_backup < len(done) and not errors, (at_backup, len(done), errors[:3]))
    summary = json.loads(backed.stdout) if backed.returncode == 0 else {}
    rows = summary.get("rows", {})
    check("backup under load writes a checked copy with its row counts",
          backed.returncode == 0 and before <= rows.get("purchases", 0) and rows.get("redemption_attempts", 0) > 0, backed.stderr)
    # A purchase and its link are two transactions, and a redemption a third: a snapshot may catch one between them.
    check("the copy is one snapshot: attempts ≤ tokens ≤ purchases, at most one step behind per load thread",
          rows.get("redemption_attempts", 0) <= rows.get("redemption_tokens", 0) <= rows.get("purchases", 0)
          and rows.get("purchases", 0) - rows.get("redemption_attempts", 0) <= 2 * len(threads), rows)
    check("no partial file is left beside the backup", not os.path.exists(f"{tmp}/copy.sqlite.partial"))
    again = run(["backup", "--to", f"{tmp}/copy.sqlite"], db)
    check("backup refuses to overwrite a file", again.returncode != 0 and "already exists" in again.stderr, again.stderr)

    target = f"sqlite://{tmp}/restored.sqlite"
    restored = run(["restore", "--from", f"{tmp}/copy.sqlite", "--json"], target)
    check("restore brings back identical row counts",
          restored.returncode == 0 and json.loads(restored.stdout)["rows"] == rows, restored.stdout + restored.stderr)
    refused = run(["restore", "--from", f"{tmp}/copy.sqlite"], target)
    check("restore over an existing database needs --force", refused.returncode != 0 and "--force" in refused.stderr, refused.stderr)
    with open(f"{tmp}/junk.sqlite", "wb") as junk:
        junk.write(b"not a database" * 100)
    damaged = run(["restore", "--from", f"{tmp}/junk.sqlite", "--force"], target)
    check("restore refuses a file that is not a sound Redeem database", damaged.returncode != 0 and "--from" in damaged.stderr, damaged.stderr)

    port = free_port()
    server = serve(target, port)
    try:
        status, info = http("GET", f"http://127.0.0.1:{port}/v1/subscribers/buyer-0-1", key=app["keys"]["public_production"])
        check("the restored database serves the redeemed purchase", status == 200 and "pro" in info["subscriber"]["entitlements"], info)
    finally:
        server.terminate()
        server.wait(timeout=30)
    postgres = run(["backup", "--to", f"{tmp}/pg.dump"], "postgres://nobody@127.0.0.1:1/none")
    check("backup of PostgreSQL points to pg_dump", postgres.returncode != 0 and "pg_dump" in postgres.stderr, postgres.stderr)


def main():
    with tempfile.TemporaryDirectory() as tmp:
        busy_port(tmp)
        shutdown(tmp)
        backup_under_load(tmp)
    finish()


main()

#!/usr/bin/env python3
"""End-to-end checks of running Redeem in production: a busy port fails before the database is touched; SIGTERM stops
the server promptly by mechanism (the listener closes, idle connections are closed, the request in flight is answered,
a webhook delivery to a hung endpoint is abandoned for a later retry, and the process exits 0); `redeem backup` copies
a live database under redemption load that `redeem restore` brings back row for row; the settings --no-migrate,
--database-pool-size and --host do what the README says; and flags win over variables, the first log line says what
runs, and CONFIG_ACCESS_LOG_FILE says where each setting came from, with no secret in either; secrets come as files
(CREDENTIALS_DIRECTORY); and serve --check says what would run without listening or writing.
Usage: operations_e2e.py path/to/redeem. Prints 'N passed, M failed'."""
import json, os, signal, socket, sqlite3, subprocess, sys, tempfile, threading, time, uuid
from concurrent.futures import ThreadPoolExecutor

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from support import HANG_GUARD, MailServer, check, finish, free_port, http, wait_for, wait_healthy  # noqa: E402

BIN = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else ".build/debug/redeem")


def run(args, db, extra_env=None):
    return subprocess.run([BIN, *args], capture_output=True, text=True, timeout=HANG_GUARD,
                          env={**os.environ, "REDEEM_DATABASE_URL": db, **(extra_env or {})})


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
    if wait_healthy(f"http://127.0.0.1:{port}", server):
        return server
    server.kill()
    log.seek(0)
    raise RuntimeError("server did not start: " + log.read())


def start(args, db, host="127.0.0.1", extra_env=None):
    """Starts `redeem serve` with `args`: (the process, serving) once it answers /health on `host`, or (the finished
    process, its standard error) once it has exited."""
    port = free_port()
    log = tempfile.TemporaryFile(mode="w+")
    server = subprocess.Popen([BIN, "serve", "--port", str(port), *args], env={**os.environ, "REDEEM_DATABASE_URL": db, **(extra_env or {})},
                              stdout=subprocess.DEVNULL, stderr=log, text=True)
    if wait_healthy(f"http://{host}:{port}", server):
        server.port = port
        server.log = log
        return server, True
    if server.poll() is None:
        server.kill()
    server.wait()
    log.seek(0)
    return server, log.read()


def stop_server(server):
    server.terminate()
    server.wait(timeout=HANG_GUARD)


def busy_port(tmp):
    db_path = f"{tmp}/busy.sqlite"
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        result = run(["serve", "--port", str(port)], f"sqlite://{db_path}")
    check("a busy port fails, naming the setting and the address",
          result.returncode != 0 and "--port" in result.stderr and f"127.0.0.1:{port} is already in use" in result.stderr, result.stderr)
    check("a busy port fails before the database is created or migrated", not os.path.exists(db_path))


def hung_endpoint():
    """A webhook receiver that accepts, reads the request and never answers. `seen` is set once a delivery arrives;
    `closed` once the server has closed that connection (the receiver read its end)."""
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen()
    seen, closed = threading.Event(), threading.Event()

    def accept():
        while True:
            try:
                connection, _ = listener.accept()
            except OSError:
                return
            try:
                connection.settimeout(HANG_GUARD)
                while connection.recv(65536):
                    seen.set()
                closed.set()
            except OSError:
                pass

    threading.Thread(target=accept, daemon=True).start()
    return listener, seen, closed


def tcp_queues(local_port, remote_port):
    """(send queue, receive queue) in bytes of the socket from `local_port` to `remote_port` on 127.0.0.1, from
    /proc/net/tcp; None when there is none."""
    with open("/proc/net/tcp") as f:
        for line in f.readlines()[1:]:
            fields = line.split()
            if int(fields[1].split(":")[1], 16) == local_port and int(fields[2].split(":")[1], 16) == remote_port:
                tx, rx = fields[4].split(":")
                return int(tx, 16), int(rx, 16)
    return None


def read_response(connection):
    """One HTTP response from a raw socket, head and Content-Length body; what came before the server closed the
    connection, if it did first."""
    connection.settimeout(HANG_GUARD)
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = connection.recv(4096)
        if not chunk:
            return data
        data += chunk
    head, body = data.split(b"\r\n\r\n", 1)
    length = next((int(line.split(b":", 1)[1]) for line in head.split(b"\r\n") if line.lower().startswith(b"content-length:")), 0)
    while len(body) < length:
        chunk = connection.recv(4096)
        if not chunk:
            break
        body += chunk
    return head + b"\r\n\r\n" + body


def refuses_connections(port):
    try:
        socket.create_connection(("127.0.0.1", port), timeout=5).close()
        return False
    except ConnectionRefusedError:
        return True


def shutdown(tmp):
    """SIGTERM while a request is in flight, a keep-alive connection idle and a webhook delivery hung. "Stops in under
    2 s" (README) is checked by what makes it quick, not by a stopwatch: the listener closes, the idle connection is
    closed rather than waited on, the hung delivery is abandoned (kept for a retry) rather than waited out, and the
    request in flight is answered."""
    db_path = f"{tmp}/shutdown.sqlite"
    db = f"sqlite://{db_path}"
    app, admin = set_up(db)
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    listener, seen, hook_closed = hung_endpoint()
    server = serve(db, port)
    try:
        hook = f"http://127.0.0.1:{listener.getsockname()[1]}/hook"
        status, _ = http("POST", f"{base}/admin/v1/apps/{app['id']}/webhooks", key=admin, body={"url": hook})
        http("POST", f"{base}/admin/v1/apps/{app['id']}/webhooks/test", key=admin)
        check("a test event reaches the hung endpoint", status == 201 and seen.wait(HANG_GUARD))
        # Two keep-alive connections, each past one answered request, so the server holds both: one stays idle, the
        # other sends the head and half the body of a purchase before SIGTERM and the rest after.
        idle, client = (socket.create_connection(("127.0.0.1", port)) for _ in range(2))
        for connection in (idle, client):
            connection.sendall(b"GET /health HTTP/1.1\r\nHost: x\r\n\r\n")
            read_response(connection)
        body = json.dumps({"app_user_id": "in-flight", "product_id": "pro"}).encode()
        client.sendall((f"POST /v1/purchases HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {app['keys']['secret']}\r\n"
                        f"Idempotency-Key: {uuid.uuid4()}\r\nContent-Type: application/json\r\n"
                        f"Content-Length: {len(body)}\r\n\r\n").encode() + body[:10])
        # SIGTERM only once the server has read what was sent (nothing left in either queue), so the request is in flight.
        mine = client.getsockname()[1]
        read = wait_for(lambda: tcp_queues(mine, port) == (0, 0) and tcp_queues(port, mine) == (0, 0))
        started = time.monotonic()
        server.send_signal(signal.SIGTERM)
        closed = wait_for(lambda: refuses_connections(port))
        check("after SIGTERM, with a request still in flight, the server stops accepting connections",
              read and closed and server.poll() is None, (read, closed, server.poll()))
        idle.settimeout(HANG_GUARD)
        check("an idle keep-alive connection is closed by the server, not left waiting", idle.recv(4096) == b"")
        client.sendall(body[10:])
        answer = read_response(client)
        check("the request in flight at SIGTERM is answered", answer.startswith(b"HTTP/1.1 201"), answer[:200])
        server.wait(timeout=HANG_GUARD)
        elapsed = time.monotonic() - started
        check("the server exits 0 on SIGTERM", server.returncode == 0, server.returncode)
        with sqlite3.connect(db_path) as database:
            rows = database.execute("SELECT d.attempts, d.delivered_at, d.failed_at, d.locked_until, "
                                    "(SELECT COUNT(*) FROM webhook_attempts a WHERE a.delivery_id = d.id) "
                                    "FROM webhook_deliveries d WHERE d.event_type = 'TEST'").fetchall()
        # The attempt's own timeout is 60 s: a connection closed at shutdown shows the server did not wait for it. An
        # interrupted attempt is not one of the delivery's six: it keeps its lease and goes out again once that ends.
        check("the delivery to the hung endpoint is abandoned at shutdown, not waited out: its connection is closed, no "
              "attempt is spent, and its lease keeps it for a later send", hook_closed.wait(HANG_GUARD)
              and len(rows) == 1 and rows[0][:3] == (0, None, None) and rows[0][3] is not None and rows[0][4] == 0, rows)
        print(f"     (SIGTERM to exit: {elapsed:.2f} s)")
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
        wait_for(lambda: len(done) >= 20 or errors)  # the load is running
        before = len(done)
        backed = run(["backup", "--to", f"{tmp}/copy.sqlite", "--json"], db)
        at_backup = len(done)
        wait_for(lambda: len(done) >= at_backup + 20 or errors)  # and goes on after the backup
    finally:
        stop.set()
        for thread in threads:
            thread.join()
        stop_server(server)
    check("redemptions ran before and after the backup", 20 <= before and at_backup + 20 <= len(done) and not errors,
          (before, at_backup, len(done), errors[:3]))
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
        stop_server(server)
    postgres = run(["backup", "--to", f"{tmp}/pg.dump"], "postgres://nobody@127.0.0.1:1/none")
    check("backup of PostgreSQL points to pg_dump", postgres.returncode != 0 and "pg_dump" in postgres.stderr, postgres.stderr)


def settings(tmp):
    """--no-migrate, --database-pool-size and --host, as the README's configuration table describes them."""
    empty = f"{tmp}/empty.sqlite"
    sqlite3.connect(empty).close()  # a database with no migrations applied: every one is pending
    sqlite3.connect(f"{tmp}/probe.sqlite").close()
    pending = [line.split()[1] for line in run(["migrate", "--dry-run"], f"sqlite://{tmp}/probe.sqlite").stdout.splitlines()
               if line.startswith("pending: ")]
    server, refused = start(["--no-migrate"], f"sqlite://{empty}")
    with sqlite3.connect(empty) as database:
        tables = sorted(r[0] for r in database.execute("SELECT name FROM sqlite_master WHERE type = 'table'"))
        applied = database.execute("SELECT COUNT(*) FROM schema_migrations").fetchone()[0] if "schema_migrations" in tables else 0
    check("--no-migrate refuses to start while migrations are pending, naming them, and applies none",
          refused is not True and server.returncode != 0 and f"pending migrations [{', '.join(pending)}]" in refused
          and "--no-migrate" in refused and pending and applied == 0 and set(tables) <= {"schema_migrations"}, (refused, pending, tables))

    for size in ("0", "1001"):
        for how, args, env in (("--database-pool-size", ["--database-pool-size", size], None),
                               ("REDEEM_DATABASE_POOL_SIZE", [], {"REDEEM_DATABASE_POOL_SIZE": size})):
            server, refused = start(args, f"sqlite://{empty}", extra_env=env)
            check(f"{how} {size} is refused, naming the setting and its bounds", refused is not True and server.returncode != 0
                  and f"--database-pool-size / REDEEM_DATABASE_POOL_SIZE '{size}' is not a whole number from 1 to 1000" in refused, refused)

    # A migrated database, so --no-migrate has nothing to refuse; the smallest pool; a loopback address other than the default.
    db = f"sqlite://{tmp}/settings.sqlite"
    app, _ = set_up(db)
    server, serving = start(["--no-migrate", "--database-pool-size", "1", "--host", "127.0.0.2"], db, host="127.0.0.2")
    try:
        check("--no-migrate starts when no migration is pending; --database-pool-size 1 is accepted", serving is True, serving)
        if serving is True:
            status, granted = http("POST", f"http://127.0.0.2:{server.port}/v1/purchases", key=app["keys"]["secret"],
                                   body={"app_user_id": "host-user", "product_id": "pro"}, headers={"Idempotency-Key": str(uuid.uuid4())})
            check("--host 127.0.0.2 serves on that address, whose links it names by default",
                  status == 201 and granted["redemption_https_url"].startswith(f"http://127.0.0.2:{server.port}/r/"), granted)
            check("--host 127.0.0.2 does not listen on 127.0.0.1", refuses_connections(server.port))
    finally:
        if serving is True:
            stop_server(server)

    # Flags over variables, switches spelled true, the first log line, and swift-configuration's access log: none of
    # them shows the Stripe key.
    # The Stripe key and webhook secret come as files, as systemd's LoadCredential= gives them (CREDENTIALS_DIRECTORY).
    access = f"{tmp}/settings-access.log"
    secret = "sk_test_e2eSecretValue123"
    credentials = f"{tmp}/credentials"
    os.makedirs(credentials)
    for name, value in (("stripe-secret-key", secret), ("stripe-webhook-secret", "whsec_e2eHookValue456")):
        with open(f"{credentials}/{name}", "w") as file:
            file.write(value + "\n")
    server, serving = start(["--rate-limit-per-ip", "77"], db, extra_env={
        "REDEEM_RATE_LIMIT_PER_IP": "5", "CREDENTIALS_DIRECTORY": credentials, "REDEEM_CONSOLE_REQUIRE_TWO_FACTOR": "true",
        "REDEEM_LOG_LEVEL": "", "CONFIG_ACCESS_LOG_FILE": access})
    try:
        check("serve starts with a switch spelled true, an empty variable and its secrets as files", serving is True, serving)
        if serving is True:
            server.log.seek(0)
            log = server.log.read()
            starting = next((line for line in log.splitlines() if "starting" in line), "")
            check("the first log line says what the server runs with: the flag's rate limit over its variable's, Stripe in test mode "
                  "and its webhooks on, both from the credentials directory",
                  "rate_limits=77/min per IP" in starting and "stripe=test" in starting and "stripe_webhooks=on" in starting
                  and "owners_need_two_factor=true" in starting and "database=sqlite " in starting, log[:800])
            report = open(access).read() if os.path.exists(access) else ""
            check("CONFIG_ACCESS_LOG_FILE reports where each setting came from, the Stripe key redacted",
                  "stripe.secret.key" in report and "<REDACTED>" in report and "InMemoryProvider[flags]" in report
                  and secret not in report and secret not in log and "e2eHookValue456" not in report + log, report[:800])
    finally:
        if serving is True:
            stop_server(server)

    # serve --check: beside a running server (its port is not tried), on a database not yet made (nothing is created),
    # and under --no-migrate with migrations pending (refused, as serve would be).
    server, serving = start([], db)
    try:
        checked = run(["serve", "--check", "--port", str(server.port) if serving is True else "8080", "--stripe-secret-key", "sk_test_check"], db)
        check("serve --check beside the running server says what it would run with and that migrations are up to date",
              serving is True and checked.returncode == 0 and "The settings can be used" in checked.stdout
              and "  stripe: test\n" in checked.stdout and "  migrations: up to date\n" in checked.stdout, checked.stdout + checked.stderr)
    finally:
        if serving is True:
            stop_server(server)
    fresh = f"{tmp}/not-yet.sqlite"
    checked = run(["serve", "--check"], f"sqlite://{fresh}")
    check("serve --check on a database not yet made creates nothing", checked.returncode == 0 and "no database yet" in checked.stdout
          and not os.path.exists(fresh), checked.stdout + checked.stderr)
    refused = run(["serve", "--check", "--no-migrate"], f"sqlite://{empty}")
    check("serve --check --no-migrate with migrations pending fails as serve would, naming them",
          refused.returncode != 0 and "pending migrations [" in refused.stderr and "--no-migrate" in refused.stderr, refused.stdout + refused.stderr)
    mail = MailServer(f"{tmp}/check-mail")
    try:
        reached = run(["serve", "--check", "--smtp-url", mail.url, "--mail-from", "receipts@example.com"], db)
    finally:
        mail.stop()
    closed = free_port()
    unreached = run(["serve", "--check", "--smtp-url", f"smtp://relay:pw-check-789@127.0.0.1:{closed}?security=none",
                     "--mail-from", "receipts@example.com"], db)
    check("serve --check tries the mail server as serve does: reachable, or said and not fatal, without the password",
          reached.returncode == 0 and "  smtp: reachable\n" in reached.stdout and unreached.returncode == 0
          and "  smtp: cannot connect" in unreached.stdout and "pw-check-789" not in unreached.stdout + unreached.stderr,
          reached.stdout + reached.stderr + unreached.stdout + unreached.stderr)
    refused = run(["serve", "--check", "--public-url", "https://pay.example.com/shop"], db)
    check("serve --check refuses a bad setting, naming it", refused.returncode != 0 and "--public-url / REDEEM_PUBLIC_URL" in refused.stderr,
          refused.stderr)

    server, refused = start([], db, extra_env={"REDEEM_SECRETS_DIR": f"{tmp}/no-such-secrets"})
    check("a secrets directory that cannot be read stops serve, naming REDEEM_SECRETS_DIR", refused is not True and server.returncode != 0
          and "REDEEM_SECRETS_DIR" in refused and "no-such-secrets" in refused, refused)

    postgres = os.environ.get("REDEEM_TEST_POSTGRES_URL")
    if postgres:
        pool_on_postgres(postgres, tmp)
    else:
        print("skip --database-pool-size on PostgreSQL: REDEEM_TEST_POSTGRES_URL is not set")


def pool_on_postgres(postgres, tmp):
    """--database-pool-size 1 on PostgreSQL: under 16 concurrent requests the server opens exactly one connection."""
    name = "redeem_e2e_" + uuid.uuid4().hex[:12]
    subprocess.run(["psql", postgres, "-qc", f"CREATE DATABASE {name}"], check=True)
    db = postgres.rsplit("/", 1)[0] + "/" + name
    try:
        app, _ = set_up(db)
        server, serving = start(["--database-pool-size", "1"], db)
        check("--database-pool-size 1 starts on PostgreSQL", serving is True, serving)
        if serving is not True:
            return
        try:
            def buy(n):
                return http("POST", f"http://127.0.0.1:{server.port}/v1/purchases", key=app["keys"]["secret"],
                            body={"app_user_id": f"pool-{n}", "product_id": "pro"}, headers={"Idempotency-Key": str(uuid.uuid4())})[0]
            with ThreadPoolExecutor(16) as pool:
                statuses = list(pool.map(buy, range(64)))
            # The pool keeps what it opened: with the default of 8 this load leaves 8 connections. The Customer Info
            # listener holds one more of its own, named "redeem listener". A backend whose connection the pool closed
            # (and replaced) can show for a moment while it exits, so the count is read until it settles.
            def connections():
                return subprocess.run(
                    ["psql", postgres, "-Atc", f"SELECT COUNT(*) FILTER (WHERE application_name <> 'redeem listener') || ' ' || "
                     f"COUNT(*) FILTER (WHERE application_name = 'redeem listener') || ' ' || "
                     f"COALESCE(string_agg(state || ':' || backend_start::text, ',' ORDER BY backend_start), '') "
                     f"FROM pg_stat_activity WHERE datname = '{name}'"],
                    capture_output=True, text=True, check=True).stdout.strip()
            last = []

            def settled():
                last[:] = [connections()]
                return last[0].startswith("1 1 ")
            wait_for(settled, timeout=5)
            seen = last[0]
            check("--database-pool-size 1: 64 purchases, 16 at a time, all succeed over one PostgreSQL connection (and the "
                  "listener's own)", statuses == [201] * 64 and seen.startswith("1 1 "), (sorted(set(statuses)), seen))
        finally:
            stop_server(server)
    finally:
        subprocess.run(["psql", postgres, "-qc", f"DROP DATABASE IF EXISTS {name} WITH (FORCE)"], capture_output=True)


def main():
    with tempfile.TemporaryDirectory() as tmp:
        busy_port(tmp)
        shutdown(tmp)
        backup_under_load(tmp)
        settings(tmp)
    finish()


main()

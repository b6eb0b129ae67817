#!/usr/bin/env python3
"""Two `redeem serve` processes on one PostgreSQL database behave as one service:
- both start at the same moment on an empty database, and the schema is migrated exactly once;
- a link redeemed by 200 claimants at once, half on each instance, is redeemed exactly once (one 200, every other answer
  7852, no 5xx, no dropped connection), and the winner's entitlement shows on both instances, nobody else's;
- a write on one instance shows in the other's Customer Info once its listener has heard of it (LISTEN/NOTIFY on a direct
  connection, also in the PgBouncer pass through --database-listen-url), within the window docs/scaling.md gives, even
  after reads that would warm a cache; each instance's listener is connected directly to PostgreSQL;
- rate limits are counted once for the service, not per instance;
- each webhook event reaches a healthy endpoint exactly once while another app's two endpoints fail (one accepts and
  never answers, one refuses connections);
- each receipt e-mail is sent exactly once;
- SIGTERM stops both, each exiting 0. "Exactly once" is counted after both have exited, when nothing more can arrive.
The whole scenario runs twice, each time on a fresh database: "[direct]" with the instances and the CLI connected to
PostgreSQL itself, then "[pgbouncer]" through Debian's PgBouncer in transaction mode (`?prepared_statements=off` in the
URL), started here on a free loopback port with fewer server connections than the two instances open, so they share them.
Runs its own PostgreSQL cluster (scripts/postgres-up.sh with another directory and port), so other tests' databases are
untouched. Usage: multi_instance.py path/to/redeem. Prints 'N passed, M failed'."""
import collections, glob, json, os, pwd, re, shutil, signal, socket, subprocess, sys, tempfile, threading, time
import urllib.parse, uuid
from concurrent.futures import ThreadPoolExecutor
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from support import HANG_GUARD, MailServer, call, check, finish, free_port, run_cli, wait_for  # noqa: E402

BIN = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else ".build/debug/redeem")
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PG_BIN = sorted(glob.glob("/usr/lib/postgresql/*/bin"))[-1] if glob.glob("/usr/lib/postgresql/*/bin") else None
PER_IP, PER_USER = 10, 6  # redemption attempts per minute, for the whole service
STORM = 200
BAD_TOKEN = "A" * 43  # well-formed, never issued: 7849 once past the rate limits


class Instance:
    """One `redeem serve` process; its log goes to a file (a pipe nobody reads fills up and blocks the server)."""

    def __init__(self, name, env, workdir, extra):
        self.name, self.port = name, free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        self.log_path = os.path.join(workdir, f"serve-{name}.log")
        self.log_file = open(self.log_path, "w")
        self.args = [BIN, "serve", "--port", str(self.port), *extra]
        self.env = env
        self.process = None

    def start(self):
        self.process = subprocess.Popen(self.args, env=self.env, stdout=subprocess.DEVNULL, stderr=self.log_file, text=True)

    def log(self):
        with open(self.log_path) as f:
            return f.read()

    def entries(self):
        """The log's JSON lines (REDEEM_LOG_FORMAT=json), parsed; a line that is not JSON is kept as its text."""
        parsed = []
        for line in self.log().splitlines():
            if line.strip():
                try:
                    parsed.append(json.loads(line))
                except ValueError:
                    parsed.append({"level": "unparsed", "msg": line})
        return parsed

    def errors(self):
        return [e for e in self.entries() if str(e.get("level", "")).lower() in ("error", "critical", "unparsed")]

    def tail(self, lines=25):
        return f"--- serve {self.name} log, last lines:\n" + "\n".join(self.log().splitlines()[-lines:])


# The pass under way: its label, its instances and its pooler (None on the direct pass).
PASS = {"label": "", "instances": [], "pooler": None}


def verify(name, condition, detail="", tails=True):
    """`check` with the pass's label, and the servers' and the pooler's log tails when it fails."""
    check(f"[{PASS['label']}] {name}", condition, detail)
    if not condition and tails:
        for instance in PASS["instances"]:
            print(instance.tail(), flush=True)
        if PASS["pooler"]:
            print(PASS["pooler"].tail(), flush=True)


def psql(url, sql, header=False):
    """Rows of `sql` as lists of strings; with `header`, as dicts by column name."""
    done = subprocess.run([os.path.join(PG_BIN, "psql"), url, "-X", "-A" if header else "-At", "-F", "\t", "-c", sql],
                          capture_output=True, text=True, check=True)
    rows = [line.split("\t") for line in done.stdout.splitlines() if line]
    return [dict(zip(rows[0], row)) for row in rows[1:-1]] if header else rows  # the last line is "(N rows)"


def on_database(url, name):
    """`url` naming database `name`, its query (prepared_statements=off) kept."""
    parts = urllib.parse.urlsplit(url)
    return urllib.parse.urlunsplit(parts._replace(path="/" + name))


def expected_migrations(db_url, redeem_url):
    """The versions this binary knows, from `redeem migrate --dry-run` (through `redeem_url`'s server) on a scratch
    database of the same cluster (the dry run creates the migrations table, so never on the database the servers start on)."""
    psql(db_url, "CREATE DATABASE migration_probe")
    try:
        listed = run_cli(BIN, ["migrate", "--dry-run"], {**os.environ, "REDEEM_DATABASE_URL": on_database(redeem_url, "migration_probe")})
    finally:
        psql(db_url, "DROP DATABASE IF EXISTS migration_probe WITH (FORCE)")
    return sorted(int(n) for n in re.findall(r"^pending: (\d+) ", listed, re.M))


class Pooler:
    """PgBouncer in transaction mode on a free loopback port in front of the cluster on `pg_port`. It refuses to run as
    root, so under root it switches to the cluster's user (`-u postgres`), which must read and write its directory."""

    POOL_SIZE = 6  # server connections per database: fewer than the two instances' 2 x 8, so clients share them

    def __init__(self, workdir, pg_port, address="127.0.0.1", port=None, name="pooler"):
        self.binary = shutil.which("pgbouncer") or "/usr/sbin/pgbouncer"
        self.address, self.port = address, port or free_port()
        self.dir = os.path.join(workdir, name)
        os.makedirs(self.dir)
        self.log_path = os.path.join(self.dir, "pgbouncer.log")
        self.ini = os.path.join(self.dir, "pgbouncer.ini")
        with open(os.path.join(self.dir, "userlist.txt"), "w") as f:
            f.write('"postgres" ""\n')  # trust still looks the user up here
        with open(self.ini, "w") as f:
            f.write(f"""[databases]
* = host=127.0.0.1 port={pg_port}

[pgbouncer]
listen_addr = {self.address}
listen_port = {self.port}
unix_socket_dir =
auth_type = trust
auth_file = {self.dir}/userlist.txt
admin_users = postgres
pool_mode = transaction
default_pool_size = {self.POOL_SIZE}
max_client_conn = 200
logfile = {self.log_path}
""")
        self.as_user = []
        if os.geteuid() == 0:
            user = pwd.getpwnam("postgres")
            os.chmod(workdir, 0o711)
            for path in [self.dir] + [os.path.join(self.dir, n) for n in os.listdir(self.dir)]:
                os.chown(path, user.pw_uid, user.pw_gid)
            self.as_user = ["-u", "postgres"]
        self.process = None

    def start(self):
        """True once the admin console answers."""
        self.process = subprocess.Popen([self.binary, *self.as_user, self.ini], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

        def answers():
            try:
                return self.process.poll() is None and bool(self.show("VERSION"))
            except subprocess.CalledProcessError:
                return False
        return bool(wait_for(lambda: answers() or self.process.poll() is not None, interval=0.1)) and answers()

    def url(self, database):
        return f"postgres://postgres@{self.address}:{self.port}/{database}?prepared_statements=off"

    def show(self, what):
        """The admin console's `SHOW what` as dicts."""
        return psql(f"postgres://postgres@{self.address}:{self.port}/pgbouncer", f"SHOW {what}", header=True)

    def stop(self):
        if self.process and self.process.poll() is None:
            self.process.send_signal(signal.SIGINT)  # safe shutdown: SIGTERM would drop clients at once
            try:
                self.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()

    def tail(self, lines=25):
        try:
            with open(self.log_path) as f:
                return "--- pgbouncer log, last lines:\n" + "\n".join(f.read().splitlines()[-lines:])
        except OSError as error:
            return f"--- no pgbouncer log: {error}"


def entitled(instance, key, user):
    status, body, _ = call("GET", f"{instance.base}/v1/subscribers/{user}", key=key)
    return status, status == 200 and "pro" in body["subscriber"]["entitlements"]


def purchase(instance, app, user, product="pro", **extra):
    return call("POST", instance.base + "/v1/purchases", key=app["keys"]["secret"],
                body={"app_user_id": user, "product_id": product, **extra}, headers={"Idempotency-Key": str(uuid.uuid4())})


def redeem(instance, app, user, token, ip):
    return call("POST", instance.base + "/v1/subscribers/redeem_purchase", key=app["keys"]["public_production"],
                body={"app_user_id": user, "redemption_token": token}, headers={"X-Forwarded-For": ip})


class HookReceiver:
    """A healthy webhook endpoint on loopback: records each event ID with when it came and answers 200 after `delay`
    seconds, so several deliveries are in flight at once, as with a real receiver."""

    def __init__(self, delay=0.1):
        self.lock = threading.Lock()
        self.events = []
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):
                body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
                try:
                    event_id = json.loads(body)["event"]["id"]
                except (ValueError, KeyError, TypeError):
                    event_id = "unparsed:" + body[:80].decode("utf-8", "replace")
                with receiver.lock:
                    receiver.events.append((event_id, time.monotonic()))
                time.sleep(delay)
                self.send_response(200)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, *_):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/hook"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def received(self):
        with self.lock:
            return list(self.events)

    def stop(self):
        self.server.shutdown()
        self.server.server_close()


class HungEndpoint:
    """A dead webhook endpoint: accepts connections, reads the request and never answers."""

    def __init__(self):
        self.listener = socket.socket()
        self.listener.bind(("127.0.0.1", 0))
        self.listener.listen(64)
        self.url = f"http://127.0.0.1:{self.listener.getsockname()[1]}/hook"
        self.held = []
        threading.Thread(target=self.accept, daemon=True).start()

    def accept(self):
        while True:
            try:
                connection, _ = self.listener.accept()
            except OSError:
                return
            self.held.append(connection)
            try:
                connection.settimeout(5)
                connection.recv(65536)
            except OSError:
                pass

    def stop(self):
        self.listener.close()
        for connection in self.held:
            connection.close()


def in_one_window(burst, tries=3):
    """`burst(n)`'s answers, from a try whose requests all fell in one rate-limit window (the counters' windows start at
    whole minutes); a try that straddles a minute is run again with fresh identities (`n`)."""
    for n in range(tries):
        began = time.time()
        answers = burst(n)
        if int(began // 60) == int(time.time() // 60):
            return answers
    return answers


def start_together(instances, db_url, redeem_url):
    expected = expected_migrations(db_url, redeem_url)
    tables = psql(db_url, "SELECT count(*) FROM pg_tables WHERE schemaname = 'public'")
    verify("the database starts empty, and the binary lists its migrations", tables == [["0"]] and len(expected) > 0,
           (tables, expected))
    for instance in instances:
        instance.start()
    healthy = [False] * len(instances)

    def wait(i):
        deadline = time.monotonic() + HANG_GUARD
        while time.monotonic() < deadline and instances[i].process.poll() is None:
            status, body, _ = call("GET", instances[i].base + "/health", timeout=5)
            if status == 200:
                healthy[i] = True
                return
            time.sleep(0.1)

    threads = [threading.Thread(target=wait, args=(i,)) for i in range(len(instances))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    verify("both instances, started at the same moment on an empty database, become healthy", all(healthy),
           [(i.name, i.process.poll()) for i in instances])
    if not all(healthy):
        return False
    rows = psql(db_url, "SELECT version FROM schema_migrations ORDER BY version")
    versions = [int(r[0]) for r in rows]
    verify(f"the migrations table has each of the {len(expected)} versions once", versions == expected,
           (versions, expected))
    applied = [(i.name, int(e.get("version", -1)))
               for i in instances for e in i.entries() if e.get("msg") == "applied migration"]
    versions_applied = sorted(v for _, v in applied)
    verify("each migration was applied by exactly one of the two instances (their logs)", versions_applied == expected,
           (collections.Counter(n for n, _ in applied), versions_applied))
    errors = [(i.name, e.get("msg"), e.get("error")) for i in instances for e in i.errors()]
    verify("neither log shows an error while starting", not errors, errors[:5])
    return True


def storm(a, b, app):
    status, granted, _ = purchase(a, app, "storm-buyer")
    token = (granted or {}).get("redemption_https_url", "/").rsplit("/", 1)[-1] if status == 201 else ""
    verify("a purchase on A gives a redemption link", status == 201 and len(token) > 20, (status, granted))
    answers = [None] * STORM
    barrier = threading.Barrier(STORM)

    def claim(i):
        instance = (a, b)[i % 2]
        try:
            barrier.wait(timeout=30)
        except threading.BrokenBarrierError:
            pass
        answers[i] = redeem(instance, app, f"claimant-{i:03d}", token, f"10.20.{i // 250}.{i % 250 + 1}")

    started = time.monotonic()
    threads = [threading.Thread(target=claim, args=(i,)) for i in range(STORM)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    took = time.monotonic() - started
    kinds = collections.Counter((s, body.get("code") if isinstance(body, dict) else body) for s, body, _ in answers)
    winners = [i for i, (s, _, _) in enumerate(answers) if s == 200]
    verify(f"storm: of {STORM} concurrent redemptions of one link (half on each instance) exactly one succeeds ({took:.1f} s)",
           len(winners) == 1, dict(kinds))
    others = [(s, body) for i, (s, body, _) in enumerate(answers) if i not in winners]
    refused = [s == 403 and isinstance(body, dict) and body.get("code") == 7852 for s, body in others]
    verify("storm: every other answer is 403 with code 7852 (already redeemed by another user): no 5xx, no dropped connection",
           all(refused) and len(others) == STORM - len(winners), dict(kinds))
    if len(winners) != 1:
        return
    winner = f"claimant-{winners[0]:03d}"
    seen = [entitled(instance, app["keys"]["public_production"], winner) for instance in (a, b)]
    verify(f"storm: the winner ({winner}, on {(a, b)[winners[0] % 2].name}) has the entitlement in Customer Info on both instances",
           all(ok for _, ok in seen), seen)
    losers = [f"claimant-{i:03d}" for i in range(STORM) if i != winners[0]]
    with ThreadPoolExecutor(8) as pool:
        found = list(pool.map(lambda n: (losers[n], entitled((a, b)[n % 2], app["keys"]["public_production"], losers[n])),
                              range(len(losers))))
    wrong = [(user, status, ok) for user, (status, ok) in found if status != 200 or ok]
    verify(f"storm: none of the other {len(losers)} claimants has it (asked on both instances)", not wrong, wrong[:5])


LISTEN_WINDOW = 0.25  # CustomerVersions.window: how stale an instance may serve what it heard


def cache_coherence(a, b, app, db_url):
    """Reads on one instance (twice, so a cache would be warm), a write on the other, then the reader must show it within
    the listener's window (the next read, unless the announcement is still on its way)."""
    key = app["keys"]["public_production"]
    database = urllib.parse.urlsplit(db_url).path.lstrip("/")
    listeners = psql(db_url, "SELECT client_port FROM pg_stat_activity WHERE datname = current_database() "
                             "AND query LIKE 'SELECT pg_notify(%' AND pid <> pg_backend_pid()")
    verify(f"each instance listens on a direct connection to {database} (2 listeners pinging)", len(listeners) == 2, listeners)
    rounds = []
    for n in range(6):
        reader, writer = (b, a) if n % 2 == 0 else (a, b)
        user = f"coherent-{n}"
        before = [entitled(reader, key, user) for _ in range(2)]
        if n % 4 < 2:
            how = "purchase"
            status, _, _ = purchase(writer, app, user)
            wrote = status == 201
        else:
            how = "redemption"
            status, granted, _ = purchase(writer, app, f"coherent-buyer-{n}")
            token = (granted or {}).get("redemption_https_url", "/").rsplit("/", 1)[-1]
            status, _, _ = redeem(writer, app, user, token, f"10.40.0.{n + 1}")
            wrote = status == 200
        written = time.monotonic()
        after, reads = entitled(reader, key, user), 1
        while after != (200, True) and time.monotonic() - written < LISTEN_WINDOW + 0.05:
            after, reads = entitled(reader, key, user), reads + 1
        rounds.append((n, how, f"read {reader.name}, wrote {writer.name}", before, wrote, after, reads))
    good = [r for r in rounds if all(s == 200 and not ok for s, ok in r[3]) and r[4] and r[5] == (200, True)]
    verify(f"cache coherence: 6 rounds (purchases and redemptions, both directions): after two reads on one instance, a write "
           f"on the other shows within {LISTEN_WINDOW} s (reads until it showed: {[r[6] for r in rounds]})",
           len(good) == len(rounds), [r for r in rounds if r not in good])


def offerings_coherence(a, b, app):
    """Each instance keeps its offerings answers in memory, yet an offering override set through one instance is what the
    other answers at once, and so is its removal: each request reads the catalog's version and the user's override."""
    secret, key = app["keys"]["secret"], app["keys"]["public_production"]
    made = [call("POST", f"{a.base}/admin/v1/apps/{app['id']}/offerings", key=secret, body=body)[0] for body in (
        {"identifier": "main", "is_current": True, "packages": [{"identifier": "$rc_lifetime", "product_id": "pro"}]},
        {"identifier": "sale", "packages": [{"identifier": "$rc_lifetime", "product_id": "pro"}]})]

    def current(instance):
        status, body, _ = call("GET", f"{instance.base}/v1/subscribers/offer-user/offerings", key=key)
        return body.get("current_offering_id") if status == 200 and isinstance(body, dict) else status

    warm = [current(i) for i in (b, b, a, a)]
    chose = call("POST", f"{a.base}/v1/subscribers/offer-user/offerings/sale/override", key=secret)[0]
    chosen = [current(b), current(a), call("GET", f"{b.base}/v1/subscribers/other-user/offerings", key=key)[1].get("current_offering_id")]
    removed = call("DELETE", f"{b.base}/v1/subscribers/offer-user/offerings/override", key=secret)[0]
    back = [current(a), current(b)]
    verify("an offering override set through A is what B answers at once (other users keep the app's), and its removal "
           "through B is what A answers", made == [201, 201] and warm == ["main"] * 4 and chose == 200
           and chosen == ["sale", "sale", "main"] and removed == 200 and back == ["main", "main"], (made, warm, chose, chosen, removed, back))


def rate_limits(a, b, app):
    by_ip = in_one_window(lambda t: [redeem((a, b)[n % 2], app, f"ip-limited-{t}-{n}", BAD_TOKEN, f"10.30.{t}.1") for n in range(2 * PER_IP)])
    by_user = in_one_window(lambda t: [redeem((a, b)[n % 2], app, f"user-limited-{t}", BAD_TOKEN, f"10.31.{t}.{n + 1}")
                                       for n in range(2 * PER_USER)])
    for label, answers, limit in (("per-IP", by_ip, PER_IP), ("per-user", by_user, PER_USER)):
        summary = [(("A", "B")[n % 2], s, body.get("code") if isinstance(body, dict) else body) for n, (s, body, _) in enumerate(answers)]
        passed = all(s == 400 and body.get("code") == 7849 for s, body, _ in answers[:limit])
        refused = all(s == 429 and body.get("code") == 7429 and headers.get("Retry-After") for s, body, headers in answers[limit:])
        verify(f"rate limits: the {label} limit ({limit}/min) is shared: of {2 * limit} attempts alternating A and B "
               f"({limit} each), the first {limit} pass and the other {limit} get 429 with Retry-After, on both instances",
               passed and refused, summary)


def webhooks(a, b, env, db_url, hooks_app, dead_app, receiver, hung, count=30, dead_count=10):
    """Returns the checks that need both instances stopped (exactly once: nothing can arrive after that)."""
    healthy = json.loads(run_cli(BIN, ["webhooks", "create", "--app", hooks_app["id"], "--url", receiver.url, "--json"], env))
    # The dead app has two dead endpoints: one that accepts and never answers, one where nothing listens.
    run_cli(BIN, ["webhooks", "create", "--app", dead_app["id"], "--url", hung.url, "--json"], env)
    run_cli(BIN, ["webhooks", "create", "--app", dead_app["id"], "--url", f"http://127.0.0.1:{free_port()}/hook", "--json"], env)
    with ThreadPoolExecutor(6) as pool:
        dead = list(pool.map(lambda n: purchase((a, b)[n % 2], dead_app, f"dead-{n}")[0], range(dead_count)))
        started = time.monotonic()
        made = list(pool.map(lambda n: purchase((a, b)[n % 2], hooks_app, f"hooked-{n}")[0], range(count)))
    verify(f"webhooks: {count} purchases for the healthy app and {dead_count} for the dead one (a hung endpoint and a "
           "refusing one), spread over both instances",
           made == [201] * count and dead == [201] * dead_count, (collections.Counter(made), collections.Counter(dead)))
    expected = {r[0] for r in psql(db_url, f"SELECT event_id FROM webhook_deliveries WHERE endpoint_id = '{healthy['id']}'")}
    arrived = wait_for(lambda: expected and expected <= {event_id for event_id, _ in receiver.received()})
    ids = {event_id for event_id, _ in receiver.received()}
    verify(f"webhooks: every one of the {len(expected)} events queued for the healthy endpoint arrived "
           f"({'%.1f s after the first purchase' % (max(at for _, at in receiver.received()) - started) if arrived else 'not all'})",
           len(expected) >= count and ids == expected, (len(expected), len(ids), sorted(expected - ids)[:3], sorted(ids - expected)[:3]))
    refused_sql = (f"SELECT count(*) FROM webhook_attempts t JOIN webhook_deliveries d ON d.id = t.delivery_id JOIN webhook_endpoints e "
                   f"ON e.id = d.endpoint_id WHERE e.app_id = '{dead_app['id']}' AND e.url <> '{hung.url}'")
    tried = wait_for(lambda: len(hung.held) > 0 and int(psql(db_url, refused_sql)[0][0]) > 0, interval=0.2)
    verify("webhooks: the dead endpoints were being tried meanwhile (the hung one holds connections, the refusing one has "
           "failed attempts)", tried, (len(hung.held), psql(db_url, refused_sql)))
    # Stopping before the last answers are recorded would cancel them: wait until the database has each as delivered.
    undelivered = f"SELECT count(*) FROM webhook_deliveries WHERE endpoint_id = '{healthy['id']}' AND delivered_at IS NULL"
    wait_for(lambda: psql(db_url, undelivered) == [["0"]], interval=0.2)

    def after_stop():
        received = receiver.received()
        counts = collections.Counter(event_id for event_id, _ in received)
        duplicates = {event_id: n for event_id, n in counts.items() if n > 1}
        verify("webhooks: each event arrived exactly once (no event ID twice, counted after both instances exited)",
               received and not duplicates and set(counts) == expected, (len(received), duplicates))
        shares = {i.name: sum(e.get("msg") == "webhook attempt" and e.get("event_id") in expected for e in i.entries()) for i in (a, b)}
        verify(f"webhooks: the two logs hold one attempt per healthy event between them (A and B made {shares})",
               sum(shares.values()) == len(expected), shares)
        rows = psql(db_url, f"SELECT d.event_id, d.delivered_at IS NOT NULL, count(t.id) FROM webhook_deliveries d "
                            f"LEFT JOIN webhook_attempts t ON t.delivery_id = d.id WHERE d.endpoint_id = '{healthy['id']}' "
                            f"GROUP BY d.event_id, d.delivered_at")
        bad = [r for r in rows if r[1] != "t" or r[2] != "1"]
        verify("webhooks: the database records each healthy delivery as delivered after exactly one attempt",
               len(rows) == len(expected) and not bad, bad[:5])
    return after_stop


def emails(a, b, db_url, app, mail, count=20):
    """Returns the checks that need both instances stopped, as webhooks() does."""
    recipients = [f"receipt-{n}@example.com" for n in range(count)]
    with ThreadPoolExecutor(6) as pool:
        made = list(pool.map(lambda n: purchase((a, b)[n % 2], app, f"mailed-{n}", email=recipients[n], send_receipt_email=True)[0],
                             range(count)))
    verify(f"e-mail: {count} purchases with a receipt e-mail, spread over both instances", made == [201] * count, collections.Counter(made))
    queued = {r[0] for r in psql(db_url, f"SELECT id FROM email_outbox WHERE app_id = '{app['id']}' AND kind = 'receipt'")}
    started = time.monotonic()

    def ours(message):
        return any(r in recipients for r in message["rcpt_tos"])
    got = mail.messages(ours, count)
    by_recipient = collections.Counter(r for m in got for r in m["rcpt_tos"])
    verify(f"e-mail: every receipt arrived ({len(got)} messages for {count} receipts, {time.monotonic() - started:.1f} s after the purchases)",
           len(queued) == count and set(by_recipient) == set(recipients), (len(queued), len(got), sorted(set(recipients) - set(by_recipient))[:3]))
    unsent = f"SELECT count(*) FROM email_outbox WHERE app_id = '{app['id']}' AND sent_at IS NULL"
    wait_for(lambda: psql(db_url, unsent) == [["0"]], interval=0.2)  # recorded as sent, so stopping cancels none

    def after_stop():
        got = mail.messages(ours, 0, timeout=0)
        by_recipient = collections.Counter(r for m in got for r in m["rcpt_tos"])
        by_id = collections.Counter(m["message_id"].strip("<>").removesuffix("@redeem") for m in got)
        verify("e-mail: each receipt arrived exactly once (by Message-ID and by recipient, counted after both instances exited)",
               got and set(by_id) == queued and max(by_id.values()) == 1 and max(by_recipient.values()) == 1,
               ({k: v for k, v in by_id.items() if v > 1}, {k: v for k, v in by_recipient.items() if v > 1}))
        shares = {i.name: sum(e.get("msg") == "e-mail sent" and e.get("email_id") in queued for e in i.entries()) for i in (a, b)}
        verify(f"e-mail: the two logs hold one send per receipt between them (A and B sent {shares})",
               sum(shares.values()) == len(queued), shares)
    return after_stop


def stop_all(instances):
    """SIGTERM to every instance; each one's exit status and seconds to exit (None when the hang guard ran out)."""
    for instance in instances:
        if instance.process and instance.process.poll() is None:
            instance.process.send_signal(signal.SIGTERM)
    started = time.monotonic()
    stopped = {}
    for instance in instances:
        if not instance.process:
            continue
        try:
            instance.process.wait(timeout=max(0.1, HANG_GUARD - (time.monotonic() - started)))
            stopped[instance.name] = (instance.process.returncode, round(time.monotonic() - started, 2))
        except subprocess.TimeoutExpired:
            stopped[instance.name] = (None, None)
    for instance in instances:
        if instance.process and instance.process.poll() is None:
            instance.process.kill()
            instance.process.wait()
        instance.log_file.close()
    return stopped


def pooled_through(pooler, database):
    """The instances' client connections to the pooler for `database` and its server connections to PostgreSQL."""
    clients = [c for c in pooler.show("CLIENTS") if c.get("database") == database]
    servers = [c for c in pooler.show("SERVERS") if c.get("database") == database]
    return len(clients), len(servers)


def listener_refuses_poolers(cluster_url, workdir, pg_port, pooler):
    """A listen URL through PgBouncer is refused, whether PgBouncer answers on a port of its own or on PostgreSQL's (here
    on another loopback address): the session's key names no backend, so the instance reads Customer Info's tag on
    every request rather than trust a LISTEN that would hear some other client's session. It still serves."""
    PASS.update(label="listen through a pooler", instances=[], pooler=None)
    database = "multi_listen"
    psql(cluster_url, f"CREATE DATABASE {database}")
    db_url = on_database(cluster_url, database)
    run_cli(BIN, ["migrate"], {**os.environ, "REDEEM_DATABASE_URL": db_url})
    same_port = Pooler(workdir, pg_port, address="127.0.0.2", port=pg_port, name="pooler-same-port")
    try:
        verify("a second PgBouncer starts on PostgreSQL's port, on 127.0.0.2", same_port.start(), same_port.process.poll())
        for where, through in (("on a port of its own", pooler), ("on PostgreSQL's port", same_port)):
            env = {**os.environ, "REDEEM_DATABASE_URL": db_url, "REDEEM_DATABASE_LISTEN_URL": through.url(database), "REDEEM_LOG_FORMAT": "json"}
            instance = Instance(f"listen-{through.port}-{through.address}", env, workdir, [])
            PASS["instances"] = [instance]
            instance.start()
            try:
                healthy = wait_for(lambda: call("GET", instance.base + "/health", timeout=5)[0] == 200, timeout=HANG_GUARD)
                refused = wait_for(lambda: "does not reach PostgreSQL directly" in instance.log(), timeout=30)
                verify(f"a listen URL through PgBouncer {where} is refused, and the instance serves", bool(healthy) and bool(refused),
                       (healthy, refused))
            finally:
                stop_all([instance])
    finally:
        same_port.stop()


def run_pass(label, cluster_url, workdir, pooler=None):
    """The whole scenario on a fresh database, the instances and the CLI connected directly or through `pooler`; checks
    on the database itself (psql) always go directly."""
    PASS.update(label=label, instances=[], pooler=pooler)
    began = time.monotonic()
    workdir = os.path.join(workdir, label)
    os.makedirs(workdir)
    database = f"multi_{label}"
    psql(cluster_url, f"CREATE DATABASE {database}")
    db_url = on_database(cluster_url, database)
    redeem_url = pooler.url(database) if pooler else db_url
    # The listener needs a session of its own: through the pooler, it connects to PostgreSQL directly.
    env = {**os.environ, "REDEEM_DATABASE_URL": redeem_url, "REDEEM_DATABASE_LISTEN_URL": db_url, "REDEEM_LOG_FORMAT": "json"}
    mail = MailServer(os.path.join(workdir, "mail"))
    receiver, hung = HookReceiver(), HungEndpoint()
    extra = ["--smtp-url", mail.url, "--mail-from", "receipts@example.com", "--trusted-proxies", "127.0.0.1",
             "--rate-limit-per-ip", str(PER_IP), "--rate-limit-per-user", str(PER_USER)]
    a, b = Instance("A", env, workdir, extra), Instance("B", env, workdir, extra)
    PASS["instances"].extend([a, b])
    deferred = []  # checks that count what arrived, run once both instances have exited
    try:
        if start_together([a, b], db_url, redeem_url):
            apps = {}
            for name in ("Storm", "Hooks", "Dead", "Mail"):
                apps[name] = json.loads(run_cli(BIN, ["apps", "create", "--name", f"Multi {name}", "--json"], env))
                run_cli(BIN, ["products", "create", "--app", apps[name]["id"], "--id", "pro", "--type", "non_consumable",
                              "--entitlement", "pro"], env)
            phases = {}
            for phase, run_phase in (("storm", lambda: storm(a, b, apps["Storm"])),
                                     ("cache", lambda: cache_coherence(a, b, apps["Storm"], db_url)),
                                     ("offerings", lambda: offerings_coherence(a, b, apps["Mail"])),
                                     ("rate limits", lambda: rate_limits(a, b, apps["Storm"])),
                                     ("webhooks", lambda: webhooks(a, b, env, db_url, apps["Hooks"], apps["Dead"], receiver, hung)),
                                     ("e-mail", lambda: emails(a, b, db_url, apps["Mail"], mail))):
                phase_started = time.monotonic()
                after_stop = run_phase()
                if after_stop:
                    deferred.append(after_stop)
                phases[phase] = round(time.monotonic() - phase_started, 1)
                if pooler and phase == "storm":
                    # Right after the storm both instances still hold the connections it made them open.
                    clients, servers = pooled_through(pooler, database)
                    verify(f"the instances' {clients} connections to PgBouncer shared {servers} server connections "
                           f"(at most {Pooler.POOL_SIZE})", clients > servers > 0 and servers <= Pooler.POOL_SIZE, (clients, servers))
            print(f"[{label}] phase timings (s):", phases, flush=True)
            alive = [i.name for i in (a, b) if i.process.poll() is None]
            verify("both instances are still running", alive == ["A", "B"], alive)
    finally:
        stopped = stop_all([a, b])
        verify("SIGTERM stops both instances, each exiting 0", len(stopped) == 2 and all(code == 0 for code, _ in stopped.values()),
               stopped, tails=False)
        for after_stop in deferred:
            after_stop()
        errors = [(i.name, e.get("msg"), e.get("error")) for i in (a, b) for e in i.errors()]
        verify("neither log has an error over the whole run", not errors, errors[:5])
        print(f"[{label}] stopped (exit status, s): {stopped}; pass {time.monotonic() - began:.1f} s", flush=True)
        receiver.stop()
        hung.stop()
        mail.stop()


def main():
    if not PG_BIN:
        print("skip: PostgreSQL is not installed (scripts/postgres-up.sh installs it)")
        return finish()
    began = time.monotonic()
    workdir = tempfile.mkdtemp(prefix="redeem-multi-")
    directory, pg_port = f"/tmp/redeem-pg-multi-{uuid.uuid4().hex[:8]}", free_port()
    cluster_url = subprocess.run(["bash", os.path.join(ROOT, "scripts/postgres-up.sh")], check=True, capture_output=True, text=True,
                                 env={**os.environ, "REDEEM_PG_DIR": directory, "REDEEM_PG_PORT": str(pg_port)}).stdout.strip()
    pooler = None
    try:
        run_pass("direct", cluster_url, workdir)
        PASS.update(label="pgbouncer", instances=[], pooler=None)
        if not (shutil.which("pgbouncer") or os.path.exists("/usr/sbin/pgbouncer")):
            verify("PgBouncer is installed (bash scripts/system-deps.sh pgbouncer)", False, "no pgbouncer binary")
        else:
            pooler = Pooler(workdir, pg_port)
            PASS["pooler"] = pooler
            if pooler.start():
                version = pooler.show("VERSION")
                print(f"[pgbouncer] {next(iter(version[0].values()), '?') if version else '?'}, pool_mode = transaction, "
                      f"default_pool_size = {Pooler.POOL_SIZE}, port {pooler.port}", flush=True)
                run_pass("pgbouncer", cluster_url, workdir, pooler)
                listener_refuses_poolers(cluster_url, workdir, pg_port, pooler)
            else:
                verify("PgBouncer starts and its admin console answers", False, pooler.process.poll())
    finally:
        if pooler:
            pooler.stop()
        print(f"whole run {time.monotonic() - began:.1f} s", flush=True)
        try:
            subprocess.run(["bash", os.path.join(ROOT, "scripts/postgres-down.sh")], capture_output=True,
                           env={**os.environ, "REDEEM_PG_DIR": directory}, timeout=60)
        finally:
            shutil.rmtree(directory, ignore_errors=True)
            shutil.rmtree(workdir, ignore_errors=True)
    finish()


if __name__ == "__main__":
    main()

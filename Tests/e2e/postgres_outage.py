#!/usr/bin/env python3
"""PostgreSQL restarts under load, three times: no request fails with a 500 or is lost (requests in flight either get
a 503 with Retry-After or wait for the database and succeed), Redeem serves again each time without being restarted,
its Customer Info listener reconnects, and SIGTERM still stops it. A query sent as the server closes its connection used to wait forever
(PostgresCallWatch). Runs its own PostgreSQL cluster (scripts/postgres-up.sh with another directory and port), so
other tests' databases are untouched.
Usage: postgres_outage.py path/to/redeem. Prints 'N passed, M failed'."""
import glob, json, os, shutil, subprocess, sys, tempfile, threading, time, urllib.error, urllib.request, uuid

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from support import HANG_GUARD, check, finish, free_port, wait_for, wait_healthy  # noqa: E402

BIN = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else ".build/debug/redeem")
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PG_BIN = sorted(glob.glob("/usr/lib/postgresql/*/bin"))[-1] if glob.glob("/usr/lib/postgresql/*/bin") else None


def pg_ctl(directory, *args):
    subprocess.run(["runuser", "-u", "postgres", "--", f"{PG_BIN}/pg_ctl", "-D", directory, "-w", *args],
                   check=True, capture_output=True, cwd="/")


failures = []  # what the requests that got no HTTP answer saw, and after how long


def request(url, key, body=None):
    """(status, Retry-After) of one request; status 0 when the connection itself failed."""
    started = time.monotonic()
    req = urllib.request.Request(url, method="POST" if body else "GET", data=json.dumps(body).encode() if body else None)
    req.add_header("Authorization", f"Bearer {key}")
    if body:
        req.add_header("Content-Type", "application/json")
        req.add_header("Idempotency-Key", str(uuid.uuid4()))
    try:
        with urllib.request.urlopen(req, timeout=HANG_GUARD) as response:
            return response.status, None
    except urllib.error.HTTPError as error:
        return error.code, error.headers.get("Retry-After")
    except OSError as error:
        failures.append(f"{url.split('/v1/')[-1]}: {error!r} after {time.monotonic() - started:.1f} s")
        return 0, None


def main():
    if not PG_BIN:
        print("skip: PostgreSQL is not installed (scripts/postgres-up.sh installs it)")
        return finish()
    directory, port = f"/tmp/redeem-pg-outage-{uuid.uuid4().hex[:8]}", free_port()
    url = subprocess.run(["bash", os.path.join(ROOT, "scripts/postgres-up.sh")], check=True, capture_output=True, text=True,
                         env={**os.environ, "REDEEM_PG_DIR": directory, "REDEEM_PG_PORT": str(port)}).stdout.strip()
    env = {**os.environ, "REDEEM_DATABASE_URL": url}
    server = None
    try:
        subprocess.run([BIN, "migrate"], env=env, check=True, capture_output=True)
        app = json.loads(subprocess.run([BIN, "apps", "create", "--name", "Outage", "--json"], env=env, check=True,
                                        capture_output=True, text=True).stdout)
        subprocess.run([BIN, "products", "create", "--app", app["id"], "--id", "pro", "--type", "non_consumable"], env=env,
                       check=True, capture_output=True)
        http_port = free_port()
        base = f"http://127.0.0.1:{http_port}"
        # The log goes to a file: a pipe nobody reads fills up and then blocks the server's logging, and its requests.
        log_file = tempfile.TemporaryFile(mode="w+")
        server = subprocess.Popen([BIN, "serve", "--port", str(http_port)], env=env, stdout=subprocess.DEVNULL, stderr=log_file, text=True)
        check("serve starts on PostgreSQL", wait_healthy(base, server))

        answers = []
        stop = threading.Event()

        def load():
            n = 0
            while not stop.is_set():
                n += 1
                answers.append(request(f"{base}/v1/subscribers/user-{n % 20}", app["keys"]["public_production"]))
                answers.append(request(f"{base}/v1/purchases", app["keys"]["secret"], {"app_user_id": f"user-{n % 20}", "product_id": "pro"}))

        threads = [threading.Thread(target=load) for _ in range(3)]
        for thread in threads:
            thread.start()
        # Each phase ends on what it waits for (answers before, a 503 during, a 200 after), not after a set time.
        wait_for(lambda: len(answers) >= 20)
        before, during, refused, recovered = len(answers), [], [], []
        for _ in range(3):
            start = len(answers)
            pg_ctl(directory, "stop", "-m", "fast")
            refused.append(bool(wait_for(lambda: any(status == 503 for status, _ in answers[start:]))))
            during += answers[start:]
            pg_ctl(directory, "start", "-l", f"{directory}/restart.log")
            recovered.append(bool(wait_for(lambda: request(f"{base}/v1/subscribers/user-1", app["keys"]["public_production"])[0] == 200,
                                           interval=0.2)))
            back_at = len(answers)
            wait_for(lambda: sum(status in (200, 201) for status, _ in answers[back_at:]) >= 20)
        stop.set()
        for thread in threads:
            thread.join()
        # Customer Info's listener (its own connection, outside the pool) must come back too: once stuck on a ping sent as
        # PostgreSQL stopped, it never reconnected, and Customer Info read its tag on every request until a restart.
        listening = wait_for(lambda: subprocess.run(
            ["psql", url, "-Atc", "SELECT count(*) FROM pg_stat_activity WHERE application_name = 'redeem listener'"],
            capture_output=True, text=True).stdout.strip() == "1", timeout=10, interval=0.2)

        statuses = sorted({status for status, _ in answers})
        check("the load ran before, during and after the outage", before > 0 and len(during) > 0 and len(answers) > len(during) + before,
              (before, len(during), len(answers)))
        check("each of the three outages answered 503, and every 503 carries Retry-After",
              refused == [True] * 3 and all(retry is not None for status, retry in answers if status == 503), refused)
        check("no request got a 500, a broken connection or no answer: only 200, 201 and 503", set(statuses) <= {200, 201, 503},
              (statuses, failures[:5]))
        check("Redeem serves again each time PostgreSQL is back, without a restart", all(recovered) and server.poll() is None, recovered)
        check("Customer Info's listener is connected again after the last restart", bool(listening))
    finally:
        if server:
            server.terminate()
            stopping = time.monotonic()
            try:
                server.wait(timeout=HANG_GUARD)
            except subprocess.TimeoutExpired:
                server.kill()
                server.wait()
            took = time.monotonic() - stopping
            check("after the outages SIGTERM still stops it, exiting 0", server.returncode == 0, server.returncode)
            print(f"     (SIGTERM to exit: {took:.2f} s)")
            log_file.seek(0)
            log = log_file.read()
            check("the outage is not logged as critical", '"critical"' not in log and " critical " not in log,
                  [line for line in log.splitlines() if "critical" in line][:3])
            if failures or server.returncode != 0:
                print("server log, last lines:\n" + "\n".join(log.splitlines()[-40:]))
        try:
            pg_ctl(directory, "stop", "-m", "immediate")
        except subprocess.CalledProcessError:
            pass
        shutil.rmtree(directory, ignore_errors=True)
    finish()


main()

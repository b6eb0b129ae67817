#!/usr/bin/env python3
"""Prometheus metrics from a real `redeem serve --metrics-port`: the listener is on loopback and separate from the
public port, and every metric docs/metrics.md lists moves by exactly what was done, scraped before and after: a purchase,
a redemption, refused and rate-limited redemptions; offer codes in the app and on the web; receipts that are sent,
refused for good and deferred by a real SMTP server (with the queue's depth and age); webhook deliveries that arrive,
are retried and are given up (with that queue's depth and age). Also the landing page at GET /.
Usage: metrics_e2e.py path/to/redeem. Prints 'N passed, M failed'."""
import csv, json, os, re, sqlite3, subprocess, sys, time, urllib.error, urllib.parse, urllib.request, uuid

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from support import (HANG_GUARD, MailServer, WebhookReceiver, call, check, fetch, finish, free_port, http, scratch_dir,  # noqa: E402
                     wait_for, wait_healthy)

BIN = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else ".build/debug/redeem")


def cli(args, env):
    done = subprocess.run([BIN, *args], env=env, capture_output=True, text=True)
    if done.returncode != 0:
        raise RuntimeError(f"{args}: {done.stderr}")
    return done.stdout


def scrape(url):
    with urllib.request.urlopen(url, timeout=HANG_GUARD) as response:
        return response.status, response.headers.get("Content-Type", ""), response.read().decode()


def samples(text, name):
    """Every sample of `name`: {tuple of sorted (label, value) pairs: value}."""
    found = {}
    for line in text.splitlines():
        match = re.match(r'^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{(.*)\})? (\S+)$', line)
        if match and match.group(1) == name:
            found[tuple(sorted(re.findall(r'([a-zA-Z_]+)="([^"]*)"', match.group(3) or "")))] = float(match.group(4))
    return found


def value(text, name, **labels):
    """The sum of the samples of `name` whose labels include `labels`; 0 when absent."""
    return sum(v for found, v in samples(text, name).items() if all(dict(found).get(k) == w for k, w in labels.items()))


def moved(before, after, name, label):
    """How each sample of `name` changed, keyed by its `label`: only those that moved."""
    old, new = samples(before, name), samples(after, name)
    changes = {}
    for key in set(old) | set(new):
        delta = new.get(key, 0) - old.get(key, 0)
        if delta:
            changes[dict(key).get(label)] = changes.get(dict(key).get(label), 0) + delta
    return changes


def listening_addresses(port):
    """The addresses listening on `port`, IPv4 and IPv6, from /proc/net/tcp and tcp6 (state 0A is LISTEN)."""
    found = []
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        if not os.path.exists(table):
            continue
        with open(table) as f:
            for line in f.readlines()[1:]:
                local, state = line.split()[1], line.split()[3]
                address, hex_port = local.split(":")
                if state == "0A" and int(hex_port, 16) == port:
                    found.append(".".join(str(int(address[i:i + 2], 16)) for i in (6, 4, 2, 0)) if len(address) == 8 else "[" + address + "]")
    return found


def timed_purchase(base, key, body):
    """A server API purchase, with the clock before and after it: whatever it queued was created in between."""
    began = time.time()
    status, answer = http("POST", base + "/v1/purchases", key=key, body=body, headers={"Idempotency-Key": uuid.uuid4().hex})
    return status, answer, began, time.time()


BACKDATE = 3600  # seconds an item's creation is moved back, so its age cannot pass for 0 or for a few milliseconds


def backdate(db_path, table, where, *arguments):
    with sqlite3.connect(db_path, timeout=HANG_GUARD) as database:
        database.execute(f"UPDATE {table} SET created_at = created_at - {BACKDATE * 1000} WHERE {where}", arguments)


def scrape_until(url, condition):
    """The first scrape whose text satisfies `condition` (or the last one, once the hang guard has run out)."""
    last = [""]

    def satisfied():
        last[0] = scrape(url)[2]
        return condition(last[0])
    wait_for(satisfied)
    return last[0]


def scrape_timed(url):
    """(clock before, the scrape, clock after)."""
    began = time.time()
    text = scrape(url)[2]
    return began, text, time.time()


def aged(scraped, name, created):
    """Whether the age gauge `name` in `scraped` is what the server must compute, its scrape time minus the item's
    creation (made during `created`, then backdated): within the bounds the two clock windows give, 10 ms for rounding."""
    began, text, ended = scraped
    low, high = BACKDATE + began - created[1] - 0.01, BACKDATE + ended - created[0] + 0.01
    return low <= value(text, name) <= high, (value(text, name), round(low, 3), round(high, 3))


class NoRedirect(urllib.request.HTTPRedirectHandler):
    """Keeps a 303 as the answer, so its status can be checked."""

    def redirect_request(self, *args, **kwargs):
        return None


def claim(base, app_id, code, user, email):
    """The offer page's form posted as a browser would (a new claim ID each time); the answer's status. On the web a
    claimer is known by their address, so two people claim with two addresses."""
    form = {"ctx": "offercodes", "id": app_id, "code": code, "claim_id": uuid.uuid4().hex, "email": email,
            **({"app_user_id": user} if user else {})}
    request = urllib.request.Request(base + "/redeem", data=urllib.parse.urlencode(form).encode(), method="POST")
    try:
        return urllib.request.build_opener(NoRedirect).open(request, timeout=HANG_GUARD).status
    except urllib.error.HTTPError as error:
        return error.code


def main():
    workdir = scratch_dir("redeem-metrics-")
    db_path = os.path.join(workdir, "redeem.sqlite")
    env = {**os.environ, "REDEEM_DATABASE_URL": db_path}
    cli(["migrate"], env)
    app = json.loads(cli(["apps", "create", "--name", "Metrics Demo", "--json"], env))
    cli(["products", "create", "--app", app["id"], "--id", "pro", "--type", "non_consumable", "--entitlement", "pro"], env)
    cli(["products", "create", "--app", app["id"], "--id", "pro_monthly", "--type", "subscription", "--period", "P1M", "--entitlement", "pro"], env)
    offer = json.loads(cli(["offers", "create", "--app", app["id"], "--product", "pro_monthly", "--reference-name", "Trial",
                            "--payment-mode", "free_trial", "--duration", "P1W", "--eligibility", "new", "--json"], env))
    cli(["codes", "generate", "--offer", offer["id"], "--count", "3", "--out", os.path.join(workdir, "codes.csv")], env)
    with open(os.path.join(workdir, "codes.csv")) as f:
        codes = [row["code"] for row in csv.DictReader(f)]
    gauges_app = json.loads(cli(["apps", "create", "--name", "Metrics Gauges", "--json"], env))
    cli(["products", "create", "--app", gauges_app["id"], "--id", "monthly", "--type", "subscription", "--period", "P1M", "--entitlement", "pro"], env)
    hooks_app = json.loads(cli(["apps", "create", "--name", "Metrics Hooks", "--json"], env))
    cli(["products", "create", "--app", hooks_app["id"], "--id", "pro", "--type", "non_consumable", "--entitlement", "pro"], env)
    healthy, failing = WebhookReceiver(os.path.join(workdir, "healthy")), WebhookReceiver(os.path.join(workdir, "failing"), 1_000_000)
    for receiver in (healthy, failing):
        cli(["webhooks", "create", "--app", hooks_app["id"], "--url", receiver.url], env)
    smtp = MailServer(os.path.join(workdir, "mail"))

    port, metrics_port = free_port(), free_port()
    base, metrics = f"http://127.0.0.1:{port}", f"http://127.0.0.1:{metrics_port}/metrics"
    log = open(os.path.join(workdir, "server.log"), "w")
    server = subprocess.Popen([BIN, "serve", "--port", str(port), "--metrics-port", str(metrics_port), "--rate-limit-per-user", "3",
                               "--smtp-url", smtp.url, "--mail-from", "shop@example.com"],
                              env=env, stdout=subprocess.DEVNULL, stderr=log)
    try:
        check("serve starts with a metrics listener", wait_healthy(base, server))
        # Subscription gauges: a known app's subscriptions, recorded before the first scrape computes them.
        for body in ({"app_user_id": "g1", "price": {"amount": "4.99", "currency": "USD"}},
                     {"app_user_id": "g2", "price": {"amount": "3.00", "currency": "EUR"}},
                     {"app_user_id": "g3", "price": {"amount": "9.99", "currency": "USD"}},
                     {"app_user_id": "g4", "period_type": "trial"},
                     {"app_user_id": "g5", "is_sandbox": True, "price": {"amount": "1.00", "currency": "USD"}}):
            status, _ = http("POST", base + "/v1/purchases", key=gauges_app["keys"]["secret"], body={**body, "product_id": "monthly"},
                             headers={"Idempotency-Key": uuid.uuid4().hex})
            check(f"gauges: {body['app_user_id']}'s subscription is recorded", status == 201, status)
        status, kind, before = scrape(metrics)
        labels = {"app": gauges_app["id"], "environment": "production"}
        check("redeem_active_subscriptions and redeem_active_trials count the app's production subscriptions and trials",
              (value(before, "redeem_active_subscriptions", **labels), value(before, "redeem_active_trials", **labels)) == (3, 1),
              re.findall(r"redeem_active_.*", before))
        check("redeem_mrr is per currency: 4.99 + 9.99 USD and 3.00 EUR a month",
              (value(before, "redeem_mrr", currency="USD", **labels), value(before, "redeem_mrr", currency="EUR", **labels)) == (14.98, 3.0),
              re.findall(r"redeem_mrr.*", before))
        sandbox = {"app": gauges_app["id"], "environment": "sandbox"}
        check("sandbox is apart: one subscription, 1.00 USD MRR",
              (value(before, "redeem_active_subscriptions", **sandbox), value(before, "redeem_mrr", currency="USD", **sandbox)) == (1, 1.0),
              re.findall(r"redeem_(?:active_subscriptions|mrr)\{.*sandbox.*", before))
        http("POST", base + "/v1/purchases", key=gauges_app["keys"]["secret"], body={"app_user_id": "g6", "product_id": "monthly"},
             headers={"Idempotency-Key": uuid.uuid4().hex})
        check("a scrape within the minute reads the cached gauges, not the database",
              value(scrape(metrics)[2], "redeem_active_subscriptions", **labels) == 3)
        status, kind, before = scrape(metrics)  # the counters below move from here
        check("GET /metrics answers in Prometheus's text format", status == 200 and kind.startswith("text/plain; version=0.0.4"), kind)
        public, _, _ = fetch(base + "/metrics")
        check("the public port does not serve /metrics", public == 404, public)
        check("the metrics listener is bound to 127.0.0.1 only (no IPv6 or wildcard listener either)",
              listening_addresses(metrics_port) == ["127.0.0.1"], listening_addresses(metrics_port))
        check("with nothing queued, both queues' depth and age are 0",
              [value(before, n) for n in ("redeem_email_queue_depth", "redeem_email_queue_oldest_seconds", "redeem_webhook_queue_depth",
                                          "redeem_webhook_queue_oldest_seconds")] == [0, 0, 0, 0],
              re.findall(r"redeem_(?:email|webhook)_queue.*", before))

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

        check("redeem_redemptions_total counted the redemption and the invalid tokens, nothing else",
              moved(before, after, "redeem_redemptions_total", "outcome") == {"redeemed": 1, "invalid": 3},
              re.findall(r"redeem_redemptions_total.*", after))
        check("redeem_rate_limited_total counted the guess over the per-user limit",
              moved(before, after, "redeem_rate_limited_total", "limit") == {"redeem_user": 1}, re.findall(r"redeem_rate_limited.*", after))
        check("redeem_purchases_total counted the server API's purchase",
              moved(before, after, "redeem_purchases_total", "source") == {"server_api": 1}, re.findall(r"redeem_purchases_total.*", after))
        route = "/v1/subscribers/redeem_purchase"
        check("requests are counted by route pattern and status",
              value(after, "redeem_http_requests_total", route=route, status="200") == 1
              and value(after, "redeem_http_requests_total", route=route, status="400") == 3
              and value(after, "redeem_http_requests_total", route=route, status="429") == 1,
              re.findall(r"redeem_http_requests_total.*redeem_purchase.*", after))
        check("with a latency histogram per route",
              value(after, "redeem_http_request_duration_seconds_count", route=route) == 5
              and value(after, "redeem_http_request_duration_seconds_bucket", route=route, le="+Inf") == 5)
        check("no token or key reaches a label", token not in after and app["keys"]["secret"] not in after and "AAAAAAAA" not in after)
        check("database calls and their waits are timed",
              value(after, "redeem_db_call_seconds_count", kind="write") > value(before, "redeem_db_call_seconds_count", kind="write")
              and value(after, "redeem_db_wait_seconds_count", kind="read") > 0)

        # E-mail: the SMTP test server accepts one receipt, refuses one for good (550) and defers one (451).
        _, _, before = scrape(metrics)
        created = {}
        for recipient in ("buyer@example.com", "reject-me@example.com", "tempfail-me@example.com"):
            _, _, began, ended = timed_purchase(base, app["keys"]["secret"], {
                "app_user_id": "mail-" + recipient.split("@")[0], "product_id": "pro", "email": recipient, "send_receipt_email": True})
            created[recipient] = (began, ended)

        after = scrape_until(metrics, lambda text: len(moved(before, text, "redeem_email_attempts_total", "result")) == 3)
        check("redeem_email_attempts_total: one sent, one failed (refused for good), one retry (deferred)",
              moved(before, after, "redeem_email_attempts_total", "result") == {"sent": 1, "failed": 1, "retry": 1}
              and len(smtp.messages(lambda m: m["rcpt_tos"] == ["buyer@example.com"], 1)) == 1,
              re.findall(r"redeem_email_attempts_total.*", after))
        check("the deferred receipt is the e-mail queue: depth 1 (sent and failed ones left out)",
              value(after, "redeem_email_queue_depth") == 1, re.findall(r"redeem_email_queue.*", after))
        backdate(db_path, "email_outbox", "recipient = ?", "tempfail-me@example.com")
        ok, detail = aged(scrape_timed(metrics), "redeem_email_queue_oldest_seconds", created["tempfail-me@example.com"])
        check("redeem_email_queue_oldest_seconds is the deferred receipt's age (made an hour older)", ok, detail)

        # Webhooks: the hooks app's two endpoints, one healthy and one answering 500 to everything.
        _, _, before = scrape(metrics)
        status, _, began, ended = timed_purchase(base, hooks_app["keys"]["secret"], {"app_user_id": "hooked", "product_id": "pro"})
        made = (began, ended)

        after = scrape_until(metrics, lambda text: len(moved(before, text, "redeem_webhook_attempts_total", "result")) == 2)
        check("redeem_webhook_attempts_total: one delivered, one retry (the endpoint answered 500)",
              status == 201 and moved(before, after, "redeem_webhook_attempts_total", "result") == {"delivered": 1, "retry": 1}
              and (healthy.requests(), failing.requests()) == (1, 1),
              (re.findall(r"redeem_webhook_attempts_total.*", after), healthy.requests(), failing.requests()))
        check("the retrying delivery is the webhook queue: depth 1 (the delivered one left out)",
              value(after, "redeem_webhook_queue_depth") == 1, re.findall(r"redeem_webhook_queue.*", after))
        backdate(db_path, "webhook_deliveries", "app_id = ? AND delivered_at IS NULL", hooks_app["id"])
        ok, detail = aged(scrape_timed(metrics), "redeem_webhook_queue_oldest_seconds", made)
        check("redeem_webhook_queue_oldest_seconds is the retrying delivery's age (made an hour older)", ok, detail)
        # Retries are 5 minutes to hours apart: the delivery is moved to its last attempt (the 6th) and made due now,
        # so the worker's own policy gives it up.
        with sqlite3.connect(db_path, timeout=HANG_GUARD) as database:
            database.execute("UPDATE webhook_deliveries SET attempts = 5, next_attempt_at = 0, locked_until = NULL "
                             "WHERE app_id = ? AND delivered_at IS NULL AND failed_at IS NULL", (hooks_app["id"],))
        before = after
        after = scrape_until(metrics, lambda text: moved(before, text, "redeem_webhook_attempts_total", "result"))
        check("redeem_webhook_attempts_total: the last attempt failing counts as failed (given up)",
              moved(before, after, "redeem_webhook_attempts_total", "result") == {"failed": 1} and failing.requests() == 2,
              (re.findall(r"redeem_webhook_attempts_total.*", after), failing.requests()))
        check("a delivery given up leaves the webhook queue: depth 0, age 0",
              value(after, "redeem_webhook_queue_depth") == 0 and value(after, "redeem_webhook_queue_oldest_seconds") == 0,
              re.findall(r"redeem_webhook_queue.*", after))

        # Offer codes: in the app (redeemed, already redeemed, invalid) and on the web (redeemed, not eligible).
        _, _, before = scrape(metrics)
        key = app["keys"]["public_production"]
        answers = [call("POST", base + "/v1/subscribers/redeem_offer_code", key=key, body={"app_user_id": user, "code": code})[:2]
                   for user, code in (("offer-user", codes[0]), ("other-user", codes[0]), ("offer-user-2", "ZZZZ-ZZZZ-ZZZZ-ZZZZ"))]
        check("in the app: a code redeems, again is already redeemed (7864), an unknown one is invalid (7860)",
              [(s, b.get("code") if s != 200 else None) for s, b in answers] == [(200, None), (409, 7864), (400, 7860)], answers)
        http("POST", base + "/v1/purchases", key=app["keys"]["secret"], body={"app_user_id": "subscriber", "product_id": "pro_monthly"},
             headers={"Idempotency-Key": uuid.uuid4().hex})
        claims = [claim(base, app["id"], codes[1], None, "claimer@example.com"),
                  claim(base, app["id"], codes[2], "subscriber", "subscriber@example.com")]
        check("on the web: an anonymous claim redeems (303 to its success page), a subscriber's is refused (not new)",
              claims[0] == 303 and claims[1] == 403, claims)
        _, _, after = scrape(metrics)
        offer_codes = {(dict(k)["outcome"], dict(k)["channel"]): v - samples(before, "redeem_offer_code_redemptions_total").get(k, 0)
                       for k, v in samples(after, "redeem_offer_code_redemptions_total").items()}
        check("redeem_offer_code_redemptions_total counted each by outcome and channel",
              {k: v for k, v in offer_codes.items() if v} == {("redeemed", "sdk"): 1, ("already_redeemed", "sdk"): 1, ("invalid", "sdk"): 1,
                                                              ("redeemed", "web"): 1, ("not_eligible", "web"): 1},
              re.findall(r"redeem_offer_code_redemptions_total.*", after))
        check("redeem_purchases_total counted the two offer-code redemptions and the subscriber's purchase",
              moved(before, after, "redeem_purchases_total", "source") == {"offer_code": 2, "server_api": 1},
              re.findall(r"redeem_purchases_total.*", after))

        status, headers, landing = fetch(base + "/")
        check("GET / is a landing page with the console and the API document",
              status == 200 and headers["Content-Type"].startswith("text/html") and 'href="/console"' in landing
              and 'href="/openapi.json"' in landing and "healthy" in landing, (status, headers["Content-Type"]))
    finally:
        server.terminate()
        server.wait(timeout=HANG_GUARD)
        log.close()
        smtp.stop()
        healthy.stop()
        failing.stop()
    busy = subprocess.run([BIN, "serve", "--port", str(port), "--metrics-port", str(port)], env=env, capture_output=True, text=True,
                          timeout=HANG_GUARD)
    check("--metrics-port equal to --port is refused", busy.returncode != 0 and "--metrics-port" in busy.stderr, busy.stderr)
    finish()


main()

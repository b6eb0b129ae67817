#!/usr/bin/env python3
"""A chargeback end to end, against `redeem serve` with Stripe's webhooks signed as Stripe signs them, a fake Stripe API
on loopback (REDEEM_STRIPE_API_URL) and a real SMTP server: a web subscription is bought, its buyer's bank disputes the
payment (`charge.dispute.created`), Redeem cancels the subscription in Stripe, the app loses the entitlement, and the
buyer is e-mailed once. The e-mail, the console's customer page and the buyer's portal are then looked at in Chromium,
at desktop and phone width (test-artifacts/chargeback/).
Usage: chargeback_browser.py path/to/redeem. Prints 'N passed, M failed'."""
import hashlib, hmac, json, os, re, subprocess, sys, threading, time, urllib.error, urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from support import (MailServer, check, chromium, console_sign_in, desktop_context, finish, free_port, http, run_cli,  # noqa: E402
                     scratch_dir, screenshots, secrets_in, wait_healthy)

BIN = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else ".build/debug/redeem")
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
ARTIFACTS = os.path.join(ROOT, "test-artifacts", "chargeback")
BUYER = "disputer@example.com"
PASSWORD = "a long walk password"
WEBHOOK_SECRET = "whsec_chargebackWalk0123456789"
STRIPE_KEY = "sk_test_chargebackWalk0123456789"


class FakeStripe:
    """Stripe's subscription read and cancellation, as Redeem calls them; every call recorded as 'METHOD path'."""

    def __init__(self):
        self.calls, self.status = [], "active"
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def answer(self):
                fake.calls.append(f"{self.command} {self.path}")
                if self.command == "DELETE":
                    fake.status = "canceled"
                body = json.dumps({"id": self.path.rsplit("/", 1)[1], "object": "subscription", "status": fake.status,
                                   "customer": "cus_walk", "metadata": {}, "schedule": None,
                                   "items": {"object": "list", "data": []}}).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            do_GET = do_DELETE = answer

            def log_message(self, *_):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"


def signed(base, event):
    """Posts `event` to the Stripe webhook route, signed with Stripe's scheme (v1: HMAC-SHA256 of 't.payload')."""
    payload = json.dumps(event)
    stamp = int(time.time())
    mac = hmac.new(WEBHOOK_SECRET.encode(), f"{stamp}.{payload}".encode(), hashlib.sha256).hexdigest()
    request = urllib.request.Request(base + "/webhooks/stripe", data=payload.encode(), method="POST",
                                     headers={"Content-Type": "application/json", "Stripe-Signature": f"t={stamp},v1={mac}"})
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status
    except urllib.error.HTTPError as error:
        return error.code


def event(event_id, kind, obj):
    return {"id": event_id, "object": "event", "type": kind, "created": int(time.time()), "livemode": False,
            "api_version": "2025-03-31.basil", "data": {"object": obj}}


def main():
    from playwright.sync_api import sync_playwright

    os.makedirs(ARTIFACTS, exist_ok=True)
    workdir = scratch_dir("redeem-chargeback-")
    env = {**os.environ, "REDEEM_DATABASE_URL": os.path.join(workdir, "redeem.sqlite")}
    stripe = FakeStripe()
    env["REDEEM_STRIPE_API_URL"] = stripe.url
    run_cli(BIN, ["migrate"], env)
    app = json.loads(run_cli(BIN, ["apps", "create", "--name", "Dispute Demo", "--support-email", "help@example.com", "--json"], env))
    run_cli(BIN, ["products", "create", "--app", app["id"], "--id", "pro_monthly", "--type", "subscription", "--period", "P1M",
                  "--price", "4.99", "--currency", "USD", "--entitlement", "pro", "--display-name", "Pro monthly"], env)
    run_cli(BIN, ["operators", "create", "--email", "owner@example.com", "--role", "owner", "--password-stdin"], env, stdin=PASSWORD + "\n")
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    smtp = MailServer(os.path.join(workdir, "mail"))
    log_path = os.path.join(workdir, "server.log")
    log = open(log_path, "w")
    server = subprocess.Popen([BIN, "serve", "--port", str(port), "--public-url", base, "--smtp-url", smtp.url, "--mail-from",
                               "shop@example.com", "--stripe-secret-key", STRIPE_KEY, "--stripe-webhook-secret", WEBHOOK_SECRET],
                              env=env, stdout=subprocess.DEVNULL, stderr=log)

    def mails(subject_part, count):
        return smtp.messages(lambda message: subject_part in message["subject"], count)

    def part(message, kind):
        return next((p["text"] for p in message["parts"] if p["content_type"] == kind), "")

    def entitled():
        status, info = http("GET", f"{base}/v1/subscribers/walker", key=app["keys"]["public_sandbox"])
        entitlement = info.get("subscriber", {}).get("entitlements", {}).get("pro") if status == 200 else None
        return entitlement is not None and entitlement.get("expires_date", "") > time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime())

    try:
        check("serve starts with Stripe on", wait_healthy(base, server))
        now = int(time.time())
        session = {"id": "cs_test_walk", "object": "checkout.session", "mode": "subscription", "payment_status": "paid",
                   "customer": "cus_walk", "subscription": "sub_walk", "payment_intent": None, "created": now,
                   "metadata": {"app_id": app["id"], "product_id": "pro_monthly", "app_user_id": "walker"},
                   "customer_details": {"email": BUYER}, "amount_total": 499, "currency": "usd"}
        check("Stripe's checkout.session.completed records the subscription",
              signed(base, event("evt_walk_session", "checkout.session.completed", session)) == 200)
        invoice = {"id": "in_walk", "object": "invoice", "subscription": "sub_walk", "billing_reason": "subscription_create",
                   "customer": "cus_walk", "status": "paid", "amount_paid": 499, "currency": "usd", "payment_intent": "pi_walk",
                   "lines": {"object": "list", "data": [{"id": "il_1", "amount": 499, "period": {"start": now, "end": now + 86400 * 30}}]}}
        check("its first invoice names the payment", signed(base, event("evt_walk_invoice", "invoice.paid", invoice)) == 200)
        check("the app sees the entitlement", entitled())
        check("the buyer got the receipt", len(mails("purchase", 1)) == 1)

        dispute = {"id": "du_walk", "object": "dispute", "amount": 499, "currency": "usd", "charge": "ch_walk", "created": now,
                   "payment_intent": "pi_walk", "reason": "product_not_received", "status": "needs_response",
                   "is_charge_refundable": False, "metadata": {}}
        check("the bank's chargeback is taken", signed(base, event("evt_walk_dispute", "charge.dispute.created", dispute)) == 200)
        check("Redeem cancelled the subscription in Stripe, after reading it",
              stripe.calls == ["GET /v1/subscriptions/sub_walk", "DELETE /v1/subscriptions/sub_walk"], stripe.calls)
        check("the app no longer sees the entitlement", not entitled())
        told = mails("payment was disputed", 1)
        told_text = part(told[0], "text/plain") if told else ""
        check("the buyer is e-mailed why it ended, by real SMTP",
              len(told) == 1 and told[0]["rcpt_tos"] == [BUYER] and "Your bank told us you disputed your payment for Pro monthly" in told_text
              and "Disputed" in told_text, told_text or "no e-mail")
        check("Stripe delivering the event again changes nothing",
              signed(base, event("evt_walk_dispute", "charge.dispute.created", dispute)) == 200 and len(stripe.calls) == 2)
        lost = {**dispute, "status": "lost"}
        check("the dispute's close is recorded", signed(base, event("evt_walk_lost", "charge.dispute.closed", lost)) == 200)
        shown = json.loads(run_cli(BIN, ["purchases", "list", "--app", app["id"], "--user", "walker", "--json"], env))
        purchases = shown.get("purchases", [])
        check("the CLI shows the dispute", purchases and purchases[0].get("dispute", {}).get("status") == "lost"
              and purchases[0]["dispute"]["reason"] == "product_not_received", purchases)

        with sync_playwright() as p:
            browser = chromium(p)
            reader = browser.new_page(viewport={"width": 1280, "height": 900})
            if told:
                reader.set_content(part(told[0], "text/html"))
                screenshots(reader, ARTIFACTS, "1-chargeback-email")

            page = desktop_context(browser).new_page()
            console_sign_in(page, base, "owner@example.com", PASSWORD)
            page.wait_for_load_state()
            page.goto(f"{base}/console/apps/{app['id']}")
            page.locator("ul.people .who > a").first.click()
            page.wait_for_load_state()
            history = page.locator("ol.feed").inner_text()
            check("the console's history says it was charged back, and why",
                  "Charged back Pro monthly: the buyer’s bank took the payment back" in history
                  and "reason: product not received · lost · 4.99 USD" in history, history)
            page.get_by_text("Details and actions").first.click()
            check("the purchase says charged back, with the dispute",
                  page.locator("article.purchase .pill--charged-back").inner_text() == "charged back"
                  and page.locator("dd.dispute").inner_text() == "reason: product not received · lost · 4.99 USD (du_walk)",
                  page.locator("article.purchase").first.inner_text())
            screenshots(page, ARTIFACTS, "2-console-charged-back")

            portal = browser.new_page(viewport={"width": 1280, "height": 900})
            portal.goto(f"{base}/account/{app['id']}")
            portal.get_by_label("E-mail address used at checkout").fill(BUYER)
            portal.get_by_role("button", name="Send me a sign-in link").click()
            sign_in = mails("Sign in", 1)
            link = re.search(r"http://127\.0\.0\.1:\d+/account/[^\s]+/sign-in/[A-Za-z0-9_-]{43}", part(sign_in[0], "text/plain")) if sign_in else None
            check("the buyer gets a portal sign-in link", link is not None)
            if link:
                portal.goto(link.group(0))
                portal.get_by_role("button", name="Sign in").click()
                portal.wait_for_load_state()
                check("the portal says the payment was disputed and the purchase ended",
                      "Payment disputed" in portal.content(), portal.locator("main").inner_text()[:600])
                screenshots(portal, ARTIFACTS, "3-portal-charged-back")
            browser.close()
    finally:
        server.terminate()
        server.wait(timeout=30)
        log.close()
        smtp.stop()
        stripe.server.shutdown()
    with open(log_path) as f:
        leaked = secrets_in(f.read(), {"webhook secret": WEBHOOK_SECRET, "Stripe key": STRIPE_KEY})
    check("no secret reaches the server log", not leaked, leaked)
    finish()


if __name__ == "__main__":
    main()

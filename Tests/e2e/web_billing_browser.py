#!/usr/bin/env python3
"""Web billing in a real browser (Playwright from PyPI driving Debian's Chromium) against `redeem serve` without
Stripe, at desktop and phone width. An owner adds a EUR price to a USD product on the console's Products page (a bad
amount first: the form comes back with what was typed and why); a buyer opens the sandbox link with ?currency=EUR,
sees the euro price and the other currencies, pays, and the purchase records EUR; an unknown currency is a page
listing the product's. A buyer takes a subscription with a free trial: Customer Info says period_type "trial", then
the sandbox renewal worker's accelerated clock (REDEEM_SANDBOX_TRIAL_SECONDS shortens the trial to a few seconds;
polled, never slept blindly) converts it: period_type "normal" and RENEWAL with is_trial_conversion in the
webhook queue. A web app's page on another origin starts a checkout with fetch and the public key (CORS) and sends a
French browser to the checkout in French. Screenshots go to test-artifacts/web-billing/. Usage: web_billing_browser.py path/to/redeem."""
import json, os, subprocess, sys, time, urllib.parse

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from support import HANG_GUARD, check, chromium, console_sign_in, desktop_context, finish, free_port, http, run_cli, scratch_dir, screenshots, wait_for, wait_healthy  # noqa: E402

BIN = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else ".build/debug/redeem")
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
ARTIFACTS = os.path.join(ROOT, "test-artifacts", "web-billing")
PASSWORD = "a long console password"
TRIAL_SECONDS = 4


def shots(page, name):
    screenshots(page, ARTIFACTS, name)


def info(base, app, user):
    status, body = http("GET", f"{base}/v1/subscribers/{urllib.parse.quote(user, safe='')}", key=app["keys"]["public_sandbox"])
    return body.get("subscriber", {}).get("subscriptions", {}).get("pro_monthly", {}) if status == 200 else {}


def buy(page, base, app, product, user, email, size, query=""):
    page.set_viewport_size({"width": size[0], "height": size[1]})
    page.goto(f"{base}/sandbox/p/{app['id']}/{product}/{user}{query}")
    page.get_by_label("E-mail for your receipt and your link").fill(email)
    page.get_by_role("button", name="Pay (sandbox)").click()
    page.wait_for_load_state()
    return "Thank you" in page.title() or "Thank you" in page.content()


SHOP_PAGE = """<!doctype html><meta charset="utf-8"><title>Shop</title>
<button id="buy">Buy Pro monthly</button><p id="out"></p>
<script>
document.getElementById("buy").onclick = async () => {
  try {
    const reply = await fetch("%(base)s/v1/web_checkouts", {method: "POST", headers: {"Authorization": "Bearer %(key)s",
      "Content-Type": "application/json", "X-Platform": "web"},
      body: JSON.stringify({product_id: "pro_monthly", app_user_id: "webby", language: navigator.language})});
    const body = await reply.json();
    document.getElementById("out").textContent = reply.status + " " + JSON.stringify(body);
    if (reply.status === 201) location.href = body.checkout_url;
  } catch (error) { document.getElementById("out").textContent = "failed: " + error; }
};
</script>"""


def start_shop(workdir, base, key):
    """A web app's page on an origin of its own (another port), served by Python's http.server in a thread."""
    import functools, http.server, threading
    directory = os.path.join(workdir, "shop")
    os.makedirs(directory, exist_ok=True)
    with open(os.path.join(directory, "index.html"), "w") as file:
        file.write(SHOP_PAGE % {"base": base, "key": key})
    class Quiet(http.server.SimpleHTTPRequestHandler):
        def log_message(self, *args):
            pass

    handler = functools.partial(Quiet, directory=directory)
    server = http.server.ThreadingHTTPServer(("127.0.0.1", free_port()), handler)
    server.url = f"http://127.0.0.1:{server.server_address[1]}/index.html"
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def main():
    from playwright.sync_api import sync_playwright

    os.makedirs(ARTIFACTS, exist_ok=True)
    workdir = scratch_dir("redeem-web-billing-")
    env = {**os.environ, "REDEEM_DATABASE_URL": os.path.join(workdir, "redeem.sqlite"), "REDEEM_SANDBOX_TRIAL_SECONDS": str(TRIAL_SECONDS)}
    run_cli(BIN, ["migrate"], env)
    app = json.loads(run_cli(BIN, ["apps", "create", "--name", "Billing Demo", "--support-email", "help@example.com", "--json"], env))
    run_cli(BIN, ["products", "create", "--app", app["id"], "--id", "pro_monthly", "--type", "subscription", "--period", "P1M",
                  "--price", "4.99", "--currency", "USD", "--entitlement", "pro", "--display-name", "Pro monthly"], env)
    run_cli(BIN, ["products", "create", "--app", app["id"], "--id", "pro_trial", "--type", "subscription", "--period", "P1M",
                  "--price", "9.99", "--currency", "USD", "--entitlement", "pro", "--display-name", "Pro with trial"], env)
    trial = json.loads(run_cli(BIN, ["products", "trial", "--app", app["id"], "--id", "pro_trial", "--days", "7", "--json"], env))
    check("the CLI sets the trial", trial.get("trial_days") == 7, trial)
    yen = json.loads(run_cli(BIN, ["products", "prices", "add", "--app", app["id"], "--id", "pro_trial", "--currency", "jpy", "--amount", "1500",
                                   "--json"], env))
    check("the CLI adds a JPY price beside the default", [(r["currency"], r["amount"], r["is_default"]) for r in yen.get("prices", [])]
          == [("USD", "9.99", True), ("JPY", "1500", False)], yen)
    listed = run_cli(BIN, ["products", "prices", "list", "--app", app["id"], "--id", "pro_trial"], env)
    check("the CLI lists prices and the trial", "JPY  1500" in listed and "Free trial: 7 days" in listed, listed)
    run_cli(BIN, ["operators", "create", "--email", "owner@example.com", "--role", "owner", "--password-stdin"], env, stdin=PASSWORD + "\n")
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    log = open(os.path.join(workdir, "server.log"), "w")
    server = subprocess.Popen([BIN, "serve", "--port", str(port), "--public-url", base], env=env, stdout=subprocess.DEVNULL, stderr=log)
    try:
        check("serve starts", wait_healthy(base, server))
        status, _ = http("POST", f"{base}/admin/v1/apps/{app['id']}/webhooks", key=app["keys"]["secret"], body={"url": "http://127.0.0.1:9/x"})
        check("a webhook endpoint records the events", status == 201, status)
        with sync_playwright() as p:
            browser = chromium(p)
            context = desktop_context(browser)
            page = context.new_page()
            console_sign_in(page, base, "owner@example.com", PASSWORD)

            # The owner adds a EUR price: a refused amount keeps what was typed.
            page.goto(f"{base}/console/apps/{app['id']}/products")
            row = page.locator("tbody tr", has_text="pro_monthly")
            row.get_by_text("Prices and trial").click()
            row.get_by_label("Currency", exact=True).last.fill("EUR")
            row.get_by_label("Amount").fill("4.499")
            row.get_by_role("button", name="Save price for pro_monthly").click()
            page.wait_for_load_state()
            row = page.locator("tbody tr", has_text="pro_monthly")
            check("a refused amount says why", "EUR amounts have 2 decimals" in page.content(), page.locator("[role=alert]").all_inner_texts())
            check("the refused form keeps what was typed", row.get_by_label("Amount").input_value() == "4.499")
            shots(page, "1-price-refused")
            row.get_by_label("Amount").fill("4.49")
            row.get_by_role("button", name="Save price for pro_monthly").click()
            page.wait_for_load_state()
            row = page.locator("tbody tr", has_text="pro_monthly")
            check("the EUR price is listed", "4.49 EUR" in row.inner_text(), row.inner_text()[:300])
            shots(page, "2-products-prices")

            # A buyer pays in euros through ?currency=EUR, at each width.
            for size, user in (((1280, 900), "euro-desk"), ((390, 844), "euro-phone")):
                page.set_viewport_size({"width": size[0], "height": size[1]})
                page.goto(f"{base}/sandbox/p/{app['id']}/pro_monthly/{user}?currency=EUR")
                check(f"[{size[0]} px] the checkout shows the euro price", "€4.49 / month" in page.locator(".lead").first.inner_text(),
                      page.locator(".lead").first.inner_text())
                check(f"[{size[0]} px] the other currency is offered", page.get_by_role("link", name="USD").count() == 1)
                if size[0] == 1280:
                    shots(page, "3-checkout-eur")
                check(f"[{size[0]} px] the euro purchase completes", buy(page, base, app, "pro_monthly", user, f"{user}@example.com", size, "?currency=EUR"))
                sub = info(base, app, user)
                check(f"[{size[0]} px] the purchase records EUR", sub.get("price", {}).get("currency") == "EUR"
                      and sub.get("price", {}).get("amount") == 4.49, sub)
            page.set_viewport_size({"width": 1280, "height": 900})
            page.goto(f"{base}/sandbox/p/{app['id']}/pro_monthly?currency=GBP")
            check("an unknown currency lists the product's", "isn’t sold in GBP" in page.content()
                  and page.get_by_role("link", name="EUR · €4.49 / month").count() == 1, page.locator("body").inner_text()[:300])
            shots(page, "4-currency-unknown")

            # A trial in the sandbox, converted by the accelerated clock.
            page.goto(f"{base}/sandbox/p/{app['id']}/pro_trial/tia")
            check("the checkout offers the trial", "7-day free trial" in page.content())
            shots(page, "5-checkout-trial")
            check("the trial purchase completes", buy(page, base, app, "pro_trial", "tia", "tia@example.com", (390, 844)))
            check("the success page says what follows the trial", "Free trial, then $9.99 / month" in page.content())
            shots(page, "6-trial-success")
            started = time.monotonic()
            status, body = http("GET", f"{base}/v1/subscribers/tia", key=app["keys"]["public_sandbox"])
            sub = body.get("subscriber", {}).get("subscriptions", {}).get("pro_trial", {})
            check("Customer Info says trial", sub.get("period_type") == "trial", sub)

            def converted():
                s, b = http("GET", f"{base}/v1/subscribers/tia", key=app["keys"]["public_sandbox"])
                return s == 200 and b["subscriber"]["subscriptions"]["pro_trial"].get("period_type") == "normal"

            check("the sandbox clock converts the trial (within 30 s)", wait_for(converted, timeout=30, interval=0.5))
            check("the conversion came after the trial's length", time.monotonic() - started >= TRIAL_SECONDS - 2, time.monotonic() - started)
            status, body = http("GET", f"{base}/v1/subscribers/tia", key=app["keys"]["public_sandbox"])
            sub = body.get("subscriber", {}).get("subscriptions", {}).get("pro_trial", {})
            check("after conversion it is paid at the product's price", sub.get("price", {}).get("amount") == 9.99, sub)
            status, listed = http("GET", f"{base}/admin/v1/apps/{app['id']}/webhooks", key=app["keys"]["secret"])
            check("the webhook endpoint exists", status == 200, status)

            # A web app on another origin starts a checkout from the buyer's browser with the public key (CORS).
            shop = start_shop(workdir, base, app["keys"]["public_sandbox"])
            french = browser.new_context(locale="fr-FR", viewport={"width": 390, "height": 844})
            french.set_default_timeout(HANG_GUARD * 1000)  # only guards a hang
            buyer = french.new_page()
            buyer.goto(shop.url)
            refused = buyer.evaluate(f"fetch('{base}/v1/subscribers/x', {{headers: {{Authorization: 'Bearer nope'}}}}).then(r => r.status).catch(e => 'failed: ' + e)")
            check("another origin's page reads the API's refusal (401), not a CORS failure", refused == 401, refused)
            with buyer.expect_navigation(url=lambda url: url.startswith(f"{base}/sandbox/p/")):
                buyer.get_by_role("button", name="Buy Pro monthly").click()
            check("its fetch of /v1/web_checkouts leads the buyer to the checkout, in the browser's language",
                  buyer.locator("html").get_attribute("lang") == "fr" and "lang=fr" in buyer.url
                  and buyer.get_by_role("button").count() > 0, (buyer.url, buyer.locator("body").inner_text()[:200]))
            shots(buyer, "7-checkout-from-another-origin")
            french.close()
            shop.shutdown()
            context.close()
            browser.close()
        # The events, as the webhook queue holds them (the endpoint listens nowhere; the deliveries keep their bodies).
        events = subprocess.run(["sqlite3", env["REDEEM_DATABASE_URL"],
                                 "SELECT event_type || ' ' || body FROM webhook_deliveries WHERE body LIKE '%pro_trial%'"],
                                capture_output=True, text=True).stdout
        check("INITIAL_PURCHASE says TRIAL", any(l.startswith("INITIAL_PURCHASE") and '"period_type":"TRIAL"' in l for l in events.splitlines()), events[:400])
        check("RENEWAL is the trial's conversion", any(l.startswith("RENEWAL") and '"is_trial_conversion":true' in l for l in events.splitlines()), events[:400])
    finally:
        server.terminate()
        server.wait(timeout=HANG_GUARD)
        log.close()
    finish()


main()

#!/usr/bin/env python3
"""Subscription metrics in a real browser (Playwright driving Debian's Chromium) against `redeem serve`: a known history
is recorded through the server API with past dates (weekly, monthly and yearly subscriptions in two currencies, a trial
that converts and one still running, a subscription that ended in the window, sandbox purchases with a refund through
the admin API, and one cancelled with the buyer's reason), then the console overview's tiles are read at 1280 and 390 px in production and sandbox and held to the
numbers worked out by hand below; `redeem metrics --json` (local and --server) gives the same. Screenshots go to
test-artifacts/metrics/. Usage: metrics_browser.py path/to/redeem. Prints 'N passed, M failed'."""
import datetime, json, os, subprocess, sys, uuid

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from support import HANG_GUARD, check, chromium, console_sign_in, desktop_context, finish, free_port, http, run_cli, scratch_dir, screenshots, wait_healthy  # noqa: E402

BIN = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else ".build/debug/redeem")
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
ARTIFACTS = os.path.join(ROOT, "test-artifacts", "metrics")
PASSWORD = "a long console password"
TODAY = datetime.datetime.now(datetime.timezone.utc).replace(hour=0, minute=0, second=0, microsecond=0)


def at(days, hour=10):
    """`days` days from today's midnight (UTC), at `hour`, as the API writes dates."""
    return (TODAY + datetime.timedelta(days=days, hours=hour)).strftime("%Y-%m-%dT%H:%M:%SZ")


def purchase(base, app, user, product, start, price=None, currency="USD", expires=None, sandbox=False, trial=False):
    body = {"app_user_id": user, "product_id": product, "purchase_date": start, "is_sandbox": sandbox}
    if price:
        body["price"] = {"amount": price, "currency": currency}
    if expires:
        body["expires_date"] = expires
    if trial:
        body["period_type"] = "trial"
    status, answer = http("POST", base + "/v1/purchases", key=app["keys"]["secret"], body=body, headers={"Idempotency-Key": uuid.uuid4().hex})
    check(f"{user}'s purchase is recorded", status == 201, answer)
    return answer


# The history, and what the 30-day window (today and the 29 days before) makes of it, by hand.
# Production:
#   weekly 3.00 EUR from day -10 to day +4: paid day -10 and renewed day -3 (6.00 EUR); 3 × 52 / 12 = 13.00 EUR a month
#   yearly 60.00 USD from day -5: 5.00 USD a month;  monthly 9.99 USD from day -2
#   monthly 4.99 USD from day -40, ended day -25: active at the window's start, churned in it (its payment was before it)
#   erin: a trial from day -8 to day -1, then monthly 9.99 USD from day -1 (a conversion); frank: a trial from day -1 to +6
PRODUCTION = {
    "active-subscriptions": ["4"], "active-trials": ["1"], "mrr": ["13.00 EUR", "24.98 USD"], "revenue": ["6.00 EUR", "79.98 USD"],
    "new-customers": ["6"], "trial-conversions": ["1"], "churned": ["1"], "refunds": ["0"],
}
# Sandbox: monthly 1.00 USD from day -3, refunded today (1.00 - 1.00); yearly 12.00 USD from day -2 (1.00 USD a month).
SANDBOX = {
    "active-subscriptions": ["1"], "active-trials": ["0"], "mrr": ["1.00 USD"], "revenue": ["12.00 USD"], "new-customers": ["2"],
    "trial-conversions": ["0"], "churned": ["1"], "refunds": ["1"],
}


def tiles(page):
    found = {}
    for tile in PRODUCTION:
        found[tile] = [line.strip() for line in page.locator(f"#{tile} .line").all_inner_texts()]
    return found


def main():
    from playwright.sync_api import sync_playwright

    os.makedirs(ARTIFACTS, exist_ok=True)
    workdir = scratch_dir("redeem-metrics-")
    env = {**os.environ, "REDEEM_DATABASE_URL": os.path.join(workdir, "redeem.sqlite")}
    run_cli(BIN, ["migrate"], env)
    app = json.loads(run_cli(BIN, ["apps", "create", "--name", "Metrics Demo", "--json"], env))
    for product, period in (("weekly", "P1W"), ("monthly", "P1M"), ("yearly", "P1Y")):
        run_cli(BIN, ["products", "create", "--app", app["id"], "--id", product, "--type", "subscription", "--period", period,
                      "--entitlement", "pro"], env)
    run_cli(BIN, ["operators", "create", "--email", "owner@example.com", "--role", "owner", "--password-stdin"], env, stdin=PASSWORD + "\n")
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    log = open(os.path.join(workdir, "server.log"), "w")
    server = subprocess.Popen([BIN, "serve", "--port", str(port), "--public-url", base], env=env, stdout=subprocess.DEVNULL, stderr=log)
    try:
        check("serve starts", wait_healthy(base, server))
        purchase(base, app, "alice", "weekly", at(-10), "3.00", "EUR", expires=at(4))
        purchase(base, app, "bob", "yearly", at(-5), "60.00")
        purchase(base, app, "carol", "monthly", at(-2), "9.99")
        purchase(base, app, "dave", "monthly", at(-40), "4.99", expires=at(-25))
        purchase(base, app, "erin", "monthly", at(-8), expires=at(-1), trial=True)
        purchase(base, app, "erin", "monthly", at(-1, 11), "9.99")
        purchase(base, app, "frank", "monthly", at(-1), expires=at(6), trial=True)
        refunded = purchase(base, app, "sam", "monthly", at(-3), "1.00", sandbox=True)
        cancelled = purchase(base, app, "sue", "yearly", at(-2), "12.00", sandbox=True)
        status, answer = http("POST", f"{base}/admin/v1/apps/{app['id']}/purchases/{refunded['purchase']['id']}/refund",
                              key=app["keys"]["secret"], body={})
        check("the sandbox purchase is refunded through the admin API", status == 200, answer)
        status, answer = http("POST", f"{base}/admin/v1/apps/{app['id']}/purchases/{cancelled['purchase']['id']}/cancel",
                              key=app["keys"]["secret"], body={"feedback": "too_expensive"})
        check("the other is cancelled with the buyer's reason", status == 200 and answer.get("cancellation_feedback") == "too_expensive", answer)

        with sync_playwright() as p:
            browser = chromium(p)
            context = desktop_context(browser)
            page = context.new_page()
            console_sign_in(page, base, "owner@example.com", PASSWORD)
            page.wait_for_load_state()
            for width, height in ((1280, 900), (390, 844)):
                page.set_viewport_size({"width": width, "height": height})
                page.goto(f"{base}/console/apps/{app['id']}/overview")
                check(f"[{width} px] production tiles equal the history's numbers", tiles(page) == PRODUCTION, tiles(page))
                check(f"[{width} px] the charts are drawn with dated ticks", page.locator(".charts svg").count() == 3
                      and "text-anchor" in page.locator(".charts svg").first.inner_html(), page.locator(".charts svg").count())
                page.get_by_role("navigation", name="Environment").get_by_role("link", name="Sandbox").click()
                page.wait_for_load_state()
                check(f"[{width} px] the environment switch is a GET parameter", "environment=sandbox" in page.url, page.url)
                check(f"[{width} px] sandbox tiles equal the sandbox history's numbers", tiles(page) == SANDBOX, tiles(page))
                reasons = page.locator("#cancellations .funnel__row").all_inner_texts()
                check(f"[{width} px] why subscribers cancel: the reason given, counted",
                      [" ".join(r.split()) for r in reasons] == ["It’s too expensive 1"], reasons)
                check(f"[{width} px] the page does not scroll sideways", page.evaluate("document.documentElement.scrollWidth") <= width,
                      page.evaluate("document.documentElement.scrollWidth"))
                page.locator("#wont-renew").click()
                page.wait_for_load_state()
                rows = page.locator(".people li").all_inner_texts()
                check(f"[{width} px] the link lists who won't renew in sandbox: sue",
                      "status=wont_renew" in page.url and "env=sandbox" in page.url and len(rows) == 1 and "sue" in rows[0]
                      and "won’t renew" in rows[0], (page.url, rows))
            page.goto(f"{base}/console/apps/{app['id']}/overview?environment=production&days=30")
            check("production had no cancellation", page.locator("#no-cancellations").is_visible())
            screenshots(page, ARTIFACTS, "overview-production")
            page.goto(f"{base}/console/apps/{app['id']}/overview?environment=sandbox&days=7")
            check("the 7-day window keeps the environment", tiles(page)["refunds"] == ["1"] and "days=7" in page.url)
            screenshots(page, ARTIFACTS, "overview-sandbox")
            page.set_viewport_size({"width": 390, "height": 844})
            page.locator(".charts").screenshot(path=os.path.join(ARTIFACTS, "charts-phone.png"))
            page.locator("#cancellations").screenshot(path=os.path.join(ARTIFACTS, "cancellations-phone.png"))
            status = page.goto(f"{base}/console/apps/{app['id']}/overview?environment=staging").status
            check("an unknown environment is refused with 400, not a 5xx", status == 400, status)
            context.close()
            browser.close()

        local = json.loads(run_cli(BIN, ["metrics", "--app", app["id"], "--json"], env))
        remote_env = {**env, "REDEEM_ADMIN_KEY": app["keys"]["secret"]}
        remote = json.loads(run_cli(BIN, ["metrics", "--app", app["id"], "--json", "--server", base], remote_env))
        money = lambda amounts: [f"{m['amount']} {m['currency']}" for m in amounts]  # noqa: E731
        for name, report in (("local", local), ("--server", remote)):
            check(f"redeem metrics --json ({name}) equals the tiles",
                  [str(report["active_subscriptions"])] == PRODUCTION["active-subscriptions"]
                  and [str(report["active_trials"])] == PRODUCTION["active-trials"] and money(report["mrr"]) == PRODUCTION["mrr"]
                  and money(report["revenue"]) == PRODUCTION["revenue"] and report["new_customers"] == 6 and report["trial_conversions"] == 1
                  and report["churned"] == 1 and report["active_at_start"] == 1 and report["refunds"] == 0, report)
        sandbox = json.loads(run_cli(BIN, ["metrics", "--app", app["id"], "--sandbox", "--json"], env))
        check("redeem metrics --sandbox --json counts the refund", sandbox["refunds"] == 1 and money(sandbox["refunded"]) == ["1.00 USD"]
              and money(sandbox["mrr"]) == SANDBOX["mrr"], sandbox)
        check("redeem metrics --sandbox --json counts the cancellation by reason",
              sandbox["cancellations"] == [{"reason": "too_expensive", "count": 1}], sandbox["cancellations"])
        sandbox_table = run_cli(BIN, ["metrics", "--app", app["id"], "--sandbox"], env)
        check("redeem metrics --sandbox prints why subscribers cancel", any(line.split() == ["Cancellations", "1:", "It’s", "too", "expensive", "1"] for line in sandbox_table.splitlines()),
              sandbox_table)
        table = run_cli(BIN, ["metrics", "--app", app["id"]], env)
        check("redeem metrics prints a table", "Active subscriptions" in table and "24.98 USD" in table, table)
    finally:
        server.terminate()
        server.wait(timeout=HANG_GUARD)
        log.close()
    finish()


main()

#!/usr/bin/env python3
"""The console's Customers tab and customer page in a real browser (Playwright from PyPI driving Debian's Chromium)
against `redeem serve` on SQLite. The landing lists recent customers, newest activity first, and its filters narrow
them (refunded, sandbox); a customer's page leads with their e-mail and active entitlements and shows one history,
newest first; a customer with 30 purchases stays a short page at 1280 px; the owner's export downloads JSON with the
purchases; the owner erases a customer (a mistyped ID is refused first), and the database file, once the server has
stopped, holds the address nowhere. With REDEEM_TEST_POSTGRES_URL set, the walk runs again on a fresh PostgreSQL
database, whose data (pg_dump) then holds the address nowhere. Screenshots (of the SQLite run) at 1280 and 390 px go to
test-artifacts/customer/.
Usage: customer_browser.py path/to/redeem. Prints 'N passed, M failed'."""
import json, os, subprocess, sys, uuid

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from support import HANG_GUARD, check, chromium, console_sign_in, desktop_context, finish, free_port, http, run_cli, scratch_dir, screenshots, wait_healthy  # noqa: E402

BIN = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else ".build/debug/redeem")
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
ARTIFACTS = os.path.join(ROOT, "test-artifacts", "customer")
PASSWORD = "a long console password"
FORGET = "forget.me@example.com"


SHOOT = [True]


def shots(page, name):
    if SHOOT[0]:
        screenshots(page, ARTIFACTS, name)


def feed_times(page):
    return [t.inner_text() for t in page.locator("ol.feed time").all()]


def walk(database_url, scan):
    """The whole walk against `database_url`; `scan(workdir)` then returns where the address or the ID is still found."""
    from playwright.sync_api import sync_playwright

    workdir = scratch_dir("redeem-customer-")
    env = {**os.environ, "REDEEM_DATABASE_URL": database_url or os.path.join(workdir, "redeem.sqlite")}
    run_cli(BIN, ["migrate"], env)
    app = json.loads(run_cli(BIN, ["apps", "create", "--name", "Customers Demo", "--support-email", "help@example.com", "--json"], env))
    run_cli(BIN, ["products", "create", "--app", app["id"], "--id", "pro_monthly", "--type", "subscription", "--period", "P1M",
                  "--price", "4.99", "--currency", "USD", "--entitlement", "pro", "--display-name", "Pro monthly",
                  "--subscription-group", "pro", "--group-level", "2"], env)
    run_cli(BIN, ["products", "create", "--app", app["id"], "--id", "pro_yearly", "--type", "subscription", "--period", "P1Y",
                  "--price", "39.99", "--currency", "USD", "--entitlement", "pro", "--display-name", "Pro yearly",
                  "--subscription-group", "pro", "--group-level", "1"], env)
    run_cli(BIN, ["products", "create", "--app", app["id"], "--id", "pro_lifetime", "--type", "non_consumable", "--price", "49.99",
                  "--currency", "USD", "--entitlement", "pro", "--display-name", "Pro lifetime"], env)
    run_cli(BIN, ["operators", "create", "--email", "owner@example.com", "--role", "owner", "--password-stdin"], env, stdin=PASSWORD + "\n")
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    secret = app["keys"]["secret"]
    log = open(os.path.join(workdir, "server.log"), "w")
    server = subprocess.Popen([BIN, "serve", "--port", str(port), "--public-url", base], env=env, stdout=subprocess.DEVNULL, stderr=log)
    stopped = False
    try:
        check("serve starts", wait_healthy(base, server))

        def buy(user, product, email, sandbox=False, transaction=None):
            body = {"app_user_id": user, "product_id": product, "email": email, "store": "rc_billing", "is_sandbox": sandbox}
            if transaction:
                body["store_transaction_id"] = transaction
            status, reply = http("POST", f"{base}/v1/purchases", key=secret, body=body, headers={"Idempotency-Key": os.urandom(8).hex()})
            assert status == 201, reply
            return reply["purchase"]["id"]

        for index in range(30):
            buy("whale", "pro_lifetime", "whale@example.com", transaction=f"whale-{index}")
        refunded = buy("refunded-rita", "pro_monthly", "rita@example.com", sandbox=True)
        status, _ = http("POST", f"{base}/admin/v1/apps/{app['id']}/purchases/{refunded}/refund", key=secret, body={})
        check("a sandbox purchase is refunded through the admin API", status == 200, status)
        buy("gdpr-user", "pro_monthly", FORGET)
        status, _ = http("POST", f"{base}/v1/subscribers/gdpr-user/attributes", key=secret,
                         body={"attributes": {"$email": {"value": FORGET, "updated_at_ms": 1}, "$displayName": {"value": "Forget Me", "updated_at_ms": 1}}})
        check("the customer's attributes are set", status == 200, status)
        buy("alice", "pro_monthly", "alice@example.com", sandbox=True)

        with sync_playwright() as p:
            browser = chromium(p)
            context = desktop_context(browser, height=800, accept_downloads=True)
            page = context.new_page()
            console_sign_in(page, base, "owner@example.com", PASSWORD)
            page.wait_for_load_state()

            # The landing: recent customers, newest activity first, and filters.
            page.goto(f"{base}/console/apps/{app['id']}")
            names = [a.inner_text() for a in page.locator("ul.people .who > a").all()]
            check("the landing lists recent customers, newest activity first",
                  names[:2] == ["alice@example.com", FORGET] and "whale@example.com" in names, names)
            shots(page, "1-customers")
            page.get_by_role("link", name="Refunded", exact=True).click()
            page.wait_for_load_state()
            names = [a.inner_text() for a in page.locator("ul.people .who > a").all()]
            check("the Refunded filter lists only the refunded customer", names == ["rita@example.com"], names)
            page.get_by_role("link", name="All", exact=True).click()
            page.get_by_role("link", name="Sandbox", exact=True).click()
            page.wait_for_load_state()
            names = [a.inner_text() for a in page.locator("ul.people .who > a").all()]
            check("the Sandbox filter lists the sandbox customers", sorted(names) == ["alice@example.com", "rita@example.com"], names)
            shots(page, "2-customers-sandbox")

            # A customer's page: the person and what they have at the top, one history newest first.
            page.goto(f"{base}/console/apps/{app['id']}")
            page.get_by_role("link", name="alice@example.com").click()
            page.wait_for_load_state()
            check("the customer's e-mail is the page's heading", page.locator("h1").inner_text() == "alice@example.com")
            top = page.locator("ul.have").bounding_box()
            purchases = page.locator("#h-purchases").bounding_box()
            check("the active entitlement and its expiry come before the purchases",
                  top is not None and purchases is not None and top["y"] < purchases["y"] and "pro" in page.locator("ul.have").inner_text()
                  and "expires" in page.locator("ul.have").inner_text())
            times = feed_times(page)
            check("the history is newest first", len(times) >= 2 and times == sorted(times, reverse=True), times)
            shots(page, "3-customer")

            # Support cancels for the buyer, with the reason they gave on the phone; the page and the history keep it,
            # and the "Won't renew" filter lists them.
            purchase = page.locator("article.purchase").first
            purchase.locator("summary").click()
            purchase.get_by_label("Reason the buyer gave (optional)").select_option(label="It’s too expensive")
            purchase.get_by_label("Stop renewing; access lasts until", exact=False).check()
            shots(page, "3a-cancel-form")
            purchase.get_by_role("button", name="Cancel at period end").click()
            page.wait_for_load_state()
            check("the cancelled purchase shows the buyer's reason",
                  page.locator("article.purchase .cancel-reason").first.text_content() == "It’s too expensive",
                  page.locator("article.purchase").first.inner_text())
            check("so does the history", "reason: It’s too expensive" in page.locator("ol.feed").inner_text(),
                  page.locator("ol.feed").inner_text())
            shots(page, "3b-cancelled-with-reason")
            page.goto(f"{base}/console/apps/{app['id']}?status=wont_renew")
            names = [a.inner_text() for a in page.locator("ul.people .who > a").all()]
            check("the Won't renew filter lists the customer who cancelled", names == ["alice@example.com"], names)

            # Support resumes it, then switches the buyer to the yearly plan of the group, confirmed.
            page.get_by_role("link", name="alice@example.com").click()
            page.wait_for_load_state()
            purchase = page.locator("article.purchase").first
            purchase.locator("summary").click()
            purchase.get_by_role("button", name="Resume renewing").click()
            page.wait_for_load_state()
            purchase = page.locator("article.purchase").first
            purchase.locator("summary").click()
            purchase.get_by_role("group", name="Switch to").locator("input[value=pro_yearly]").check()
            purchase.get_by_label("Switch plan:").check()
            shots(page, "3c-change-plan-form")
            purchase.get_by_role("button", name="Change plan").click()
            page.wait_for_load_state()
            check("the subscription is now the yearly plan, and the history says who switched it",
                  "Plan changed" in page.content() and page.locator("article.purchase h3").first.inner_text().startswith("Pro yearly")
                  and "change plan" in page.locator("ol.feed").inner_text(), page.locator("article.purchase").first.inner_text())
            shots(page, "3d-plan-changed")
            # Back down to monthly: it waits for the yearly period's end, and support can drop it.
            purchase = page.locator("article.purchase").first
            purchase.locator("summary").click()
            plans = purchase.get_by_role("group", name="Switch to").inner_text()
            check("each plan is a radio with its whole label, a downgrade marked as waiting",
                  "Pro monthly (pro_monthly) · 4.99 USD / P1M · at period end" in plans, plans)
            purchase.get_by_role("group", name="Switch to").locator("input[value=pro_monthly]").check()
            purchase.get_by_label("Switch plan:").check()
            purchase.get_by_role("button", name="Change plan").click()
            page.wait_for_load_state()
            purchase = page.locator("article.purchase").first
            purchase.locator("summary").click()
            check("a downgrade waits for the period's end, the yearly plan kept until then",
                  "Plan change scheduled" in page.content() and "Switches to Pro monthly (pro_monthly) when this period ends" in purchase.inner_text()
                  and page.locator("article.purchase h3").first.inner_text().startswith("Pro yearly"), purchase.inner_text())
            shots(page, "3e-plan-scheduled")
            purchase.get_by_label("Keep the current plan").check()
            purchase.get_by_role("button", name="Keep plan").click()
            page.wait_for_load_state()
            check("keeping the plan drops the switch", "The plan stays as it is" in page.content() and "Switches to" not in page.content())

            # Thirty purchases: a short page, every purchase still reachable.
            page.goto(f"{base}/console/apps/{app['id']}?q=whale")
            page.get_by_role("link", name="whale").click()
            page.wait_for_load_state()
            height = page.evaluate("document.documentElement.scrollHeight")
            check("a customer with 30 purchases stays under 4,000 px at 1280 px", height < 4000, height)
            check("the 5 latest purchases are open and 25 folded", page.locator("details.older article.purchase").count() == 25
                  and page.locator("article.purchase").count() == 30)
            check("older history is a link away", page.get_by_role("link", name="Show older").count() == 1)
            page.set_viewport_size({"width": 390, "height": 844})
            phone_height = page.evaluate("document.documentElement.scrollHeight")
            check("and stays reasonable at 390 px", phone_height < 9000, phone_height)
            page.set_viewport_size({"width": 1280, "height": 800})
            shots(page, "4-customer-30-purchases")

            # The export downloads everything as JSON.
            with page.expect_download() as download:
                page.get_by_role("link", name="Export data (JSON)").click()
            path = download.value.path()
            exported = json.load(open(path))
            check("the export downloads JSON with the customer's 30 purchases",
                  download.value.suggested_filename.startswith("customer-cus_") and len(exported.get("purchases", [])) == 30
                  and exported["customer"]["original_app_user_id"] == "whale", download.value.suggested_filename)

            # Erasing: a mistyped ID is refused, the right one erases.
            page.goto(f"{base}/console/apps/{app['id']}?q=gdpr-user")
            page.get_by_role("link", name="gdpr-user").click()
            page.wait_for_load_state()
            check("the header shows the $email attribute and the name", page.locator("h1").inner_text() == FORGET
                  and "Forget Me" in page.locator(".person").inner_text())
            page.get_by_text("Erase this customer…").click()
            page.get_by_label("Type the app user ID").fill("gdpr-usr")
            page.get_by_role("button", name="Erase customer").click()
            page.wait_for_load_state()
            check("a mistyped app user ID is refused and shown again", "That is not the app user ID" in page.content()
                  and page.get_by_label("Type the app user ID").input_value() == "gdpr-usr")
            shots(page, "5-erase-refused")
            page.get_by_label("Type the app user ID").fill("gdpr-user")
            page.get_by_role("button", name="Erase customer").click()
            page.wait_for_load_state()
            check("the erasure lands on Customers, saying so", "The customer is erased" in page.content(), page.url)
            check("the erased customer is not listed", FORGET not in page.locator("ul.people").inner_text())
            shots(page, "6-erased")
            context.close()
            browser.close()
        server.terminate()
        server.wait(timeout=HANG_GUARD)
        stopped = True
        found = scan(workdir)
        check(f"the database ({'PostgreSQL' if database_url else 'SQLite file'}) holds neither the address nor the ID", not found, found)
    finally:
        if not stopped:
            server.terminate()
            server.wait(timeout=HANG_GUARD)
        log.close()


def scan_sqlite(workdir):
    """At rest (the server closed the database, so the log is folded in): the files that still hold a trace."""
    found = []
    for name in os.listdir(workdir):
        if name.startswith("redeem.sqlite"):
            data = open(os.path.join(workdir, name), "rb").read().lower()
            if FORGET.encode() in data or b"gdpr-user" in data:
                found.append(name)
    return found


def main():
    os.makedirs(ARTIFACTS, exist_ok=True)
    walk(None, scan_sqlite)
    pg = os.environ.get("REDEEM_TEST_POSTGRES_URL")
    if pg:
        name = "redeem_customer_" + uuid.uuid4().hex[:12]
        subprocess.run(["psql", pg, "-qc", f"CREATE DATABASE {name}"], check=True, capture_output=True)
        url = pg.rsplit("/", 1)[0] + "/" + name
        try:
            SHOOT[0] = False

            def scan_postgres(_):
                dump = subprocess.run(["pg_dump", "--data-only", url], check=True, capture_output=True, text=True).stdout.lower()
                return [trace for trace in (FORGET, "gdpr-user") if trace in dump]

            walk(url, scan_postgres)
        finally:
            subprocess.run(["psql", pg, "-qc", f"DROP DATABASE IF EXISTS {name} WITH (FORCE)"], capture_output=True)
    else:
        print("skip the PostgreSQL walk: REDEEM_TEST_POSTGRES_URL is not set")
    finish()


main()

#!/usr/bin/env python3
"""The operator console in a real browser (Playwright from PyPI driving Debian's Chromium): an operator made with
`redeem operators create --password-stdin` signs in, finds a buyer by e-mail, opens the customer and sees the
redemption attempt in the timeline, sends a new link (found at a real SMTP server on loopback), grants an entitlement
(seen in GET /v1/subscribers), and signs out; an owner refunds, changes settings with a live preview, manages keys,
webhooks, offers, a batch of 10,000 codes (downloaded as CSV and redeemed) and custom codes, retries a failed e-mail,
reads the funnel, gives a product its store identifiers, makes an offering current (read back through the SDKs'
offerings route), sees subscriber attributes on the customer page, and creates an app. Screenshots of every page at
desktop and phone width go to test-artifacts/console/. Usage: console_browser.py path/to/redeem. Prints 'N passed, M
failed'."""
import json, os, re, subprocess, sys, time, uuid

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from support import (HANG_GUARD, MailServer, check, finish, free_port, http, run_cli, scratch_dir, screenshots, secrets_in,  # noqa: E402
                     wait_healthy)

BIN = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else ".build/debug/redeem")
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
ARTIFACTS = os.path.join(ROOT, "test-artifacts", "console")
PASSWORD = "a long console password"


def cli(args, env, stdin=None):
    return run_cli(BIN, args, env, stdin)


def shots(page, name):
    screenshots(page, ARTIFACTS, name)


def offerings_and_attributes(page, base, app):
    """An owner gives pro_monthly its store identifiers (a Play subscription without its base plan refused first),
    makes an offering of two packages current (a made-up $rc_ identifier and broken metadata refused first, the form
    keeping what was typed), reads what each store's SDK is shown, edits it; then attributes posted through the API
    are on the customer page."""
    row = page.locator("tbody tr", has_text="pro_monthly")
    row.get_by_text("Edit", exact=True).click()
    row.get_by_label("App Store product ID").fill("com.example.console.monthly")
    row.get_by_label("Google Play product ID").fill("console_pro")
    row.get_by_role("button", name="Save pro_monthly").click()
    row = page.locator("tbody tr", has_text="pro_monthly")
    check("a Play subscription without its base plan is refused, naming the field, with what was typed kept",
          "Google Play base plan: a Google Play subscription needs its base plan." in page.get_by_role("alert").inner_text()
          and row.get_by_label("App Store product ID").input_value() == "com.example.console.monthly"
          and row.get_by_label("Google Play product ID").input_value() == "console_pro", page.get_by_role("alert").inner_text())
    shots(page, "8d-product-store-ids-refused")
    row.get_by_label("Google Play base plan").fill("monthly")
    row.get_by_role("button", name="Save pro_monthly").click()
    page.wait_for_load_state()
    stores = page.locator("tbody tr", has_text="pro_monthly").locator("td[data-label='In the stores']").inner_text()
    check("the product's store identifiers are saved and listed", "Product saved." in page.get_by_role("status").inner_text()
          and "App Store: com.example.console.monthly" in stores and "Google Play: console_pro (base plan monthly)" in stores, stores)
    shots(page, "8e-product-store-ids")

    page.get_by_role("navigation", name=app["name"]).get_by_role("link", name="Offerings", exact=True).click()
    check("the offerings page opens from the app's tabs, empty", page.url.endswith("/offerings") and "No offerings yet." in page.content() and "Create one below" in page.content(), page.url)
    page.get_by_text("Create an offering").click()
    page.get_by_label("Identifier (what apps ask for, e.g. default)").fill("default")
    page.get_by_label("Description", exact=True).fill("Pro plans")
    page.get_by_label("Metadata (a JSON object the paywall reads)").fill('{"paywall": "dark"}')
    page.get_by_label("Current: the offering apps get as current").check()
    page.get_by_label("Package 1", exact=True).select_option("$rc_monthly")
    page.get_by_label("Product of package 1", exact=True).select_option("pro_monthly")
    page.get_by_label("Package 2", exact=True).select_option("custom")
    page.get_by_label("Custom identifier for package 2", exact=True).fill("$rc_made_up")
    page.get_by_label("Product of package 2", exact=True).select_option("pro_lifetime")
    page.get_by_role("button", name="Create offering").click()
    alert = page.get_by_role("alert").inner_text()
    check("a made-up $rc_ package is refused, naming it, and the form keeps what was typed",
          alert.startswith("Package identifier: '$rc_made_up'") and page.get_by_label("Custom identifier for package 2", exact=True).input_value() == "$rc_made_up"
          and page.get_by_label("Identifier (what apps ask for, e.g. default)").input_value() == "default"
          and page.get_by_label("Package 1", exact=True).input_value() == "$rc_monthly"
          and page.get_by_label("Product of package 2", exact=True).input_value() == "pro_lifetime"
          and page.get_by_label("Current: the offering apps get as current").is_checked(), alert)
    shots(page, "8f-offering-refused")
    page.get_by_label("Package 2", exact=True).select_option("$rc_lifetime")
    page.get_by_label("Custom identifier for package 2", exact=True).fill("")
    page.get_by_label("Metadata (a JSON object the paywall reads)").fill('{"paywall": dark')
    page.get_by_role("button", name="Create offering").click()
    check("metadata that is not a JSON object is refused, and kept as typed",
          page.get_by_role("alert").inner_text() == "Metadata: must be a JSON object of at most 16 KB."
          and page.get_by_label("Metadata (a JSON object the paywall reads)").input_value() == '{"paywall": dark'
          and page.get_by_label("Package 2", exact=True).input_value() == "$rc_lifetime", page.get_by_role("alert").inner_text())
    page.get_by_label("Metadata (a JSON object the paywall reads)").fill('{"paywall": "dark"}')
    page.get_by_role("button", name="Create offering").click()
    page.wait_for_load_state()
    card = page.get_by_role("article", name="Offering default")
    text = card.inner_text() if card.count() else ""
    check("the offering is listed as current with its two packages and what each store is shown",
          "Offering saved." in page.get_by_role("status").inner_text() and "current" in text
          and all(word in text for word in ["$rc_monthly", "pro_monthly", "$rc_lifetime", "pro_lifetime", "com.example.console.monthly",
                                            "console_pro:monthly", "not on iOS", "iOS: 1 of 2 packages"]), text)
    shots(page, "8g-offerings")

    user = "phone-user-1"
    status, ios = http("GET", base + f"/v1/subscribers/{user}/offerings", key=app["keys"]["public_production"], headers={"X-Platform": "iOS"})
    packages = [(p["identifier"], p["platform_product_identifier"]) for o in ios.get("offerings", []) for p in o["packages"]] if status == 200 else []
    check("the SDK on iOS gets the current offering with the App Store ID (the lifetime package has none, so is left out)",
          status == 200 and ios["current_offering_id"] == "default" and packages == [("$rc_monthly", "com.example.console.monthly")]
          and ios["offerings"][0]["metadata"] == {"paywall": "dark"}, ios)
    status, android = http("GET", base + f"/v1/subscribers/{user}/offerings", key=app["keys"]["public_production"],
                           headers={"X-Platform": "Android"})
    play = android["offerings"][0]["packages"] if status == 200 and android.get("offerings") else []
    check("the SDK on Android gets the Play product and its base plan",
          [(p["platform_product_identifier"], p.get("platform_product_plan_identifier")) for p in play] == [("console_pro", "monthly")], android)

    page.get_by_role("link", name="Edit default").click()
    shots(page, "8h-offering-edit")
    page.get_by_label("Description", exact=True).fill("Pro plans, monthly first")
    page.get_by_role("button", name="Save offering").click()
    page.wait_for_load_state()
    check("an owner edits the offering", "Offering saved." in page.get_by_role("status").inner_text()
          and "Pro plans, monthly first" in page.get_by_role("article", name="Offering default").inner_text())

    now = int(time.time() * 1000)
    status, _ = http("POST", base + f"/v1/subscribers/{user}/attributes", key=app["keys"]["secret"],
                     body={"attributes": {"$email": {"value": "phone.user@example.com", "updated_at_ms": now},
                                          "favorite_color": {"value": "teal", "updated_at_ms": now}}})
    check("the app's backend sets attributes with the secret key", status == 200, status)
    status, _ = http("POST", base + f"/v1/subscribers/{user}/attributes", key=app["keys"]["public_production"],
                     body={"attributes": {"$displayName": {"value": "Phone <User>", "updated_at_ms": now}}})
    check("the app sets an attribute with its public key", status == 200, status)
    page.get_by_role("link", name="Customers").click()
    page.get_by_role("searchbox", name="Search").fill("Phone.User@example.com")
    page.get_by_role("button", name="Search").click()
    check("the customer is found by the $email attribute", page.get_by_role("cell", name="e-mail attribute").count() == 1, page.content()[:500])
    page.locator("table a").first.click()
    page.wait_for_load_state()
    rows = page.get_by_role("table", name="Subscriber attributes").locator("tbody tr").all_inner_texts()
    by_key = {r.split()[0]: r for r in rows}
    check("the customer page lists the attributes, with who set them and what $email is used for",
          set(by_key) == {"$displayName", "$email", "favorite_color"} and "Phone <User>" in by_key["$displayName"]
          and "Used by search, the customer portal and new-link requests." in by_key["$email"] and "secret key" in by_key["$email"]
          and "teal" in by_key["favorite_color"], rows)
    page.get_by_role("heading", name="Subscriber attributes").scroll_into_view_if_needed()
    shots(page, "8i-customer-attributes")

    # RevenueCat's offering override, from the customer page: this customer's SDK reads another offering as current.
    status, _ = http("POST", base + f"/admin/v1/apps/{app['id']}/offerings", key=app["keys"]["secret"],
                     body={"identifier": "spring_sale", "packages": [{"identifier": "$rc_monthly", "product_id": "pro_monthly"}]})
    check("a second offering is made through the admin API", status == 201, status)
    page.reload()
    page.get_by_text("Choose their current offering").click()
    choice = page.get_by_label("Current offering", exact=True)
    check("the choice starts at the app's own current offering",
          choice.evaluate("s => s.options[s.selectedIndex].text") == "The app's current offering (default)")
    choice.select_option("spring_sale")
    shots(page, "8i1-customer-offering-form")
    page.get_by_role("button", name="Save", exact=True).click()
    page.wait_for_load_state()
    status, ios = http("GET", base + f"/v1/subscribers/{user}/offerings", key=app["keys"]["public_production"], headers={"X-Platform": "iOS"})
    check("the owner's choice is what this customer's SDK reads as current; the page says so",
          status == 200 and ios["current_offering_id"] == "spring_sale" and "Saved." in page.get_by_role("status").inner_text()
          and "spring_sale (chosen on" in page.locator(".kv", has_text="Current offering").inner_text(), ios)
    status, other = http("GET", base + "/v1/subscribers/someone-else/offerings", key=app["keys"]["public_production"],
                         headers={"X-Platform": "iOS"})
    check("other customers keep the app's current offering", status == 200 and other["current_offering_id"] == "default", other)
    shots(page, "8i2-customer-offering-chosen")
    page.get_by_text("Choose their current offering").click()
    page.get_by_label("Current offering", exact=True).select_option("")
    page.get_by_role("button", name="Save", exact=True).click()
    page.wait_for_load_state()
    status, ios = http("GET", base + f"/v1/subscribers/{user}/offerings", key=app["keys"]["public_production"], headers={"X-Platform": "iOS"})
    check("choosing the app's own again removes the override", status == 200 and ios["current_offering_id"] == "default"
          and page.locator(".kv", has_text="Current offering").count() == 0, ios)

    # The usual web buyer: an anonymous ID, known by the address they paid with. The page leads with the address, and
    # the long ID wraps rather than widening the page on a phone (the screenshots check the width).
    anonymous = "$RCAnonymousID:" + "ab" * 16
    status, _ = http("POST", base + "/v1/purchases", key=app["keys"]["secret"],
                     body={"app_user_id": anonymous, "product_id": "pro_monthly", "email": "web.buyer@example.com", "is_sandbox": True},
                     headers={"Idempotency-Key": "anonymous-web-buyer"})
    check("a web purchase by an anonymous buyer is recorded", status in (200, 201), status)
    page.get_by_role("link", name="Customers", exact=True).click()
    page.get_by_role("searchbox", name="Search").fill("web.buyer@example.com")
    page.get_by_role("button", name="Search").click()
    page.locator("table a").first.click()
    page.wait_for_load_state()
    check("the anonymous buyer's page is headed by their address, the ID beneath",
          page.locator("h1").inner_text() == "web.buyer@example.com" and anonymous in page.locator("p.ids").inner_text(),
          page.locator("body").inner_text()[:300])
    shots(page, "8j-anonymous-customer")
    page.get_by_role("link", name="Products").click()


def main():
    from playwright.sync_api import sync_playwright

    os.makedirs(ARTIFACTS, exist_ok=True)
    workdir = scratch_dir("redeem-console-")
    env = {**os.environ, "REDEEM_DATABASE_URL": os.path.join(workdir, "redeem.sqlite")}
    cli(["migrate"], env)
    app = json.loads(cli(["apps", "create", "--name", "Console Demo", "--support-email", "help@example.com", "--json"], env))
    cli(["products", "create", "--app", app["id"], "--id", "pro_monthly", "--type", "subscription", "--period", "P1M",
         "--price", "4.99", "--currency", "USD", "--entitlement", "pro"], env)
    cli(["products", "create", "--app", app["id"], "--id", "pro_lifetime", "--type", "non_consumable", "--price", "49.99", "--currency", "USD",
         "--entitlement", "pro"], env)
    made = cli(["operators", "create", "--email", "support@example.com", "--role", "support", "--password-stdin", "--json"], env,
               stdin=PASSWORD + "\n")
    check("operators create reads the password from standard input", json.loads(made)["role"] == "support", made)
    cli(["operators", "create", "--email", "owner@example.com", "--role", "owner", "--password-stdin"], env, stdin=PASSWORD + "\n")
    listed = cli(["operators", "list"], env)
    check("operators list shows the operator, never a password hash", "support@example.com" in listed and "$2" not in listed, listed)

    port = free_port()
    base = f"http://127.0.0.1:{port}"
    smtp = MailServer(os.path.join(workdir, "mail"))
    log = open(os.path.join(workdir, "server.log"), "w")
    server = subprocess.Popen([BIN, "serve", "--port", str(port), "--public-url", base, "--smtp-url", smtp.url, "--mail-from", "shop@example.com"],
                              env=env, stdout=subprocess.DEVNULL, stderr=log)

    def mails_to(address, count):
        """The messages the SMTP server received for `address`, once there are `count` of them."""
        return smtp.messages(lambda message: address in message["rcpt_tos"], count)
    token, session, made_key, shown = "", {}, "", ""  # what the log must not hold, once issued
    try:
        check("serve starts", wait_healthy(base, server))
        status, granted = http("POST", base + "/v1/purchases", key=app["keys"]["secret"],
                               body={"app_user_id": "web-" + uuid.uuid4().hex[:8], "product_id": "pro_monthly", "email": "Buyer@Example.com",
                                     "is_sandbox": True},
                               headers={"Idempotency-Key": uuid.uuid4().hex})
        token = granted["redemption_https_url"].rsplit("/", 1)[-1]
        status, _ = http("POST", base + "/v1/subscribers/redeem_purchase", key=app["keys"]["public_production"],
                         body={"app_user_id": "phone-user-1", "redemption_token": token})
        check("the buyer redeemed in the app", status == 200, status)
        # A receipt the SMTP server refuses once: it fails, and a retry from the outbox delivers it.
        status, _ = http("POST", base + "/v1/purchases", key=app["keys"]["secret"],
                         body={"app_user_id": "web-bounce", "product_id": "pro_monthly", "email": "bounceonce@example.com", "is_sandbox": True,
                               "send_receipt_email": True},
                         headers={"Idempotency-Key": uuid.uuid4().hex})
        check("a second purchase, whose receipt will bounce once", status == 201, status)

        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path="/usr/bin/chromium", args=["--no-sandbox"])
            page = browser.new_page(viewport={"width": 1280, "height": 900})
            page.set_default_timeout(HANG_GUARD * 1000)  # waits for elements end when they appear; this only guards a hang
            page.goto(base + "/console")
            check("without a session the console sends you to sign in", page.url.endswith("/console/sign-in"), page.url)
            shots(page, "1-sign-in")
            page.get_by_label("E-mail").fill("support@example.com")
            page.get_by_label("Password").fill("not the password")
            page.get_by_role("button", name="Sign in").click()
            check("a wrong password is refused with one plain message", page.get_by_role("alert").inner_text() == "The e-mail or password is wrong.")
            shots(page, "2-sign-in-refused")
            page.get_by_label("Password").fill(PASSWORD)
            page.get_by_role("button", name="Sign in").click()
            check("signed in, the console opens the app's customer search", page.url.endswith(f"/console/apps/{app['id']}"), page.url)
            cookies = {c["name"]: c for c in page.context.cookies()}
            session = cookies.get("redeem_console", {})
            check("the session cookie is HttpOnly and SameSite=Strict", session.get("httpOnly") and session.get("sameSite") == "Strict", session)
            check("no page script can read the session cookie", "redeem_console=" not in page.evaluate("document.cookie"))
            shots(page, "3-search")
            page.get_by_role("searchbox", name="Search").fill("buyer@example.com")
            page.get_by_role("button", name="Search").click()
            check("the buyer is found by e-mail, in any case", page.get_by_role("cell", name="e-mail").count() == 1, page.content()[:500])
            shots(page, "4-results")
            page.locator("table a").first.click()
            page.wait_for_load_state()
            have = page.get_by_role("list", name="Active entitlements").locator("li")
            check("the customer page shows the active entitlement at the top", have.count() == 1 and have.first.inner_text().split()[:2] == ["pro", "active"],
                  have.all_inner_texts())
            feed = page.get_by_role("list", name="History, newest first").locator("li")
            attempts = feed.filter(has_text="Redemption attempt")
            check("the redemption attempt is in the history, with who redeemed", attempts.count() == 1 and "phone-user-1" in attempts.first.inner_text(),
                  feed.all_inner_texts())
            redeemed = feed.filter(has_text="Link redeemed")
            check("the history shows who redeemed the purchase's link", redeemed.count() == 1 and "phone-user-1" in redeemed.first.inner_text(),
                  feed.all_inner_texts())
            customer_url = page.url
            shots(page, "5-customer")
            check("support sees no Refund button", page.get_by_role("button", name="Refund").count() == 0)
            page.locator(".purchase summary", has_text="Details and actions").first.click()
            page.get_by_role("button", name="Show a new link").click()
            shown = page.locator("#https-url").inner_text()
            check("a new link is shown once, with its QR code, and said to be the only one",
                  shown.startswith(base + "/r/") and page.locator("figure.qr svg").count() == 1
                  and "This is the only new link: it was not e-mailed." in page.content(), shown)
            shots(page, "6-new-link")
            status, _ = http("POST", base + "/v1/subscribers/redeem_purchase", key=app["keys"]["public_production"],
                             body={"app_user_id": "phone-user-1", "redemption_token": shown.rsplit("/", 1)[-1]})
            check("the link support showed redeems in the app", status == 200, status)
            page.goto(customer_url)
            issued = page.get_by_role("list", name="History, newest first").locator("li").filter(has_text="Redemption link issued")
            links_before = issued.count()
            mails_before = len(mails_to("Buyer@Example.com", 0))
            page.locator(".purchase summary", has_text="Details and actions").first.click()
            page.get_by_role("button", name="E-mail a new link").click()
            page.wait_for_load_state()
            check("e-mailing a new link says so, and shows no link", "on its way to the purchase's e-mail address" in
                  page.get_by_role("status").inner_text() and page.locator("#https-url").count() == 0, page.url)
            shots(page, "6a-link-emailed")
            mailed = mails_to("Buyer@Example.com", mails_before + 1)[mails_before:]
            check("the new link was e-mailed through the real SMTP server", any(base + "/r/" in p["text"] for m in mailed for p in m["parts"]),
                  [m["subject"] for m in mailed])
            page.goto(customer_url)
            check("the e-mail's link is the one new token (one more link in the history)", issued.count() == links_before + 1,
                  issued.all_inner_texts())

            page.goto(customer_url)
            emails = page.get_by_role("list", name="History, newest first").locator("li").filter(has_text="E-mail (")
            check("the history lists the e-mails sent", emails.count() >= 1 and "delivered" in emails.all_inner_texts()[0], emails.all_inner_texts())
            page.get_by_text("Grant an entitlement").click()
            page.get_by_label("Entitlement", exact=True).select_option("pro")
            page.get_by_label("For", exact=True).select_option("monthly")
            shots(page, "6b-grant-form")
            page.get_by_role("button", name="Grant").click()
            page.wait_for_load_state()
            check("support grants an entitlement and the page says so", "Granted" in page.get_by_role("status").inner_text())
            status, info = http("GET", base + "/v1/subscribers/phone-user-1", key=app["keys"]["secret"])
            granted_pro = info["subscriber"]["entitlements"].get("pro", {})
            check("the grant is in GET /v1/subscribers, as RevenueCat shows it",
                  status == 200 and granted_pro.get("product_identifier") == "rc_promo_pro_monthly"
                  and info["subscriber"]["subscriptions"]["rc_promo_pro_monthly"]["store"] == "promotional", info)
            check("support sees no Revoke button", page.get_by_role("button", name="Revoke").count() == 0)
            shots(page, "6c-granted")
            page.get_by_role("button", name="Sign out").click()
            check("signing out returns to the sign-in page", page.url.endswith("/console/sign-in"), page.url)
            page.goto(base + f"/console/apps/{app['id']}")
            check("after signing out the old session opens nothing", page.url.endswith("/console/sign-in"), page.url)

            page.get_by_label("E-mail").fill("owner@example.com")
            page.get_by_label("Password").fill(PASSWORD)
            page.get_by_role("button", name="Sign in").click()
            page.get_by_role("searchbox", name="Search").fill(granted["purchase"]["id"])
            page.get_by_role("button", name="Search").click()
            page.locator("table a").first.click()
            page.evaluate("document.querySelectorAll('.purchase details').forEach(d => d.open = true)")
            page.get_by_role("button", name="Refund").click()
            check("the refund needs its box ticked", page.locator(".purchase .pill", has_text="refunded").count() == 0)
            page.get_by_label("Refund pro_monthly and revoke its access").check()
            page.get_by_role("button", name="Refund").click()
            page.wait_for_load_state()
            check("an owner refunds the sandbox purchase and the page shows it", page.locator(".purchase .pill", has_text="refunded").count() == 1,
                  page.locator(".purchase").all_inner_texts())
            shots(page, "7-refunded")
            status, info = http("GET", base + "/v1/subscribers/phone-user-1", key=app["keys"]["secret"])
            check("the refund ended the bought access; only the grant is left",
                  status == 200 and info["subscriber"]["entitlements"]["pro"]["product_identifier"] == "rc_promo_pro_monthly", info)
            page.evaluate("document.querySelectorAll('.purchase details').forEach(d => d.open = true)")
            page.get_by_label("End this grant now").check()
            page.get_by_role("button", name="Revoke").click()
            page.wait_for_load_state()
            check("an owner revokes the grant", "Revoked" in page.get_by_role("status").inner_text())
            check("the revoked grant reads 'revoked', not 'expired', and its history says so (not that a renewal was turned off)",
                  page.locator(".purchase .pill", has_text="revoked").count() == 1 and page.get_by_text("Revoked pro entitlement").count() == 1
                  and page.get_by_text("Renewal of pro entitlement").count() == 0, page.locator(".purchase .pill").all_inner_texts())
            shots(page, "7a-revoked")
            status, info = http("GET", base + "/v1/subscribers/phone-user-1", key=app["keys"]["secret"])
            check("after the revocation the app sees pro expired",
                  info["subscriber"]["entitlements"]["pro"]["expires_date"] <= info["request_date"], info)
            page.get_by_role("link", name="Two-factor").click()
            page.get_by_role("button", name="Set up two-factor sign-in").click()
            key = page.locator("#typed-key").inner_text()
            check("two-factor set-up shows a QR code and the key to type", page.locator("figure.qr svg").count() == 1 and len(key.replace(" ", "")) >= 32,
                  key)
            shots(page, "7b-two-factor-setup")
            page.go_back()
            page.go_back()
            page.get_by_role("link", name="Settings").click()
            check("settings warn when links are on without an icon", "has no icon" in page.content())
            page.get_by_label("Icon URL (https, or /assets/<file>)").fill("/assets/demo-icon.svg")
            page.get_by_label("App Store link").fill("https://apps.apple.com/app/id1234567890")
            page.get_by_role("button", name="Save settings").click()
            page.wait_for_load_state()
            check("an owner sets the icon and store link, and the warnings about them go",
                  "Saved." in page.get_by_role("status").inner_text() and "has no icon" not in page.content()
                  and "no App Store or Play Store link" not in page.content())
            shots(page, "8b-settings")
            box = page.get_by_label("Accept Stripe promotion codes").bounding_box()
            words = page.get_by_text("Accept Stripe promotion codes").bounding_box()
            check("the promotion-codes checkbox is checkbox-sized, on the line of its words",
                  box["width"] <= 24 and box["height"] <= 24 and words["y"] <= box["y"] + box["height"] / 2 <= words["y"] + words["height"],
                  f"{box} {words}")
            page.get_by_role("link", name="Products").click()
            check("the products page lists the price in words", "4.99 USD per month" in page.content())
            shots(page, "8c-products")
            offerings_and_attributes(page, base, app)
            page.get_by_role("link", name="Keys").click()
            page.get_by_text("Create a key").click()
            page.get_by_label("Kind").select_option("secret")
            page.get_by_label("Label (what it is for)").fill("billing server")
            page.get_by_role("button", name="Create", exact=True).click()
            made_key = page.locator("#secret").inner_text()
            check("a key made in the console is shown once and works", made_key.startswith("rdm_sk_")
                  and http("GET", base + f"/admin/v1/apps/{app['id']}/products", key=made_key)[0] == 200, made_key[:12])
            shots(page, "9-key-created")
            page.get_by_role("link", name="Keys").click()
            row = page.locator("tbody tr", has_text="billing server")
            row.get_by_label("Refuse this key from now on").check()
            row.get_by_role("button", name="Revoke").click()
            page.wait_for_load_state()
            check("revoking it refuses the key", "revoked" in page.get_by_role("status").inner_text()
                  and http("GET", base + f"/admin/v1/apps/{app['id']}/products", key=made_key)[0] == 401)
            shots(page, "10-keys")
            page.get_by_role("link", name="Webhooks").click()
            empty_text = page.locator("p.empty").all_inner_texts()
            check("an empty webhooks page says what an endpoint is and what to do next",
                  any("No endpoints yet" in t and "Add one below" in t for t in empty_text)
                  and any("No deliveries yet" in t for t in empty_text), empty_text)
            shots(page, "10b-webhooks-empty")
            page.get_by_text("Add an endpoint").click()
            page.get_by_label("URL (https; http only for localhost)").fill(f"http://127.0.0.1:{free_port()}/nobody-listens")
            page.get_by_role("button", name="Add", exact=True).click()
            check("a new endpoint's signing secret is shown once", page.locator("#secret").inner_text().startswith("whsec_"))
            page.get_by_role("link", name="Webhooks").click()
            page.get_by_role("button", name="Send a test event").click()
            page.wait_for_load_state()
            delivery_log = page.get_by_role("region", name="Delivery log")
            check("the test event is in the delivery log", delivery_log.locator("tbody tr", has_text="TEST").count() == 1,
                  delivery_log.inner_text()[:300])
            delivery_log.get_by_role("button", name="Replay").first.click()
            check("a delivery can be replayed", "queued to be sent again" in page.get_by_role("status").inner_text())
            shots(page, "11-webhooks")
            page.get_by_role("link", name="Offers").click()
            empty_text = page.locator("p.empty").all_inner_texts()
            check("an empty offers page says what offers, batches and custom codes are and where to create them",
                  any("No offers yet" in t and "Create one with the form below" in t for t in empty_text)
                  and any("No code batches yet" in t for t in empty_text) and any("No custom codes yet" in t for t in empty_text),
                  empty_text)
            shots(page, "11b-offers-empty")
            page.get_by_text("Create an offer").click()
            page.get_by_label("Product", exact=True).select_option("pro_monthly")
            page.get_by_label("Reference name (transactions carry it; unique in the app)").fill("Spring trial")
            page.get_by_label("Payment mode").select_option("free_trial")
            page.get_by_label("Duration of one period (subscriptions)").select_option("P1M")
            page.get_by_role("button", name="Create offer").click()
            page.wait_for_load_state()
            check("an owner creates an offer, shown in words with the active limit", "Offer created." in page.get_by_role("status").first.inner_text()
                  and "1 month free" in page.content() and "1 of 10 active offers" in page.content())
            page.get_by_text("Generate codes").click()
            page.get_by_label("How many (up to 1000000)").fill("10000")
            page.get_by_role("button", name="Generate").click()
            shots(page, "14-batch-progress")
            download_button = page.get_by_role("button", name="Download the CSV")
            download_button.wait_for(timeout=HANG_GUARD * 1000)
            with page.expect_download() as info:
                download_button.click()
            with open(info.value.path()) as f:
                rows = f.read().splitlines()
            check("a batch of 10,000 codes downloads as CSV, each with its redemption URL",
                  len(rows) == 10_001 and rows[0] == "code,redemption_url" and len({r.split(",")[0] for r in rows[1:]}) == 10_000
                  and rows[1].split(",")[1].startswith(base + "/redeem?ctx=offercodes"), rows[:2])
            status, _ = http("POST", base + "/v1/subscribers/redeem_offer_code", key=app["keys"]["public_production"],
                             body={"app_user_id": "code-user-1", "code": rows[-1].split(",")[0]})
            check("a downloaded code redeems in the app", status == 200, status)
            page.reload()
            check("the codes are handed over once", "Downloaded" in page.content() and download_button.count() == 0)
            shots(page, "15-batch-downloaded")
            page.get_by_role("link", name="Back to offers and codes").click()
            page.get_by_text("Create a custom code").click()
            page.get_by_label("Code (4–30 letters or digits)").fill("SPRING26")
            page.get_by_label("Redemptions allowed (up to 1000000)").fill("50")
            page.get_by_role("button", name="Create code").click()
            page.wait_for_load_state()
            status, _ = http("POST", base + "/v1/subscribers/redeem_offer_code", key=app["keys"]["public_production"],
                             body={"app_user_id": "code-user-2", "code": "spring26"})
            check("the custom code redeems", status == 200, status)
            page.reload()
            check("the page shows the custom code's redemptions so far and the quarter's quota",
                  "1 of 50" in page.locator("table[aria-label='Custom codes']").inner_text()
                  and "2 of 1,000,000 redemptions used" in page.locator("#quota").inner_text(), page.locator("#quota").inner_text())
            page.get_by_role("button", name="Switch off SPRING26").click()
            page.wait_for_load_state()
            status, refused = http("POST", base + "/v1/subscribers/redeem_offer_code", key=app["keys"]["public_production"],
                                   body={"app_user_id": "code-user-3", "code": "SPRING26"})
            check("a custom code switched off in the console is refused as inactive (403, 7862)",
                  status == 403 and isinstance(refused, dict) and refused.get("code") == 7862
                  and "Switched off" in page.get_by_role("status").first.inner_text(), (status, refused))
            with page.expect_download() as info:
                page.get_by_role("link", name="Download every redemption (CSV)").click()
            with open(info.value.path()) as f:
                report = f.read().splitlines()
            check("the redemption report lists both redemptions", len(report) == 3 and "SPRING26" in "\n".join(report), report)
            shots(page, "16-offers")
            page.get_by_role("link", name="E-mail").click()
            failed = page.locator("tbody tr", has_text="bounceonce@example.com")
            check("the bounced receipt is in the outbox as failed, with the server's reason",
                  failed.count() == 1 and "failed" in failed.inner_text() and "550" in failed.inner_text(), page.locator("main").inner_text()[:400])
            shots(page, "12-outbox")
            failed.get_by_role("button", name="Send again").click()
            page.wait_for_load_state()
            check("retrying the failed e-mail delivers it to the SMTP server", len(mails_to("bounceonce@example.com", 1)) == 1)
            page.get_by_role("link", name="Overview").click()
            steps = ["Purchases through checkout", "Purchases sent a link", "Links issued", "Links redeemed"]
            counts = {step: page.locator(f'td[data-step="{step}"]').inner_text() for step in steps}
            counts["elsewhere"] = page.locator("#elsewhere").inner_text()
            # This script recorded three purchases through the server API (the grant is not one): none is a checkout's
            # conversion. Each was sent a link, seven in all: one per purchase, the one support was shown and the one
            # e-mailed, and the receipt's at each of its two attempts (a link is made when an e-mail is composed, since
            # only its hash is kept); two were redeemed.
            check("the overview's funnel counts what this test did", counts == {
                "Purchases through checkout": "0", "Purchases sent a link": "3", "Links issued": "7", "Links redeemed": "2", "elsewhere": "3"}
                  and page.locator(".funnel__bar svg").count() == 6 and page.locator(".chart svg").count() == 1, counts)
            # On a phone the funnel's names and counts keep the page's text size (a chart scaled to fit shrank them to
            # about 6 px), and the per-day chart says which days it spans.
            page.set_viewport_size({"width": 390, "height": 844})
            sizes = page.locator(".funnel__name, .funnel__count").evaluate_all("els => els.map(e => parseFloat(getComputedStyle(e).fontSize))")
            axis = page.locator("#day-axis span").all_inner_texts()
            check("the funnel's text stays readable on a phone, and the per-day chart names its first and last days",
                  len(sizes) == 12 and min(sizes) >= 13 and len(axis) == 2 and all(re.fullmatch(r"\d{4}-\d{2}-\d{2}", d) for d in axis)
                  and axis[0] < axis[1], (sizes, axis))
            page.set_viewport_size({"width": 1280, "height": 900})
            chart = page.locator(".metric-chart svg").first.bounding_box()["width"]
            check("on a desktop a lone metrics chart keeps a column's width (its 400-unit text not scaled up across the page)",
                  300 < chart < 600, chart)
            shots(page, "13-overview")
            page.get_by_role("link", name="Audit log").click()
            actions = page.locator("tbody tr td:nth-child(3)").all_inner_texts()
            check("the audit log shows every write", {"grant.revoke", "purchase.refund", "grant.create", "purchase.link", "key.create", "key.revoke", "app.update",
                                                      "webhook.create", "webhook.test", "webhook.replay", "offer.create", "code_batch.create",
                                                      "custom_code.create", "custom_code.deactivate", "email.retry", "product.update", "offering.create",
                                                      "offering.update"} <= set(actions), actions)
            shots(page, "8-audit")
            page.get_by_role("link", name="New app").click()
            page.get_by_label("Name (buyers see it on pages and in e-mails)").fill("Second App")
            page.get_by_label("Icon URL (https)").fill("/assets/demo-icon.svg")
            page.get_by_label("App Store link").fill("https://apps.apple.com/app/id42")
            check("the new-app form has the console's styles (full-width fields)",
                  page.get_by_label("Name (buyers see it on pages and in e-mails)").bounding_box()["width"] > 300)
            shots(page, "17-new-app")
            # What the form sends, for sending it again below (a resubmit after the first answer was lost).
            resent = page.evaluate("() => new URLSearchParams(new FormData(document.querySelector('form[action=\"/console/new-app\"]'))).toString()")
            page.get_by_role("button", name="Create app").click()
            keys = page.locator("code.secret").all_inner_texts()
            new_secret = next((k for k in keys if k.startswith("rdm_sk_")), "")
            new_app = page.url  # The secret page answers the POST; the app's ID is in the back link.
            back = page.get_by_role("link", name="← Back").get_attribute("href")
            check("a new app's three keys are shown once, and its secret key works", len(keys) == 3 and back.endswith("/settings")
                  and http("GET", base + back.replace("/console", "/admin/v1").replace("/settings", "/products"), key=new_secret)[0] == 200,
                  (keys, back, new_app))
            page.get_by_role("link", name="← Back").click()
            check("the new app's settings keep its icon and store link", page.get_by_label("App Store link").input_value() == "https://apps.apple.com/app/id42")
            preview = page.frame_locator("#preview")
            page.get_by_label("Name", exact=True).fill("Second App Renamed")
            preview.get_by_text("Second App Renamed").first.wait_for(timeout=HANG_GUARD * 1000)
            check("the preview shows the typed name before it is saved, with the App Store badge",
                  preview.locator('a[href="https://apps.apple.com/app/id42"]').count() >= 1)
            page.get_by_role("link", name="Link page").click()
            preview.get_by_text("Second App Renamed").first.wait_for(timeout=HANG_GUARD * 1000)
            check("the link page previews too", "/r/preview" in preview.locator("body").inner_html())
            shots(page, "18-settings-preview")
            # The same fields in a form of their own, sent as the browser sends a form (`submit()` skips the page
            # script, which holds back only a second send within seconds).
            with page.expect_navigation() as navigation:
                page.evaluate("""(body) => {
                    const form = document.createElement('form');
                    form.method = 'post';
                    form.action = '/console/new-app';
                    for (const [name, value] of new URLSearchParams(body)) {
                        const input = document.createElement('input');
                        input.type = 'hidden'; input.name = name; input.value = value;
                        form.appendChild(input);
                    }
                    document.body.appendChild(form);
                    form.submit();
                }""", resent)
            status = navigation.value.status
            names = [a["name"] for a in json.loads(cli(["apps", "list", "--json"], env))["apps"]]
            check("the new-app form sent again makes no second app, and its page says the keys were shown once",
                  status == 200 and "already created" in page.locator("h1").inner_text() and page.locator("code.secret").count() == 0
                  and names.count("Second App") == 1, (status, names))
            shots(page, "19-new-app-again")
            browser.close()
    finally:
        server.terminate()
        server.wait(timeout=HANG_GUARD)
        log.close()
        smtp.stop()
    with open(os.path.join(workdir, "server.log")) as f:
        text = f.read()
    leaked = secrets_in(text, {"password": PASSWORD, "session": session.get("value"), "app secret key": app["keys"]["secret"],
                               "key made in the console": made_key, "link support was shown": shown,
                               "its token": shown.rsplit("/", 1)[-1] if shown else "", "the purchase's token": token})
    check("no password, session, key or redemption link reaches the log", not leaked and "redeem_console=" not in text, leaked)
    finish()


main()

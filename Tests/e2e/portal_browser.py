#!/usr/bin/env python3
"""The customer portal in a real browser (Playwright from PyPI driving Debian's Chromium) against `redeem serve` with a
real SMTP server on loopback: the receipt links to the portal; the buyer asks for a sign-in link, reads it from the SMTP
server, signs in, gets a new redemption link (redeemed in the app), cancels the sandbox subscription and sees it end
with its period (and the e-mail saying so), resumes it, and signs out. A sandbox checkout on a phone lands on a success page that can be reopened
and keeps the HTTPS link; prices and dates follow the browser's language (en-US, de-DE). Screenshots at desktop and phone width go to test-artifacts/portal/.
Usage: portal_browser.py path/to/redeem. Prints 'N passed, M failed'."""
import json, os, re, subprocess, sys, uuid

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from support import (HANG_GUARD, MailServer, check, fetch, finish, free_port, http, run_cli, scratch_dir, screenshots, secrets_in,  # noqa: E402
                     wait_healthy)

BIN = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else ".build/debug/redeem")
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
ARTIFACTS = os.path.join(ROOT, "test-artifacts", "portal")
BUYER = "portal.buyer@example.com"


def cli(args, env, stdin=None):
    return run_cli(BIN, args, env, stdin)


def shots(page, name):
    screenshots(page, ARTIFACTS, name)


def main():
    from playwright.sync_api import sync_playwright

    os.makedirs(ARTIFACTS, exist_ok=True)
    workdir = scratch_dir("redeem-portal-")
    env = {**os.environ, "REDEEM_DATABASE_URL": os.path.join(workdir, "redeem.sqlite")}
    cli(["migrate"], env)
    app = json.loads(cli(["apps", "create", "--name", "Portal Demo", "--support-email", "help@example.com", "--icon-url",
                          "/assets/demo-icon.svg", "--app-store-url", "https://apps.apple.com/app/id1234567890", "--json"], env))
    cli(["products", "create", "--app", app["id"], "--id", "pro_monthly", "--type", "subscription", "--period", "P1M",
         "--price", "4.99", "--currency", "USD", "--entitlement", "pro", "--display-name", "Pro monthly",
         "--subscription-group", "pro", "--group-level", "2"], env)
    cli(["products", "create", "--app", app["id"], "--id", "pro_yearly", "--type", "subscription", "--period", "P1Y",
         "--price", "49.99", "--currency", "USD", "--entitlement", "pro", "--display-name", "Pro yearly",
         "--subscription-group", "pro", "--group-level", "1"], env)
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    smtp = MailServer(os.path.join(workdir, "mail"))
    log = open(os.path.join(workdir, "server.log"), "w")
    server = subprocess.Popen([BIN, "serve", "--port", str(port), "--public-url", base, "--smtp-url", smtp.url, "--mail-from", "shop@example.com"],
                              env=env, stdout=subprocess.DEVNULL, stderr=log)

    def mails(subject_part, count):
        return smtp.messages(lambda message: subject_part in message["subject"], count)

    def text(message):
        return next((p["text"] for p in message["parts"] if p["content_type"] == "text/plain"), "")

    link, https_link, cookie = "", "", {}  # what the log must not hold, once issued
    try:
        check("serve starts", wait_healthy(base, server))
        status, bought = http("POST", base + "/v1/purchases", key=app["keys"]["secret"],
                              body={"app_user_id": "web-" + uuid.uuid4().hex[:8], "product_id": "pro_monthly", "email": BUYER,
                                    "is_sandbox": True, "store": "rc_billing", "send_receipt_email": True},
                              headers={"Idempotency-Key": uuid.uuid4().hex})
        check("a sandbox subscription bought on the web", status == 201, bought)
        portal = f"{base}/account/{app['id']}"
        check("its CustomerInfo's management_url is the portal", bought["customer_info"]["subscriber"]["management_url"] == portal,
              bought["customer_info"]["subscriber"].get("management_url"))
        receipt = mails("purchase", 1)
        check("the receipt links to the portal", receipt and portal in text(receipt[0]), text(receipt[0])[-400:] if receipt else "no receipt")

        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path="/usr/bin/chromium", args=["--no-sandbox"])
            page = browser.new_page(viewport={"width": 1280, "height": 900})
            page.set_default_timeout(HANG_GUARD * 1000)  # waits for elements end when they appear; this only guards a hang
            page.goto(portal)
            shots(page, "1-sign-in")
            page.get_by_label("E-mail address used at checkout").fill("Portal.Buyer@Example.com")
            page.get_by_role("button", name="Send me a sign-in link").click()
            check("asking for a link says to check the inbox", "Check your inbox" in page.content())
            shots(page, "2-check-inbox")
            page.goto(portal)
            page.get_by_label("E-mail address used at checkout").fill("stranger@example.com")
            page.get_by_role("button", name="Send me a sign-in link").click()
            check("an address without purchases gets the same answer", "Check your inbox" in page.content())
            # A page left open past its form cookie's hour: the form comes back with what was typed, then goes through.
            page.goto(portal)
            page.get_by_label("E-mail address used at checkout").fill("stranger@example.com")
            page.context.clear_cookies()
            page.get_by_role("button", name="Send me a sign-in link").click()
            notice = page.get_by_role("alert").inner_text() if page.get_by_role("alert").count() == 1 else ""
            check("a sign-in page that outlived its cookie comes back with what was typed, saying why",
                  page.get_by_label("E-mail address used at checkout").input_value() == "stranger@example.com"
                  and "open too long" in notice, notice)
            shots(page, "2b-page-outlived-its-cookie")
            page.get_by_role("button", name="Send me a sign-in link").click()
            check("sent again from it, it goes through", "Check your inbox" in page.content())
            sign_in = mails("Sign in", 1)
            link = re.search(r"http://127\.0\.0\.1:\d+/account/[^\s]+/sign-in/[A-Za-z0-9_-]{43}", text(sign_in[0])).group(0) if sign_in else ""
            check("only the buyer's address got a sign-in link, by real SMTP", len(sign_in) == 1 and sign_in[0]["rcpt_tos"] == [BUYER] and link,
                  [m["rcpt_tos"] for m in sign_in])
            # A mail scanner opening the link must not use it up: two plain GETs first, then the browser signs in with it.
            scanned = [fetch(link) for _ in range(2)]
            check("opening the sign-in link answers a page with a Sign in button, not a session",
                  all(status == 200 and 'type="submit">Sign in</button>' in body and "redeem_portal=" not in str(headers)
                      for status, headers, body in scanned), [status for status, _, _ in scanned])
            page.goto(link)
            shots(page, "3-confirm")
            page.get_by_role("button", name="Sign in").click()
            content = page.content()
            check("signed in after the scanner's visits (they used nothing), the buyer sees their purchase",
                  page.url == portal and "Pro monthly" in content and "$4.99" in content, (page.url, re.findall(r"[^>]{0,20}4\.99", content)))
            cookie = next(c for c in page.context.cookies() if c["name"] == "redeem_portal")
            check("the portal cookie is HttpOnly and SameSite=Strict", cookie["httpOnly"] and cookie["sameSite"] == "Strict", cookie)
            shots(page, "4-purchases")
            page.get_by_role("button", name="Get a link to open it in the app").click()
            https_link = page.locator("[data-copy]").first.get_attribute("data-copy")
            check("a new link is shown with its QR code on a computer", https_link and https_link.startswith(base + "/r/")
                  and page.locator("figure.qr .qr-code svg").count() == 1, https_link)
            shots(page, "5-new-link")
            status, _ = http("POST", base + "/v1/subscribers/redeem_purchase", key=app["keys"]["public_production"],
                             body={"app_user_id": "phone-1", "redemption_token": https_link.rsplit("/", 1)[-1]})
            check("the portal's link redeems in the app", status == 200, status)
            check("the shown link is the one new token: no second copy is e-mailed", len(mails("new", 0)) == 0)
            page.get_by_role("link", name="Back to your purchases").click()
            check("cancelling takes a second step: nothing is cancelled by the first click",
                  page.get_by_role("button", name="Confirm cancellation").is_visible() is False)
            page.get_by_text("Cancel subscription…").click()
            page.get_by_label("I don’t use it enough").check()
            shots(page, "6a-cancel-confirm")
            page.get_by_role("button", name="Confirm cancellation").click()
            check("cancelling keeps the subscription to the end of its period",
                  "Cancelled" in page.get_by_role("status").inner_text() and "won’t renew" in page.content()
                  and page.get_by_role("button", name="Resume subscription").count() == 1)
            status, info = http("GET", base + "/v1/subscribers/phone-1", key=app["keys"]["secret"])
            sub = info["subscriber"]["subscriptions"]["pro_monthly"]
            check("the app sees it active, set to end", info["subscriber"]["entitlements"]["pro"]["expires_date"] == sub["expires_date"]
                  and sub["unsubscribe_detected_at"] is not None, sub)
            shots(page, "6-cancelled")
            notice = mails("won’t renew", 1)
            notice_text = text(notice[0]) if notice else ""
            check("turning renewal off e-mails the buyer the day access ends and the way back", notice
                  and notice[0]["rcpt_tos"] == [BUYER] and "Yours until: " in notice_text and "Pro monthly" in notice_text
                  and portal in notice_text, notice_text or "no notice")
            if notice:
                # The notice's HTML part as a mail client shows it, at desktop and phone width.
                html = next((part["text"] for part in notice[0]["parts"] if part["content_type"] == "text/html"), "")
                reader = browser.new_page(viewport={"width": 1280, "height": 900})
                reader.set_content(html)
                button = reader.get_by_role("link", name="Manage your subscription").get_attribute("href") or ""
                check("the notice's button is a one-time sign-in link to the portal",
                      re.fullmatch(re.escape(portal) + r"/sign-in/[A-Za-z0-9_-]{43}", button) and button in notice_text, button)
                shots(reader, "6b-renewal-off-email")
                reader.close()
                # Opened where the buyer has no session (another device), it signs them in with one press.
                elsewhere = browser.new_context(viewport={"width": 390, "height": 844})
                other = elsewhere.new_page()
                other.set_default_timeout(HANG_GUARD * 1000)
                other.goto(button)
                other.get_by_role("button", name="Sign in").click()
                check("the notice's button signs the buyer in on another device, to the subscription to resume",
                      other.url == portal and other.get_by_role("button", name="Resume subscription").count() == 1, other.url)
                other.goto(button)
                check("and only once", "expired" in other.content().lower() or "used" in other.content().lower(), other.url)
                elsewhere.close()
            page.get_by_role("button", name="Resume subscription").click()
            check("resuming makes it renew again", "Resumed" in page.get_by_role("status").inner_text()
                  and page.get_by_text("Cancel subscription…").count() == 1)
            # Another plan of the group: chosen behind a second step, applied at once to a sandbox subscription.
            check("changing plan takes a second step", page.get_by_role("button", name="Switch plan").is_visible() is False)
            page.get_by_text("Change plan…").click()
            page.get_by_label("Pro yearly · $49.99 / year").check()
            shots(page, "6c-change-plan")
            page.get_by_role("button", name="Switch plan").click()
            check("the subscription is now the yearly plan", "Plan changed" in page.get_by_role("status").inner_text()
                  and page.get_by_role("heading", name="Pro yearly").count() == 1 and "$49.99 / year" in page.content())
            status, info = http("GET", base + "/v1/subscribers/phone-1", key=app["keys"]["secret"])
            check("the app sees the yearly plan", info["subscriber"]["entitlements"]["pro"]["product_identifier"] == "pro_yearly",
                  info["subscriber"]["entitlements"]["pro"])
            shots(page, "6d-plan-changed")
            # Back down to monthly: a downgrade waits for the yearly period's end, and can be taken back.
            page.get_by_text("Change plan…").click()
            page.get_by_label(re.compile(r"Pro monthly · \$4\.99 / month · from ")).check()
            page.get_by_role("button", name="Switch plan").click()
            check("a downgrade waits for the period's end, the yearly plan kept until then",
                  "You keep your current plan" in page.get_by_role("status").inner_text()
                  and page.get_by_role("heading", name="Pro yearly").count() == 1
                  and page.get_by_text(re.compile("Changes to Pro monthly on")).count() == 1)
            shots(page, "6e-plan-scheduled")
            told = mails("plan changes on", 1)
            told_text = text(told[0]) if told else ""
            check("the buyer is e-mailed the plan kept, until when, and the one after",
                  told and told[0]["rcpt_tos"] == [BUYER] and "You keep Pro yearly until" in told_text
                  and "renews as Pro monthly, at $4.99 / month" in told_text, told_text or "no notice")
            if told:
                html = next((part["text"] for part in told[0]["parts"] if part["content_type"] == "text/html"), "")
                reader = browser.new_page(viewport={"width": 1280, "height": 900})
                reader.set_content(html)
                shots(reader, "6f-plan-scheduled-email")
                reader.close()
            page.get_by_role("button", name="Keep my current plan").click()
            check("keeping the plan drops the switch", "stays as it is" in page.get_by_role("status").inner_text()
                  and page.get_by_text(re.compile("Changes to Pro monthly")).count() == 0)
            page.get_by_role("button", name="Sign out").click()
            check("signing out ends the session", page.get_by_role("button", name="Send me a sign-in link").count() == 1)
            page.goto(link)
            check("a used sign-in link says it has expired", "expired" in page.content())
            shots(page, "7-link-used")
            page.goto(base + "/account/no-such-app")
            check("an unknown app answers an HTML page", "text/html" in page.evaluate("document.contentType"))

            # A phone without the app: the checkout lands on a page that can be reopened and keeps the HTTPS link.
            phone = browser.new_context(viewport={"width": 390, "height": 844}, locale="en-US", user_agent=(
                "Mozilla/5.0 (iPhone; CPU iPhone OS 18_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.0 Mobile/15E148 Safari/604.1"))
            phone.set_default_timeout(HANG_GUARD * 1000)
            mobile = phone.new_page()
            mobile.goto(f"{base}/sandbox/p/{app['id']}/pro_monthly")
            check("the checkout shows the price with its symbol and period in words", "$4.99 / month" in mobile.content())
            mobile.get_by_label("E-mail for your receipt and your link").fill("phone.buyer@example.com")
            mobile.get_by_role("button", name=re.compile("Pay")).click()
            mobile.wait_for_load_state()
            done_url = mobile.url
            check("the checkout lands on a success page with its own address (post, redirect, get)", "/checkout/done/" in done_url, done_url)
            mobile.reload()
            later = mobile.locator(".redeem-later a")
            check("reopened on a phone, it keeps the HTTPS link and the store badge",
                  later.is_visible() and later.get_attribute("href").startswith(base + "/r/")
                  and mobile.locator('a[href="https://apps.apple.com/app/id1234567890"]').count() >= 1, later.count())
            shots(mobile, "8-success-phone")
            phone.close()
            german = browser.new_context(locale="de-DE")
            german.set_default_timeout(HANG_GUARD * 1000)
            page_de = german.new_page()
            page_de.goto(done_url)
            body = page_de.locator("body").inner_text()
            check("in German the price, its period and the date follow the locale", "4,99\u00a0$ / Monat" in body and re.search(r"\d{1,2}\. \w+ 20\d\d", body),
                  re.findall(r"4[.,]99[^<]{0,12}", body)[:2])
            shots(page_de, "9-success-de")
            german.close()
            browser.close()
    finally:
        server.terminate()
        server.wait(timeout=HANG_GUARD)
        log.close()
        smtp.stop()
    with open(os.path.join(workdir, "server.log")) as f:
        logged = f.read()
    leaked = secrets_in(logged, {"sign-in link": link, "sign-in token": link.rsplit("/", 1)[-1], "session": cookie.get("value"),
                                 "new link": https_link, "new link's token": https_link.rsplit("/", 1)[-1]})
    check("no sign-in link, session or redemption link reaches the log",
          not leaked and "/sign-in/" not in logged and "redeem_portal=" not in logged, leaked)
    finish()


main()

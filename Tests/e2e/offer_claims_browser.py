#!/usr/bin/env python3
"""Who a web offer claim is for, in a real browser (Playwright from PyPI driving Debian's Chromium) against `redeem serve`
with a real SMTP server on loopback, on SQLite and then PostgreSQL (a fresh database on REDEEM_TEST_POSTGRES_URL).
Set up through the CLI: a subscription, a free-trial offer for new subscribers with two custom codes (SPRING, SUMMER),
and a subscription recorded for subscriber@example.com. A buyer claims SPRING with a double click (the page sends the
form once); the same address in other case is refused SUMMER (409) with the form keeping what was typed, and SUMMER stays
unused; the subscriber's address does not qualify (403); an address with a typo comes back (422) with what was typed, and the corrected address claims on the
same form; the buyer signs in to the portal with an e-mailed link and sees the claim. Screenshots at desktop and phone
width go to test-artifacts/offer-claims/.
Usage: offer_claims_browser.py path/to/redeem. Prints 'N passed, M failed'."""
import json, os, re, subprocess, sys, uuid

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from support import (HANG_GUARD, MailServer, check, finish, free_port, http, run_cli, scratch_dir, screenshots, secrets_in,  # noqa: E402
                     wait_healthy)

BIN = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else ".build/debug/redeem")
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
ARTIFACTS = os.path.join(ROOT, "test-artifacts", "offer-claims")
BUYER, SUBSCRIBER = "ann@example.com", "subscriber@example.com"
EMAIL_LABEL = "E-mail for your receipt and your link"


def set_up(env):
    """The app, the product, the offer with its two custom codes and a subscriber, through the CLI. Returns the app."""
    app = json.loads(run_cli(BIN, ["apps", "create", "--name", "Offer Claims Demo", "--support-email", "help@example.com",
                                   "--icon-url", "/assets/demo-icon.svg", "--json"], env))
    run_cli(BIN, ["products", "create", "--app", app["id"], "--id", "monthly", "--type", "subscription", "--period", "P1M",
                  "--price", "4.99", "--currency", "USD", "--entitlement", "pro", "--display-name", "Pro monthly"], env)
    offer = json.loads(run_cli(BIN, ["offers", "create", "--app", app["id"], "--product", "monthly", "--reference-name", "Spring trial",
                                     "--payment-mode", "free_trial", "--duration", "P1M", "--periods", "1", "--eligibility", "new",
                                     "--json"], env))
    for code in ("SPRING", "SUMMER"):
        run_cli(BIN, ["codes", "create-custom", "--app", app["id"], "--offer", offer["id"], "--code", code, "--max-redemptions", "5"], env)
    run_cli(BIN, ["purchases", "create", "--app", app["id"], "--product", "monthly", "--email", SUBSCRIBER,
                  "--app-user-id", "subscriber-1"], env)
    return app


def uses(env, app):
    """Each custom code's redemption count, from `redeem codes list-custom`."""
    listed = json.loads(run_cli(BIN, ["codes", "list-custom", "--app", app["id"], "--json"], env))
    return {c["code"]: c["redemption_count"] for c in listed["custom_codes"]}


def scenario(label, browser, database_url, workdir):
    env = {**os.environ, "REDEEM_DATABASE_URL": database_url}
    os.makedirs(os.path.join(workdir, label))
    run_cli(BIN, ["migrate"], env)
    app = set_up(env)
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    smtp = MailServer(os.path.join(workdir, label, "mail"))
    log_path = os.path.join(workdir, label, "server.log")
    log = open(log_path, "w")
    server = subprocess.Popen([BIN, "serve", "--port", str(port), "--public-url", base, "--database-url", database_url,
                               "--smtp-url", smtp.url, "--mail-from", "receipts@example.com"],
                              env=env, stdout=subprocess.DEVNULL, stderr=log)

    def to(address):
        return lambda message: message["rcpt_tos"] == [address]

    def text(message):
        return next((p["text"] for p in message["parts"] if p["content_type"] == "text/plain"), "")

    def shots(page, name):
        screenshots(page, ARTIFACTS, f"{label}-{name}")

    def offer_page(page, code):
        page.goto(f"{base}/redeem?ctx=offercodes&id={app['id']}&code={code}")

    posts = []  # each POST the browser sends
    def claim(page, email, double=False):
        """Types `email` into the offer page's form and claims (with a double click if `double`): the answer's status
        (the page the POST landed on), or None when the page has no form (then the checks after it fail at once rather
        than wait for one)."""
        if page.get_by_label(EMAIL_LABEL).count() != 1 or page.get_by_role("button", name="Claim offer").count() != 1:
            return None
        page.get_by_label(EMAIL_LABEL).fill(email)
        button = page.get_by_role("button", name="Claim offer")
        if not double:
            with page.expect_navigation() as landed:
                button.click()
            return landed.value.status
        # The POSTs are held, as a slow answer would leave the page, while a second click comes 100 ms after the first
        # (from the page itself: Playwright's own click would wait for the pending navigation).
        held = []
        page.route(f"{base}/redeem", lambda route: held.append(route) if route.request.method == "POST" else route.continue_())
        page.evaluate("""() => { const b = document.querySelector("form[method=post] button[type=submit]");
            b.addEventListener("click", () => { if (!b.dataset.again) { b.dataset.again = "1"; setTimeout(() => b.click(), 100); } }); }""")
        button.click(no_wait_after=True)
        page.wait_for_timeout(600)  # time for a second POST to leave, if the page lets it
        with page.expect_navigation() as landed:
            for route in held:
                route.continue_()
        page.unroute(f"{base}/redeem")
        return landed.value.status

    def refused_with(page, words, typed):
        """The offer page again: the reason, the offer, and the form with what was typed and its button."""
        alert = page.get_by_role("alert")
        return (alert.count() == 1 and words in alert.inner_text() and page.locator("h1").inner_text() == "Pro monthly"
                and page.get_by_label(EMAIL_LABEL).input_value() == typed
                and page.get_by_role("button", name="Claim offer").count() == 1)

    def seen(page):
        return (page.get_by_role("alert").inner_text() if page.get_by_role("alert").count() else "",
                page.get_by_label(EMAIL_LABEL).input_value() if page.get_by_label(EMAIL_LABEL).count() else None)

    link, cookie = "", {}  # what the log must not hold, once issued
    try:
        check(f"[{label}] serve starts", wait_healthy(base, server))
        context = browser.new_context(viewport={"width": 1280, "height": 900}, locale="en-US")
        context.set_default_timeout(HANG_GUARD * 1000)  # waits for elements end when they appear; this only guards a hang
        page = context.new_page()
        page.on("request", lambda request: posts.append(request.url) if request.method == "POST" else None)

        offer_page(page, "spring")
        check(f"[{label}] the offer page shows the product, the offer and the form",
              page.locator("h1").inner_text() == "Pro monthly" and "1 month free" in page.content()
              and page.get_by_role("button", name="Claim offer").count() == 1, page.locator("body").inner_text()[:300])
        shots(page, "1-offer")
        status = claim(page, BUYER, double=True)
        claimed = status == 200 and "Thank you" in page.title() and "/checkout/done/" in page.url
        check(f"[{label}] {BUYER} claims SPRING with a double click and lands on the success page", claimed, (status, page.title(), page.url))
        check(f"[{label}] the double click sent the form once", posts == [f"{base}/redeem"], posts)
        shots(page, "2-claimed")
        # Mail is awaited only when it is due, so a run whose claim failed ends at once rather than at the hang guard.
        wait = HANG_GUARD if claimed else 0
        check(f"[{label}] the claim's receipt went to {BUYER}", len(smtp.messages(to(BUYER), 1, timeout=wait)) == 1)

        offer_page(page, "SUMMER")
        status = claim(page, "Ann@Example.com")
        check(f"[{label}] the same address in other case is refused SUMMER with 409", status == 409, status)
        check(f"[{label}] the refusal says why and keeps the form with what was typed",
              refused_with(page, "already been claimed with this e-mail address", "Ann@Example.com"), seen(page))
        shots(page, "3-already-claimed")
        check(f"[{label}] the refused claim did not use SUMMER (list-custom)", uses(env, app) == {"SPRING": 1, "SUMMER": 0}, uses(env, app))
        status, listed = http("GET", f"{base}/admin/v1/apps/{app['id']}/custom_codes", key=app["keys"]["secret"])
        check(f"[{label}] nor in the admin API", status == 200 and {c["code"]: c["redemption_count"] for c in listed["custom_codes"]}
              == {"SPRING": 1, "SUMMER": 0}, (status, listed))

        offer_page(page, "SPRING")
        status = claim(page, SUBSCRIBER)
        check(f"[{label}] an address with an active subscription does not qualify (403)", status == 403, status)
        check(f"[{label}] its refusal says so and keeps the form", refused_with(page, "does not qualify for this offer", SUBSCRIBER), seen(page))
        shots(page, "4-not-eligible")
        status = claim(page, "someone@example")  # on the refused page's form
        check(f"[{label}] an address with a typo comes back with 422", status == 422, status)
        check(f"[{label}] it asks for the address and keeps what was typed", refused_with(page, "Enter the e-mail address", "someone@example"),
              seen(page))
        shots(page, "5-typo")
        status = claim(page, "bob@example.com")  # the same form, corrected
        check(f"[{label}] corrected on the same form, a new address claims", status == 200 and "Thank you" in page.title(),
              (status, page.title(), seen(page) if "Thank you" not in page.title() else ""))
        check(f"[{label}] SPRING was used twice, SUMMER never", uses(env, app) == {"SPRING": 2, "SUMMER": 0}, uses(env, app))

        portal = f"{base}/account/{app['id']}"
        page.goto(portal)
        page.get_by_label("E-mail address used at checkout").fill(BUYER)
        page.get_by_role("button", name="Send me a sign-in link").click()
        sign_in = smtp.messages(lambda m: m["rcpt_tos"] == [BUYER] and "Sign in" in m["subject"], 1, timeout=wait)
        found = re.search(r"http://127\.0\.0\.1:\d+/account/[^\s]+/sign-in/[A-Za-z0-9_-]{43}", text(sign_in[0])) if sign_in else None
        link = found.group(0) if found else ""
        check(f"[{label}] {BUYER} gets a sign-in link by real SMTP", bool(link), [m["subject"] for m in sign_in])
        if link:
            page.goto(link)
            page.get_by_role("button", name="Sign in").click()
            cookie = next((c for c in context.cookies() if c["name"] == "redeem_portal"), {})
            cards = page.locator("section.purchase-card")
            check(f"[{label}] the portal lists the claimed offer, and only it", page.url == portal and cards.count() == 1
                  and cards.first.get_attribute("aria-label") == "Pro monthly"
                  and "No purchases bought on the web" not in page.content(), (page.url, page.locator("body").inner_text()[:400]))
            shots(page, "6-portal")
        check(f"[{label}] the refused addresses got no e-mail",
              not smtp.messages(lambda m: m["rcpt_tos"][0].lower() in (SUBSCRIBER, "someone@example"), 0, timeout=0)
              and len(smtp.messages(to(BUYER), 0, timeout=0)) == 2,
              [(m["rcpt_tos"], m["subject"]) for m in smtp.messages(lambda m: True, 0, timeout=0)])
        context.close()
    finally:
        server.terminate()
        server.wait(timeout=HANG_GUARD)
        log.close()
        smtp.stop()
    with open(log_path) as f:
        logged = f.read()
    leaked = secrets_in(logged, {**app["keys"], "sign-in link": link, "sign-in token": link.rsplit("/", 1)[-1] if link else "",
                                 "session": cookie.get("value")})
    check(f"[{label}] no key, sign-in link or session reaches the log", not leaked and "/sign-in/" not in logged, leaked)


def main():
    from playwright.sync_api import sync_playwright

    os.makedirs(ARTIFACTS, exist_ok=True)
    workdir = scratch_dir("redeem-offer-claims-")
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path="/usr/bin/chromium", args=["--no-sandbox"])
        scenario("sqlite", browser, "sqlite://" + os.path.join(workdir, "redeem.sqlite"), workdir)
        pg = os.environ.get("REDEEM_TEST_POSTGRES_URL")
        if pg:
            name = "redeem_e2e_" + uuid.uuid4().hex[:12]
            subprocess.run(["psql", pg, "-qc", f"CREATE DATABASE {name}"], check=True)
            try:
                scenario("postgres", browser, pg.rsplit("/", 1)[0] + "/" + name, workdir)
            finally:
                subprocess.run(["psql", pg, "-qc", f"DROP DATABASE IF EXISTS {name} WITH (FORCE)"])
        else:
            print("skip postgres scenario: REDEEM_TEST_POSTGRES_URL is not set")
        browser.close()
    finish()


main()

#!/usr/bin/env python3
"""A product's purchase links from the console, in a real browser (Playwright from PyPI driving Debian's Chromium)
against `redeem serve` without Stripe. An owner opens Products at desktop and then at phone width, fills the link form
(an app user ID and UTM values), copies the sandbox link with its Copy button (read back from the clipboard), opens it
and completes the sandbox purchase through it; the purchase is the named app user's and keeps the UTM values (read
through the admin API). The production link says Stripe is not configured; the offers page gives an active custom
code's links, and the offer page they open shows the offer. Screenshots at desktop and phone width go to
test-artifacts/purchase-links/. Usage: purchase_links_browser.py path/to/redeem. Prints 'N passed, M failed'."""
import json, os, subprocess, sys, urllib.parse

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from support import HANG_GUARD, check, chromium, console_sign_in, desktop_context, finish, free_port, http, run_cli, scratch_dir, screenshots, wait_healthy  # noqa: E402

BIN = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else ".build/debug/redeem")
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
ARTIFACTS = os.path.join(ROOT, "test-artifacts", "purchase-links")
PASSWORD = "a long console password"


def shots(page, name):
    screenshots(page, ARTIFACTS, name)


def buy_through_copied_link(page, base, app, size, user, utm):
    """At `size`, the link form on Products, the sandbox link copied and opened, and the sandbox purchase completed."""
    page.set_viewport_size({"width": size[0], "height": size[1]})
    page.goto(f"{base}/console/apps/{app['id']}/products")
    page.get_by_text("For an app user, or with UTM parameters").click()
    page.get_by_label("App user ID (optional)").fill(user)
    for name, value in utm.items():
        page.get_by_label(name, exact=True).fill(value)
    page.get_by_role("button", name="Show links").click()
    page.wait_for_load_state()
    block = page.locator("details.links", has_text="pro_monthly")
    sandbox = block.locator("[data-link=Sandbox]")
    shown = sandbox.locator("code.link-url").inner_text()
    query = urllib.parse.urlencode(utm, quote_via=urllib.parse.quote)
    wanted = f"{base}/sandbox/p/{app['id']}/pro_monthly/{urllib.parse.quote(user, safe='')}?{query}"
    check(f"[{size[0]} px] the form's values are in the sandbox link, encoded", shown == wanted, (shown, wanted))
    check(f"[{size[0]} px] the production link says Stripe is not configured",
          "Stripe is not configured on this server" in block.locator("[data-link=Production]").inner_text())
    check(f"[{size[0]} px] each link has its QR code", block.locator("figure.link-qr svg").count() == 2)
    sandbox.get_by_role("button", name="Copy Sandbox link").click()
    try:
        sandbox.get_by_role("button", name="Copied").wait_for(timeout=5000)  # the label changes once the clipboard has it
        said = True
    except Exception:  # noqa: BLE001 (Playwright's timeout): the check below reports it
        said = False
    check(f"[{size[0]} px] the Copy button says so", said)
    copied = page.evaluate("navigator.clipboard.readText()")
    check(f"[{size[0]} px] the clipboard holds the sandbox link", copied == shown, copied)
    shots(page, f"products-links-{size[0]}")
    page.goto(copied)
    page.get_by_label("E-mail for your receipt and your link").fill(f"buyer-{size[0]}@example.com")
    page.get_by_role("button", name="Pay (sandbox)").click()
    page.wait_for_load_state()
    check(f"[{size[0]} px] the sandbox purchase completes through the copied link", "Thank you" in page.title(), page.title())
    status, listed = http("GET", f"{base}/admin/v1/apps/{app['id']}/customers/{urllib.parse.quote(user, safe='')}/purchases",
                          key=app["keys"]["secret"])
    purchases = listed.get("purchases", []) if status == 200 else []
    check(f"[{size[0]} px] the purchase is {user}'s and keeps the UTM values",
          len(purchases) == 1 and purchases[0].get("is_sandbox") is True and purchases[0].get("custom_params") == utm, (status, listed))


def main():
    from playwright.sync_api import sync_playwright

    os.makedirs(ARTIFACTS, exist_ok=True)
    workdir = scratch_dir("redeem-purchase-links-")
    env = {**os.environ, "REDEEM_DATABASE_URL": os.path.join(workdir, "redeem.sqlite")}
    run_cli(BIN, ["migrate"], env)
    app = json.loads(run_cli(BIN, ["apps", "create", "--name", "Links Demo", "--support-email", "help@example.com", "--json"], env))
    run_cli(BIN, ["products", "create", "--app", app["id"], "--id", "pro_monthly", "--type", "subscription", "--period", "P1M",
                  "--price", "4.99", "--currency", "USD", "--entitlement", "pro", "--display-name", "Pro monthly"], env)
    run_cli(BIN, ["products", "create", "--app", app["id"], "--id", "pro_lifetime_with_a_rather_long_identifier", "--type",
                  "non_consumable", "--price", "49.99", "--currency", "USD", "--entitlement", "pro"], env)
    offer = json.loads(run_cli(BIN, ["offers", "create", "--app", app["id"], "--product", "pro_monthly", "--reference-name", "Spring trial",
                                     "--payment-mode", "free_trial", "--duration", "P1M", "--periods", "1", "--eligibility", "new", "--json"], env))
    run_cli(BIN, ["codes", "create-custom", "--app", app["id"], "--offer", offer["id"], "--code", "SPRING", "--max-redemptions", "5"], env)
    run_cli(BIN, ["operators", "create", "--email", "owner@example.com", "--role", "owner", "--password-stdin"], env, stdin=PASSWORD + "\n")
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    log = open(os.path.join(workdir, "server.log"), "w")
    server = subprocess.Popen([BIN, "serve", "--port", str(port), "--public-url", base], env=env, stdout=subprocess.DEVNULL, stderr=log)
    try:
        check("serve starts", wait_healthy(base, server))
        with sync_playwright() as p:
            browser = chromium(p)
            context = desktop_context(browser)
            context.grant_permissions(["clipboard-read", "clipboard-write"], origin=base)
            page = context.new_page()
            console_sign_in(page, base, "owner@example.com", PASSWORD)
            page.goto(f"{base}/console/apps/{app['id']}/products")
            check("Products lists each product's links, closed", page.locator("details.links").count() == 2
                  and page.locator("details.links[open]").count() == 0, page.locator("details.links").count())
            page.locator("details.links summary").first.click()
            page.locator("details.links summary").nth(1).click()
            shots(page, "1-products")
            buy_through_copied_link(page, base, app, (1280, 900), "desk-buyer", {"utm_source": "newsletter", "utm_campaign": "spring sale"})
            buy_through_copied_link(page, base, app, (390, 844), "phone buyer+1", {"utm_source": "qr", "utm_medium": "poster"})

            page.set_viewport_size({"width": 1280, "height": 900})
            page.goto(f"{base}/console/apps/{app['id']}/offers")
            row = page.locator("tbody tr", has_text="SPRING")
            row.get_by_text("Links to share").click()
            code_link = row.locator("[data-link=Production] code.link-url").inner_text()
            check("the offers page gives the custom code's offer link",
                  code_link == f"{base}/redeem?ctx=offercodes&id={app['id']}&code=SPRING", code_link)
            shots(page, "2-offers")
            page.goto(code_link)
            check("the code's link opens the offer's page", page.locator("h1").inner_text() == "Pro monthly" and "1 month free" in page.content()
                  and page.get_by_role("button", name="Claim offer").count() == 1, page.locator("body").inner_text()[:300])
            shots(page, "3-offer-page")
            context.close()
            browser.close()
    finally:
        server.terminate()
        server.wait(timeout=HANG_GUARD)
        log.close()
    finish()


main()

#!/usr/bin/env python3
"""A buyer's mistakes on the checkout and offer pages are never a dead end, in a real browser (Playwright from PyPI
driving Debian's Chromium) against `redeem serve` on SQLite, without Stripe. Set up through the CLI: a branded app, a
subscription, a free-trial offer (code WELCOME) and a paid one (code INTRO), and a yearly subscription with its own
offer (code YEARLY).
- A mistyped address at the sandbox checkout comes back (422) on the same branded page with what was typed and a
  sentence naming the field; corrected there, the purchase completes.
- A mistyped code under "Have an offer code?" comes back (404) with the code field holding what was typed and a way
  back to the product; the right code then shows its offer; a code for another product says so and lets the buyer choose.
- The production purchase link and a paid offer, on a server without Stripe, say in the app's name that it is not on
  sale, with no operator advice.
- A buyer named in the link who already subscribed is told so first when opening it again, before any form, and advised
  to open the app rather than to try again.
Every page is measured at 390 px: none is wider than the screen. Screenshots at desktop and phone width go to
test-artifacts/buyer-forms/.
Usage: buyer_forms_browser.py path/to/redeem. Prints 'N passed, M failed'."""
import json, os, sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from support import HANG_GUARD, check, finish, run_cli, screenshots, serve_on_sqlite, wait_healthy  # noqa: E402

BIN = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else ".build/debug/redeem")
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
ARTIFACTS = os.path.join(ROOT, "test-artifacts", "buyer-forms")
APP_NAME, PRODUCT = "Forms Demo", "Pro monthly"
EMAIL_LABEL = "E-mail for your receipt and your link"
OPERATOR_WORDS = ("configured", "sandbox link", "REDEEM_", "try again in a little while", "Redeem")


def set_up(env):
    app = json.loads(run_cli(BIN, ["apps", "create", "--name", APP_NAME, "--support-email", "help@example.com",
                                   "--icon-url", "/assets/demo-icon.svg", "--json"], env))
    run_cli(BIN, ["products", "create", "--app", app["id"], "--id", "monthly", "--type", "subscription", "--period", "P1M",
                  "--price", "4.99", "--currency", "USD", "--entitlement", "pro", "--display-name", PRODUCT], env)
    run_cli(BIN, ["products", "create", "--app", app["id"], "--id", "yearly", "--type", "subscription", "--period", "P1Y",
                  "--price", "39.99", "--currency", "USD", "--entitlement", "pro", "--display-name", "Pro yearly"], env)
    for code, product, terms in (("WELCOME", "monthly", ["--payment-mode", "free_trial", "--duration", "P1M", "--periods", "1"]),
                                 ("INTRO", "monthly", ["--payment-mode", "pay_up_front", "--duration", "P3M", "--periods", "1", "--price", "1.99"]),
                                 ("YEARLY", "yearly", ["--payment-mode", "free_trial", "--duration", "P1M", "--periods", "1"])):
        offer = json.loads(run_cli(BIN, ["offers", "create", "--app", app["id"], "--product", product, "--reference-name", code.title(),
                                         *terms, "--eligibility", "new", "--eligibility", "existing", "--eligibility", "expired", "--json"], env))
        run_cli(BIN, ["codes", "create-custom", "--app", app["id"], "--offer", offer["id"], "--code", code, "--max-redemptions", "50"], env)
    return app


def main():
    from playwright.sync_api import sync_playwright

    os.makedirs(ARTIFACTS, exist_ok=True)
    app, base, server, log = serve_on_sqlite(BIN, "redeem-buyer-forms-", set_up)
    checkout = f"{base}/sandbox/p/{app['id']}/monthly"

    def fits(page, name):
        screenshots(page, ARTIFACTS, name)  # with the width checks at both sizes

    def branded(page):
        return page.title().endswith(" · " + APP_NAME) and "help@example.com" in page.locator("footer").inner_text()

    def alert(page):
        return page.get_by_role("alert").inner_text() if page.get_by_role("alert").count() == 1 else ""

    def submit(page, button):
        with page.expect_navigation() as landed:
            page.get_by_role("button", name=button).click()
        return landed.value.status

    try:
        check("serve starts", wait_healthy(base, server))
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path="/usr/bin/chromium", args=["--no-sandbox"])
            context = browser.new_context(viewport={"width": 1280, "height": 900}, locale="en-US")
            context.set_default_timeout(HANG_GUARD * 1000)  # only guards a hang
            page = context.new_page()

            # 1. A mistyped address at the sandbox checkout, then corrected on the same form.
            page.goto(checkout)
            page.get_by_label(EMAIL_LABEL).fill("jane@example")
            status = submit(page, "Pay (sandbox)")
            check("a refused address comes back with 422", status == 422, status)
            check("on the same branded checkout, the product named, the address kept",
                  branded(page) and page.locator("h1").inner_text() == PRODUCT
                  and page.get_by_label(EMAIL_LABEL).input_value() == "jane@example"
                  and page.get_by_role("button", name="Pay (sandbox)").count() == 1, (page.title(), page.locator("body").inner_text()[:300]))
            check("the sentence names the field by its label, and the field is marked",
                  "e-mail address for your receipt and your link" in alert(page)
                  and page.get_by_label(EMAIL_LABEL).get_attribute("aria-invalid") == "true", alert(page))
            fits(page, "1-checkout-bad-email")
            page.get_by_label(EMAIL_LABEL).fill("jane@example.com")
            status = submit(page, "Pay (sandbox)")
            check("corrected on the same form, the purchase completes", status == 200 and "/checkout/done/" in page.url
                  and "Thank you" in page.title(), (status, page.url, page.title()))
            fits(page, "2-checkout-corrected")

            # 2. A mistyped code under "Have an offer code?", the way back, then the right code.
            page.goto(checkout)
            page.get_by_label("Have an offer code?").fill("BAD-CODE-1")
            status = submit(page, "Apply code")
            check("an unknown code comes back with 404", status == 404, status)
            check("with the code field holding what was typed, branded", branded(page)
                  and page.get_by_label("Your code").input_value() == "BAD-CODE-1"
                  and page.get_by_role("button", name="Continue").count() == 1, page.locator("body").inner_text()[:300])
            check("saying why and what to do, the field marked", "not valid" in alert(page) and "enter it again" in alert(page)
                  and page.get_by_label("Your code").get_attribute("aria-invalid") == "true", alert(page))
            back = page.get_by_role("link", name=f"Back to {PRODUCT} without a code")
            check("with a way back to the product", back.count() == 1)
            fits(page, "3-code-mistyped")
            if back.count() == 1:
                back.click()
                page.wait_for_load_state()
                check("the way back leads to the product's checkout", page.url == checkout
                      and page.get_by_role("button", name="Pay (sandbox)").count() == 1, page.url)
                page.get_by_label("Have an offer code?").fill("BAD-CODE-1")
                submit(page, "Apply code")
            if page.get_by_label("Your code").count() == 1:
                page.get_by_label("Your code").fill("welcome")
                status = submit(page, "Continue")
                check("the right code on the same field shows its offer", status == 200 and page.locator("h1").inner_text() == PRODUCT
                      and "1 month free" in page.content() and page.get_by_role("button", name="Claim offer").count() == 1,
                      (status, page.locator("body").inner_text()[:300]))
                fits(page, "4-code-corrected")

            # 2b. A code for another product: said, and the buyer chooses; nothing switches silently.
            page.goto(checkout)
            page.get_by_label("Have an offer code?").fill("YEARLY")
            status = submit(page, "Apply code")
            note = page.get_by_role("status").inner_text() if page.get_by_role("status").count() == 1 else ""
            check("a code for another product says so and lets the buyer choose", status == 200
                  and f"This code is for Pro yearly, not {PRODUCT}, which you were buying." in note
                  and page.locator("h1").inner_text() == "Pro yearly" and page.get_by_role("button", name="Claim offer").count() == 1
                  and page.get_by_role("link", name=f"Back to {PRODUCT} without a code").count() == 1, (status, note))
            fits(page, "4b-code-for-another-product")

            # 3. Production, without Stripe: in the app's name, no operator advice.
            response = page.goto(f"{base}/p/{app['id']}/monthly")
            body = page.locator("body").inner_text()
            check("the production link without Stripe answers 503", response.status == 503, response.status)
            check("saying in the app's name that it is not on sale", branded(page) and f"{PRODUCT} isn’t on sale here yet" in body
                  and f"{APP_NAME} doesn’t take payments on the web yet" in body, body[:300])
            check("with no operator advice", not any(word in body for word in OPERATOR_WORDS), body)
            fits(page, "5-production-not-on-sale")
            response = page.goto(f"{base}/redeem?ctx=offercodes&id={app['id']}&code=INTRO")
            body = page.locator("body").inner_text()
            check("a paid offer without Stripe says so before anything is typed", response.status == 503 and branded(page)
                  and "doesn’t take payments on the web yet" in alert(page)
                  and page.get_by_role("button", name="Continue to checkout").count() == 0, (response.status, body[:300]))
            check("its page has no operator advice", not any(word in body for word in OPERATOR_WORDS), body)
            fits(page, "6-paid-offer-not-on-sale")

            # 4. A buyer named in the link who already subscribed: said first, before any form, with what to do instead.
            mine = f"{base}/sandbox/p/{app['id']}/monthly/jane-42"
            page.goto(mine)
            page.get_by_label(EMAIL_LABEL).fill("jane@example.com")
            check("the named buyer's first purchase completes", submit(page, "Pay (sandbox)") == 200 and "/checkout/done/" in page.url, page.url)
            response = page.goto(mine)
            reason = page.locator("p.reason").inner_text() if page.locator("p.reason").count() == 1 else ""
            check("opened again, the link answers 409 in the app's name, with no form", response.status == 409 and branded(page)
                  and page.get_by_role("button", name="Pay (sandbox)").count() == 0, (response.status, page.content()[:300]))
            check("saying why first, under the title", page.locator("h1").inner_text() == "That’s already done"
                  and reason == f"You already have an active {PRODUCT} subscription.", reason)
            body = page.locator("body").inner_text()
            check("advising the app, not another try", "open the app to use what you have" in body and "try again" not in body
                  and not any(word in body for word in OPERATOR_WORDS), body)
            fits(page, "7-already-subscribed")
            browser.close()
    finally:
        server.terminate()
        server.wait(timeout=HANG_GUARD)
        log.close()
    finish()


main()

#!/usr/bin/env python3
"""A buyer's pages in the browser's language, in a real browser (Playwright from PyPI driving Debian's Chromium) against
`redeem serve` on SQLite, without Stripe. Set up through the CLI: an app with a support address, a monthly
subscription with a free-trial offer code (WELCOME).

For German, Japanese and Traditional Chinese (Taiwan) browsers, and a Swedish one that falls back to English, the walk
goes through the sandbox checkout, its success page, the redemption link's page, the offer-code page, the portal's
sign-in page and an error page (a link that does not exist), and checks on each:
- `<html lang>` names the language chosen;
- the page's heading and its main button are the language's texts from `Resources/buyer/<language>.json`, with the
  app's and product's names filled in, and no English heading is left;
- prices and dates are written as the locale writes them;
- the page fits a 390 px phone (nothing scrolls sideways): German's long words and CJK lines included.
Screenshots at desktop and phone width go to test-artifacts/buyer-languages/.
Usage: buyer_languages_browser.py path/to/redeem. Prints 'N passed, M failed'."""
import json, os, re, sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from support import HANG_GUARD, check, finish, run_cli, screenshots, serve_on_sqlite, wait_healthy  # noqa: E402

BIN = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else ".build/debug/redeem")
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
ARTIFACTS = os.path.join(ROOT, "test-artifacts", "buyer-languages")
TEXTS = os.path.join(ROOT, "Sources", "RedeemServer", "Resources", "buyer")
APP_NAME, PRODUCT = "Lumen", "Lumen Pro"
# browser locale, the language Redeem should choose, how the locale writes $4.99 and a date's year
BROWSERS = (("de-DE", "de", "4,99", "2026"), ("ja-JP", "ja", "$4.99", "2026年"), ("zh-TW", "zh-Hant", "US$4.99", "2026年"),
            ("sv-SE", "en", "4,99", "2026"))


def texts(language):
    with open(os.path.join(TEXTS, language + ".json"), encoding="utf-8") as file:
        return json.load(file)


def fill(text, **values):
    """A text with its {{name}} tags filled and its sections and markup dropped, as a page's visible words read."""
    for name, value in values.items():
        text = text.replace("{{" + name + "}}", value)
    return re.sub(r"\{\{[#^/][^}]*\}\}|<[^>]*>", "", text)


def set_up(env):
    app = json.loads(run_cli(BIN, ["apps", "create", "--name", APP_NAME, "--support-email", "help@example.com", "--json"], env))
    run_cli(BIN, ["products", "create", "--app", app["id"], "--id", "monthly", "--type", "subscription", "--period", "P1M",
                  "--price", "4.99", "--currency", "USD", "--entitlement", "pro", "--display-name", PRODUCT], env)
    offer = json.loads(run_cli(BIN, ["offers", "create", "--app", app["id"], "--product", "monthly", "--reference-name", "Welcome",
                                     "--payment-mode", "free_trial", "--duration", "P1M", "--periods", "1",
                                     "--eligibility", "new", "--json"], env))
    run_cli(BIN, ["codes", "create-custom", "--app", app["id"], "--offer", offer["id"], "--code", "WELCOME", "--max-redemptions", "50"], env)
    return app


def menu_checks(browser, base, app):
    """The footer's language menu: an English browser opens a purchase link, picks Deutsch, and gets the same page
    (its UTM value kept) in German, which the next page remembers."""
    context = browser.new_context(viewport={"width": 390, "height": 844}, locale="en-US")
    context.set_default_timeout(HANG_GUARD * 1000)  # only guards a hang
    page = context.new_page()
    page.goto(f"{base}/sandbox/p/{app['id']}/monthly?utm_source=news%26letter")
    menu = page.locator("details.languages")
    check("menu: closed at first, showing the page's language", menu.get_attribute("open") is None
          and menu.locator("summary").inner_text().strip() == "English", menu.inner_html()[:300])
    menu.locator("summary").click()
    names = menu.locator("li a").all_inner_texts()
    check("menu: every language, each named in itself", len(names) == 11 and "Deutsch" in names and "日本語" in names
          and "Français" in names, names)
    screenshots(page, ARTIFACTS, "menu-open")
    with page.expect_navigation():
        menu.get_by_role("link", name="Deutsch").click()
    german = texts("de")
    check("menu: Deutsch gives the same page in German, the UTM value kept",
          page.locator("html").get_attribute("lang") == "de" and "utm_source=news%26letter" in page.url and page.url.endswith("lang=de")
          and fill(german["form.receipt_email"]) in page.locator("body").inner_text(), page.url)
    screenshots(page, ARTIFACTS, "menu-chosen-de")
    page.goto(f"{base}/account/{app['id']}")
    check("menu: the next page remembers it", page.locator("html").get_attribute("lang") == "de"
          and page.locator("details.languages summary").inner_text().strip() == "Deutsch", page.url)
    context.close()


def main():
    from playwright.sync_api import sync_playwright

    os.makedirs(ARTIFACTS, exist_ok=True)
    app, base, server, log = serve_on_sqlite(BIN, "redeem-buyer-languages-", set_up)
    english = texts("en")
    try:
        check("serve starts", wait_healthy(base, server))
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path="/usr/bin/chromium", args=["--no-sandbox"])
            for locale, language, price, year in BROWSERS:
                words = texts(language)
                context = browser.new_context(viewport={"width": 1280, "height": 900}, locale=locale)
                context.set_default_timeout(HANG_GUARD * 1000)  # only guards a hang
                page = context.new_page()

                def speaks(name, heading, *others):
                    """The page is in the language: its lang, its heading, and each other text given, on screen."""
                    body = page.locator("body").inner_text()
                    check(f"{locale} {name}: <html lang={language}>", page.locator("html").get_attribute("lang") == language,
                          page.locator("html").get_attribute("lang"))
                    shown = page.locator("h1").first.inner_text().strip()
                    check(f"{locale} {name}: the heading is the language's", shown == heading.strip(), f"{shown!r} != {heading!r}")
                    for text in others:
                        check(f"{locale} {name}: says {text[:40]!r}", text.strip() in body, body[:300])
                    screenshots(page, ARTIFACTS, f"{language}-{name}")

                page.goto(f"{base}/sandbox/p/{app['id']}/monthly")
                speaks("checkout", PRODUCT, fill(words["checkout.sandbox_note"]), fill(words["form.receipt_email"]))
                check(f"{locale} checkout: the price in the locale's way, the period in words",
                      fill(words["price.per"], price="", unit=words["per.month"]).strip() in page.locator(".lead").inner_text()
                      and price in page.locator(".lead").inner_text(), page.locator(".lead").inner_text())
                page.get_by_label(fill(words["form.receipt_email"])).fill("buyer@example.com")
                with page.expect_navigation():
                    page.get_by_role("button", name=fill(words["checkout.pay_sandbox"])).click()
                paid = re.sub(r"\{\{#free\}\}.*?\{\{/free\}\}", "", words["success.heading"])  # what was paid for
                speaks("success", fill(paid),
                       fill(words["success.lead"], appName=APP_NAME), fill(words["success.add_to_app"], appName=APP_NAME))
                dates = page.locator(".receipt dd").all_inner_texts()
                check(f"{locale} success: the date as the locale writes it", any(year in d for d in dates), dates)
                link = page.locator("button[data-copy]").get_attribute("data-copy")
                check(f"{locale} success: the copy button says the language's words",
                      page.locator("button[data-copy]").get_attribute("data-copied") == words["step.copied"])

                page.goto(link)
                speaks("link", words["link.ready_title"], fill(words["link.open_in_app"], appName=APP_NAME))

                page.goto(f"{base}/sandbox/redeem?ctx=offercodes&id={app['id']}&code=WELCOME")
                trial = fill(words["offer.free_trial"], period=fill(words["unit.month.one"], count="1"))
                speaks("offer", PRODUCT, trial, fill(words["offer.code"], code="WELCOME"))

                page.goto(f"{base}/account/{app['id']}")
                # This server sends no e-mail, so the page says so instead of offering the form.
                speaks("portal-sign-in", fill(words["signin.title"], appName=APP_NAME),
                       fill(words["signin.mail_off"], supportEmail="help@example.com"))

                status = page.goto(f"{base}/r/{'x' * 43}").status
                check(f"{locale} invalid link: 404, in the language", status == 404, status)
                speaks("invalid-link", words["link.invalid_title"])

                if language != "en":
                    body = page.locator("body").inner_text()
                    check(f"{locale}: no English heading left", english["link.invalid_title"] not in body)
                context.close()
            menu_checks(browser, base, app)
            browser.close()
    finally:
        server.terminate()
        server.wait(timeout=30)
        log.close()
    finish()


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Checkout branding and a new app's first steps, in a real browser (Playwright from PyPI driving Debian's Chromium)
against `redeem serve` without Stripe or SMTP. A new app's overview shows the first steps with nothing ticked; a priced
product, the link policy and universal links chosen in the settings, and a webhook endpoint tick those steps. The owner
types an accent for light and dark and a logo: the settings' two checkout previews (light and dark side by side) show
them before saving; saved, the sandbox checkout's button has the accent's colour in each scheme (emulated
prefers-color-scheme). The terms of use and privacy policy typed there are linked at the checkout's foot and named
under its pay button; required, the terms are a box to tick before paying. Screenshots at desktop and phone width go to test-artifacts/branding/.
Usage: branding_browser.py path/to/redeem. Prints 'N passed, M failed'."""
import json, os, subprocess, sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from support import HANG_GUARD, check, chromium, console_sign_in, desktop_context, finish, free_port, http, run_cli, scratch_dir, screenshots, wait_for, wait_healthy  # noqa: E402

BIN = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else ".build/debug/redeem")
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
ARTIFACTS = os.path.join(ROOT, "test-artifacts", "branding")
PASSWORD = "a long console password"
LOGO = "https://logo.example/brand.svg"
LOGO_SVG = ('<svg xmlns="http://www.w3.org/2000/svg" width="120" height="40" viewBox="0 0 120 40"><rect width="120" height="40" rx="8" '
            'fill="#0f5132"/><text x="60" y="26" font-family="sans-serif" font-size="18" fill="#fff" text-anchor="middle">ACME</text></svg>')
ACCENT, ACCENT_RGB = "#0f5132", "rgb(15, 81, 50)"
DARK_ACCENT, DARK_ACCENT_RGB = "#ffd60a", "rgb(255, 214, 10)"
TERMS, PRIVACY = "https://acme.example/terms", "https://acme.example/privacy"


def ticked(page):
    return sorted(page.locator("li.first-step[data-done=yes]").evaluate_all("items => items.map(item => item.dataset.step)"))


def button_colour(frame):
    return frame.locator("button.btn--primary").evaluate("button => getComputedStyle(button).backgroundColor")


def frame_shows(page, frame_id, colour, logo):
    """Whether the preview iframe `frame_id` has reloaded with the button in `colour` and the logo."""
    frame = page.frame_locator(f"#{frame_id}")
    try:
        return button_colour(frame) == colour and frame.locator("img.app-logo").get_attribute("src", timeout=1000) == logo
    except Exception:  # noqa: BLE001 (the frame is reloading): ask again
        return False


def main():
    from playwright.sync_api import sync_playwright

    os.makedirs(ARTIFACTS, exist_ok=True)
    workdir = scratch_dir("redeem-branding-")
    env = {**os.environ, "REDEEM_DATABASE_URL": os.path.join(workdir, "redeem.sqlite")}
    run_cli(BIN, ["migrate"], env)
    app = json.loads(run_cli(BIN, ["apps", "create", "--name", "Acme Notes", "--support-email", "help@example.com", "--json"], env))
    run_cli(BIN, ["operators", "create", "--email", "owner@example.com", "--role", "owner", "--password-stdin"], env, stdin=PASSWORD + "\n")
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    log = open(os.path.join(workdir, "server.log"), "w")
    server = subprocess.Popen([BIN, "serve", "--port", str(port), "--public-url", base], env=env, stdout=subprocess.DEVNULL, stderr=log)
    settings = f"{base}/console/apps/{app['id']}/settings"
    try:
        check("serve starts", wait_healthy(base, server))
        with sync_playwright() as p:
            browser = chromium(p)
            context = desktop_context(browser, color_scheme="light")
            # The logo is https (as required); the browser gets it from here instead of the network.
            context.route(LOGO, lambda route: route.fulfill(status=200, content_type="image/svg+xml", body=LOGO_SVG))
            page = context.new_page()
            console_sign_in(page, base, "owner@example.com", PASSWORD)

            page.goto(f"{base}/console/apps/{app['id']}/overview")
            check("a new app's overview shows its first steps", page.locator("#first-steps").count() == 1)
            check("nothing is ticked on a new app", ticked(page) == [] and page.locator("li.first-step").count() == 7, ticked(page))
            check("an unticked step links to where it is done",
                  page.get_by_role("link", name="Add a webhook endpoint").get_attribute("href") == f"/console/apps/{app['id']}/webhooks")
            check("Stripe's step says sandbox only, plainly", "Sandbox only" in page.locator("li[data-step=stripe]").inner_text())
            screenshots(page, ARTIFACTS, "1-first-steps-new")

            run_cli(BIN, ["products", "create", "--app", app["id"], "--id", "pro_monthly", "--type", "subscription", "--period", "P1M",
                          "--price", "4.99", "--currency", "USD", "--entitlement", "pro", "--display-name", "Pro monthly"], env)
            status, _ = http("POST", f"{base}/admin/v1/apps/{app['id']}/webhooks", key=app["keys"]["secret"],
                             body={"url": "https://hooks.example.com/redeem"})
            check("a webhook endpoint is added", status == 201, status)
            page.goto(settings)
            page.get_by_label("Redemption links", exact=True).select_option("enabled")
            page.get_by_label("Apple team ID").fill("ABCDE12345")
            page.get_by_label("iOS bundle ID").fill("com.acme.notes")
            page.get_by_role("button", name="Save settings").click()
            page.wait_for_load_state()
            page.goto(f"{base}/console/apps/{app['id']}/overview")
            check("product, purchase link, link policy, app links and webhook are ticked",
                  ticked(page) == ["app_links", "link_policy", "product", "purchase_link", "webhook"], ticked(page))
            screenshots(page, ARTIFACTS, "2-first-steps-configured")

            page.goto(settings)
            page.get_by_label("Logo URL (https; empty shows the icon)").fill(LOGO)
            page.get_by_label("Accent (light)").fill(ACCENT)
            page.get_by_label("Accent (dark)").fill(DARK_ACCENT)
            page.get_by_label("Terms of use URL (https)").fill(TERMS)
            page.get_by_label("Privacy policy URL (https)").fill(PRIVACY)
            check("the light preview shows the typed accent and logo before saving",
                  wait_for(lambda: frame_shows(page, "preview-light", ACCENT_RGB, LOGO), timeout=15))
            check("the dark preview shows the dark accent and logo before saving",
                  wait_for(lambda: frame_shows(page, "preview-dark", DARK_ACCENT_RGB, LOGO), timeout=15))
            dark_bg = page.frame_locator("#preview-dark").locator("body").evaluate("body => getComputedStyle(body).backgroundColor")
            check("the dark preview is dark whatever the browser prefers", dark_bg == "rgb(13, 13, 18)", dark_bg)
            check("nothing is saved by the preview", http("GET", f"{base}/admin/v1/apps/{app['id']}", key=app["keys"]["secret"])[1]
                  .get("brand_accent") is None)
            page.locator("#branding").scroll_into_view_if_needed()
            screenshots(page, ARTIFACTS, "3-settings-preview")
            page.get_by_role("button", name="Save settings").click()
            page.wait_for_load_state()
            saved = http("GET", f"{base}/admin/v1/apps/{app['id']}", key=app["keys"]["secret"])[1]
            check("the branding is saved", (saved.get("brand_accent"), saved.get("brand_accent_dark"), saved.get("brand_logo_url"))
                  == (ACCENT, DARK_ACCENT, LOGO), saved)
            check("the legal links are saved", (saved.get("terms_url"), saved.get("privacy_url")) == (TERMS, PRIVACY), saved)

            checkout = f"{base}/sandbox/p/{app['id']}/pro_monthly"
            page.goto(checkout)
            check("light: the sandbox checkout's button is the accent", button_colour(page) == ACCENT_RGB, button_colour(page))
            check("the checkout shows the logo", page.locator("img.app-logo").get_attribute("src") == LOGO)
            foot = page.locator("footer .legal a")
            check("the foot links the terms and the privacy policy",
                  foot.evaluate_all("links => links.map(link => [link.textContent, link.href])")
                  == [["Terms of Use", TERMS], ["Privacy Policy", PRIVACY]])
            consent = page.locator("form .consent")
            check("under the pay button, continuing agrees to the terms", consent.is_visible()
                  and consent.inner_text() == "By continuing, you agree to the Terms of Use and acknowledge the Privacy Policy."
                  and consent.get_by_role("link", name="Terms of Use").get_attribute("href") == TERMS, consent.inner_text())
            screenshots(page, ARTIFACTS, "4-checkout-light")
            page.emulate_media(color_scheme="dark")
            page.reload()
            check("dark: the sandbox checkout's button is the dark accent", button_colour(page) == DARK_ACCENT_RGB, button_colour(page))
            label = page.locator("button.btn--primary").evaluate("button => getComputedStyle(button).color")
            check("dark: the button's label is black on the yellow accent", label == "rgb(0, 0, 0)", label)
            screenshots(page, ARTIFACTS, "5-checkout-dark")
            page.emulate_media(color_scheme="light")

            # Consent required: a box to tick before paying, which the browser asks for before anything is sent.
            page.goto(settings)
            page.get_by_label("Buyers tick a box agreeing to the terms", exact=False).check()
            page.get_by_role("button", name="Save settings").click()
            page.wait_for_load_state()
            page.goto(checkout)
            box = page.get_by_role("checkbox", name="I agree to the Terms of Use and acknowledge the Privacy Policy.")
            check("consent required: the checkout has a box to tick, and no line", box.is_visible() and page.locator("form .consent").count() == 0)
            page.get_by_label("E-mail for your receipt and your link").fill("buyer@example.com")
            page.get_by_role("button", name="Pay (sandbox)").click()
            check("paying without ticking it is stopped by the browser", box.evaluate("input => input.validity.valueMissing")
                  and page.url == checkout)
            screenshots(page, ARTIFACTS, "6-checkout-consent")
            box.check()
            page.get_by_role("button", name="Pay (sandbox)").click()
            page.wait_for_load_state()
            check("ticked, the payment goes through", "Thank you" in page.content(), page.url)
            context.close()
            browser.close()
    finally:
        server.terminate()
        server.wait(timeout=HANG_GUARD)
        log.close()
    finish()


main()

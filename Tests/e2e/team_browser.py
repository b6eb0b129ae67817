#!/usr/bin/env python3
"""The console's team in a real browser (Playwright from PyPI driving Debian's Chromium) against `redeem serve` with a
real SMTP server on loopback. An owner invites a support operator; the invitee reads the invitation from the SMTP
server, opens the link on a phone, sets a name and password, and is signed in with support's limits (no keys, the team
read-only). The owner disables them and their open session ends; enabled again, they reset their password from the
sign-in page's e-mailed link, and the old password stops working. Screenshots at 1280 and 390 px go to
test-artifacts/team/. Usage: team_browser.py path/to/redeem. Prints 'N passed, M failed'."""
import json, os, re, subprocess, sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from support import HANG_GUARD, MailServer, check, chromium, console_sign_in, finish, free_port, run_cli, scratch_dir, screenshots, secrets_in, wait_healthy  # noqa: E402

BIN = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else ".build/debug/redeem")
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
ARTIFACTS = os.path.join(ROOT, "test-artifacts", "team")
OWNER_PASSWORD = "owner password 1234"
FIRST_PASSWORD = "first password 1234"
NEW_PASSWORD = "second password 5678"
INVITEE = "nia@example.com"


def shots(page, name):
    screenshots(page, ARTIFACTS, name)


def text(message):
    return next((p["text"] for p in message["parts"] if p["content_type"] == "text/plain"), "")


def main():
    from playwright.sync_api import sync_playwright

    os.makedirs(ARTIFACTS, exist_ok=True)
    workdir = scratch_dir("redeem-team-")
    env = {**os.environ, "REDEEM_DATABASE_URL": os.path.join(workdir, "redeem.sqlite")}
    run_cli(BIN, ["migrate"], env)
    app = json.loads(run_cli(BIN, ["apps", "create", "--name", "Team Demo", "--json"], env))
    run_cli(BIN, ["operators", "create", "--email", "owner@example.com", "--role", "owner", "--password-stdin"], env, stdin=OWNER_PASSWORD + "\n")
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    smtp = MailServer(os.path.join(workdir, "mail"))
    log = open(os.path.join(workdir, "server.log"), "w")
    server = subprocess.Popen([BIN, "serve", "--port", str(port), "--public-url", base, "--smtp-url", smtp.url, "--mail-from", "team@example.com"],
                              env=env, stdout=subprocess.DEVNULL, stderr=log)
    links = {}
    try:
        check("serve starts", wait_healthy(base, server))
        with sync_playwright() as p:
            browser = chromium(p)
            owner = browser.new_context(viewport={"width": 1280, "height": 900}, locale="en-US")
            owner.set_default_timeout(HANG_GUARD * 1000)  # waits end when the element appears; this only guards a hang
            desk = owner.new_page()
            console_sign_in(desk, base, "owner@example.com", OWNER_PASSWORD)
            desk.get_by_role("link", name="Team").click()
            check("the bar's Team tab opens the team page", desk.url == base + "/console/team" and "No invitations waiting" in desk.content(),
                  desk.url)
            shots(desk, "1-team")
            desk.get_by_label("E-mail", exact=True).fill(INVITEE)
            desk.get_by_label("Role").select_option("support")
            desk.get_by_role("button", name="Send invitation").click()
            check("the owner sees the invitation pending", "Invitation sent" in desk.content()
                  and desk.locator("tbody tr", has_text=INVITEE).count() == 1, desk.locator("main, body").first.inner_text()[:400])
            shots(desk, "2-invited")

            invitation = smtp.messages(lambda m: "invited" in m["subject"], 1)
            check("the invitation reaches the SMTP server", len(invitation) == 1 and invitation[0]["rcpt_tos"] == [INVITEE],
                  invitation[:1])
            found = re.search(r"http://127\.0\.0\.1:\d+/console/invitation/[A-Za-z0-9_-]{43}", text(invitation[0])) if invitation else None
            check("it carries a one-time link", found is not None, text(invitation[0])[:400] if invitation else "")
            links["invitation"] = found.group(0) if found else ""

            phone_context = browser.new_context(viewport={"width": 390, "height": 844}, locale="en-US", is_mobile=True, has_touch=True)
            phone_context.set_default_timeout(HANG_GUARD * 1000)
            phone = phone_context.new_page()
            phone.goto(links["invitation"])
            check("the link shows who is invited as what", INVITEE in phone.content() and "support" in phone.content())
            shots(phone, "3-invitation")
            phone.set_viewport_size({"width": 390, "height": 844})
            phone.get_by_label("Your name").fill("Nia Reed")
            phone.get_by_label("Password (at least 12 characters)").fill(FIRST_PASSWORD)
            phone.get_by_label("The same password again").fill(FIRST_PASSWORD)
            phone.get_by_role("button", name="Join and sign in").click()
            check("accepting signs the new operator in", phone.url.startswith(f"{base}/console/apps/{app['id']}"), phone.url)
            bar = phone.locator("nav.bar").inner_text()
            check("with support's role and limits (no Keys tab)", "support" in bar and phone.get_by_role("link", name="Keys").count() == 0, bar)
            shots(phone, "4-signed-in")
            phone.set_viewport_size({"width": 390, "height": 844})
            phone.goto(base + "/console/team")
            check("support sees the team read-only", "Nia Reed" in phone.content() and phone.get_by_role("button", name="Send invitation").count() == 0
                  and phone.get_by_role("button", name="Disable").count() == 0)
            shots(phone, "5-team-read-only")
            phone.set_viewport_size({"width": 390, "height": 844})
            phone.goto(links["invitation"])
            check("the used link is refused with what to do next", "already used" in phone.content() and "sign in" in phone.content())
            shots(phone, "6-used-link")

            desk.goto(base + "/console/team")
            row = desk.locator("tbody tr", has_text=INVITEE)
            row.get_by_label("End their sessions now").check()
            row.get_by_role("button", name="Disable").click()
            check("the owner disables them", "Operator disabled" in desk.content() and "disabled" in row.inner_text())
            shots(desk, "7-disabled")

            phone.set_viewport_size({"width": 390, "height": 844})
            phone.goto(base + "/console/team")
            check("the disabled operator's session has ended", phone.url == base + "/console/sign-in", phone.url)
            console_sign_in(phone, base, INVITEE, FIRST_PASSWORD)
            check("and signing in says the account is disabled", "This account is disabled" in phone.content())
            shots(phone, "8-disabled-sign-in")

            desk.goto(base + "/console/team")
            desk.locator("tbody tr", has_text=INVITEE).get_by_role("button", name="Enable").click()
            check("the owner enables them again", "Operator enabled" in desk.content())

            phone.set_viewport_size({"width": 390, "height": 844})
            phone.goto(base + "/console/sign-in")
            phone.get_by_role("link", name="Forgot your password?").click()
            phone.get_by_label("E-mail").fill(INVITEE)
            phone.get_by_role("button", name="E-mail me a link").click()
            check("asking for a reset says to check the inbox", "a link is on its way" in phone.content())
            shots(phone, "9-reset-asked")
            reset = smtp.messages(lambda m: "Reset" in m["subject"], 1)
            found = re.search(r"http://127\.0\.0\.1:\d+/console/reset/[A-Za-z0-9_-]{43}", text(reset[0])) if reset else None
            check("the reset link reaches the SMTP server", found is not None and reset[0]["rcpt_tos"] == [INVITEE], reset[:1])
            links["reset"] = found.group(0) if found else ""
            phone.set_viewport_size({"width": 390, "height": 844})
            phone.goto(links["reset"])
            shots(phone, "10-reset-form")
            phone.set_viewport_size({"width": 390, "height": 844})
            phone.get_by_label("New password (at least 12 characters)").fill(NEW_PASSWORD)
            phone.get_by_label("The same password again").fill(NEW_PASSWORD)
            phone.get_by_role("button", name="Set the new password").click()
            check("the new password is set", "Your password is changed" in phone.content(), phone.url)
            shots(phone, "11-reset-done")
            console_sign_in(phone, base, INVITEE, FIRST_PASSWORD)
            check("the old password stops working", "The e-mail or password is wrong" in phone.content())
            console_sign_in(phone, base, INVITEE, NEW_PASSWORD)
            check("the new one signs in", phone.url.startswith(f"{base}/console/apps/"), phone.url)
            phone.goto(links["reset"])
            check("the reset link works once", "This link does not work" in phone.content())
            phone_context.close()
            owner.close()
            browser.close()
    finally:
        server.terminate()
        server.wait(timeout=HANG_GUARD)
        log.close()
        smtp.stop()
    with open(os.path.join(workdir, "server.log")) as f:
        leaked = secrets_in(f.read(), links)
    check("no invitation or reset link in the server log", not leaked, leaked)
    finish()


main()

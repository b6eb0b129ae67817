#!/usr/bin/env python3
"""Logs never print a key or token (README, docs/deploy.md), checked at the most talkative levels: a whole flow against
a real `redeem serve --log-level trace` (text) and `--log-level debug` (JSON), with a real SMTP server on loopback, and
on PostgreSQL at trace level as well when REDEEM_TEST_POSTGRES_URL is set. The flow issues and uses every kind of
secret: API keys (app and admin), a webhook signing secret, redemption links from a purchase, its receipt, a new-link
request, a sandbox checkout, the console and the portal (the raw tokens and the full link URLs), an offer code, console
and portal sessions and form tokens, the portal's sign-in link, and an operator's password. Then the server's whole
standard error is searched for each one. Usage: log_secrets.py path/to/redeem. Prints 'N passed, M failed'."""
import csv, http.cookiejar, json, os, re, subprocess, sys, urllib.error, urllib.parse, urllib.request, uuid

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from support import (HANG_GUARD, MailServer, WebhookReceiver, call, check, finish, free_port, run_cli, scratch_dir,  # noqa: E402
                     secrets_in, wait_for, wait_healthy)

BIN = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else ".build/debug/redeem")
PASSWORD = "operator password for the log check"
BUYER = "log.buyer@example.com"
TOKEN = r"[A-Za-z0-9_-]{43}"  # 32 random bytes, base64url: redemption, sign-in and success-page tokens


class NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args, **kwargs):
        return None


class Browser:
    """Cookies kept, redirects not followed (their Location is the answer), forms posted as a browser posts them."""

    def __init__(self):
        self.jar = http.cookiejar.CookieJar()
        self.opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(self.jar), NoRedirect)

    def open(self, url, fields=None):
        data = urllib.parse.urlencode(fields).encode() if fields is not None else None
        try:
            with self.opener.open(urllib.request.Request(url, data=data), timeout=HANG_GUARD) as response:
                return response.status, response.headers, response.read().decode()
        except urllib.error.HTTPError as error:
            return error.code, error.headers, error.read().decode()

    def cookie(self, name):
        return next((c.value for c in self.jar if c.name == name), "")


def form(page, action_part):
    """The action and the hidden fields of the first form in `page` whose action contains `action_part`."""
    match = re.search(r'<form[^>]*action="([^"]*' + re.escape(action_part) + r'[^"]*)"[^>]*>(.*?)</form>', page, re.S)
    if not match:
        return None, {}
    return match.group(1), dict(re.findall(r'<input type="hidden" name="([^"]+)" value="([^"]*)"', match.group(2)))


def first(pattern, text):
    """The first group of `pattern`'s first match in `text` (the whole match without a group); "" when none."""
    match = re.search(pattern, text or "")
    return (match.group(1) if match.groups() else match.group(0)) if match else ""


def mail_text(message):
    return "\n".join(p["text"] for p in message["parts"] if p["content_type"].startswith("text/"))


def flow(label, workdir, database_url, level, log_format):
    """Runs the flow against one server; returns (secrets issued, the server's standard error)."""
    env = {**os.environ, "REDEEM_DATABASE_URL": database_url}
    cli = lambda *args, stdin=None: run_cli(BIN, list(args), env, stdin)  # noqa: E731
    cli("migrate")
    app = json.loads(cli("apps", "create", "--name", f"Logs {label}", "--support-email", "help@example.com", "--json"))
    cli("products", "create", "--app", app["id"], "--id", "pro_monthly", "--type", "subscription", "--period", "P1M", "--price", "4.99",
        "--entitlement", "pro")
    admin = json.loads(cli("keys", "create", "--admin", "--json"))["key"]
    cli("operators", "create", "--email", "support@example.com", "--role", "support", "--password-stdin", stdin=PASSWORD + "\n")
    offer = json.loads(cli("offers", "create", "--app", app["id"], "--product", "pro_monthly", "--reference-name", "Log trial",
                           "--payment-mode", "free_trial", "--duration", "P1W", "--eligibility", "new", "--json"))
    cli("codes", "generate", "--offer", offer["id"], "--count", "1", "--out", os.path.join(workdir, "codes.csv"))
    with open(os.path.join(workdir, "codes.csv")) as f:
        code = next(csv.DictReader(f))["code"]

    smtp = MailServer(os.path.join(workdir, "mail"))
    hooks = WebhookReceiver(os.path.join(workdir, "hooks"))
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    log_path = os.path.join(workdir, "server.log")
    log = open(log_path, "w")
    server = subprocess.Popen([BIN, "serve", "--port", str(port), "--log-level", level, "--public-url", base, "--smtp-url", smtp.url,
                               "--mail-from", "shop@example.com"], env={**env, "REDEEM_LOG_FORMAT": log_format},
                              stdout=subprocess.DEVNULL, stderr=log)
    secrets = {**{f"app key {k}": v for k, v in app["keys"].items()}, "admin key": admin, "operator password": PASSWORD,
               "offer code": code, "offer code, plain": code.replace("-", "")}
    steps = []  # (what, whether it did what it should): a flow that went wrong proves nothing about the log

    def issued(what, link):
        """Records a redemption link (HTTPS or scheme form) and its token as secrets."""
        secrets[what] = link
        secrets[what + ", token"] = first(TOKEN + "$", link)

    try:
        steps.append(("serve starts", wait_healthy(base, server)))
        pk, sk = app["keys"]["public_production"], app["keys"]["secret"]
        status, hook, _ = call("POST", f"{base}/admin/v1/apps/{app['id']}/webhooks", key=admin, body={"url": hooks.url})
        secrets["webhook signing secret"] = hook.get("signing_secret", "") if status == 201 else ""
        steps.append(("a webhook endpoint is made with the admin key", status == 201 and secrets["webhook signing secret"].startswith("whsec_")))

        status, bought, _ = call("POST", base + "/v1/purchases", key=sk, headers={"Idempotency-Key": uuid.uuid4().hex},
                                 body={"app_user_id": "log-web-user", "product_id": "pro_monthly", "email": BUYER, "send_receipt_email": True,
                                       "store": "rc_billing", "is_sandbox": True})  # bought on the web, so the portal lists it
        issued("purchase's link", bought.get("redemption_https_url", "") if status == 201 else "")
        secrets["purchase's app link"] = bought.get("redemption_url", "") if status == 201 else ""
        steps.append(("a purchase returns a redemption link", status == 201 and secrets["purchase's link, token"]))
        opened = Browser().open(secrets["purchase's link"])
        steps.append(("its link page opens", opened[0] == 200 and "Open in" in opened[2]))
        status, _, _ = call("POST", base + "/v1/subscribers/redeem_purchase", key=pk,
                            body={"app_user_id": "log-phone-user", "redemption_token": secrets["purchase's link, token"]})
        steps.append(("it redeems in the app", status == 200))

        receipt = smtp.messages(lambda m: m["rcpt_tos"] == [BUYER] and "/r/" in mail_text(m), 1)
        issued("receipt's link", first(re.escape(base) + "/r/" + TOKEN, mail_text(receipt[0]) if receipt else ""))
        status, _, _ = call("POST", base + "/v1/redemption_links/request", key=pk, body={"email": BUYER})
        new_link = smtp.messages(lambda m: m["rcpt_tos"] == [BUYER] and "/r/" in mail_text(m), 2)[1:]
        issued("new-link e-mail's link", first(re.escape(base) + "/r/" + TOKEN, mail_text(new_link[0]) if new_link else ""))
        steps.append(("a new link asked for by e-mail arrives", status == 202 and secrets["new-link e-mail's link, token"]))
        status, _, _ = call("POST", base + "/v1/subscribers/redeem_purchase", key=pk,
                            body={"app_user_id": "log-phone-user", "redemption_token": secrets["new-link e-mail's link, token"]})
        steps.append(("the e-mailed link redeems in the app", status == 200))

        buyer = Browser()
        page = buyer.open(f"{base}/sandbox/p/{app['id']}/pro_monthly")[2]
        action, fields = form(page, "/sandbox/")
        status, headers, _ = buyer.open(base + action, {**fields, "email": "log.checkout@example.com"})
        issued("checkout's success page", base + headers.get("Location", "") if status == 303 else "")
        steps.append(("a sandbox checkout lands on its success page", status == 303 and secrets["checkout's success page, token"]))
        steps.append(("which opens", buyer.open(secrets["checkout's success page"])[0] == 200))

        steps.append(("the offer code's web page opens", Browser().open(f"{base}/redeem?ctx=offercodes&id={app['id']}&code={code}")[0] == 200))
        status, _, _ = call("POST", base + "/v1/subscribers/redeem_offer_code", key=pk, body={"app_user_id": "log-offer-user", "code": code})
        steps.append(("the offer code redeems in the app", status == 200))

        operator = Browser()
        _, fields = form(operator.open(base + "/console/sign-in")[2], "/console/sign-in")
        status, headers, _ = operator.open(base + "/console/sign-in", {**fields, "email": "support@example.com", "password": PASSWORD})
        secrets["console form token"] = fields.get("csrf", "")
        secrets["console session"] = operator.cookie("redeem_console")
        steps.append(("an operator signs in to the console", status == 303 and secrets["console session"] and secrets["console form token"]))
        found = operator.open(f"{base}/console/apps/{app['id']}?q={BUYER}")[2]
        customer = re.search(r'<a href="(/console/apps/[^"]+/customers/[^"]+)"', found)
        page = operator.open(base + customer.group(1))[2] if customer else ""
        action, fields = form(page, "/link")
        shown = operator.open(base + action, fields)[2] if action else ""
        issued("console's link", first(r'<code id="https-url">([^<]+)</code>', shown))
        steps.append(("support sends a new link from the console", secrets["console's link, token"]))

        portal = f"{base}/account/{app['id']}"
        customer_browser = Browser()
        _, fields = form(customer_browser.open(portal)[2], "/sign-in")
        customer_browser.open(portal + "/sign-in", {**fields, "email": BUYER})
        sign_in = smtp.messages(lambda m: m["rcpt_tos"] == [BUYER] and "/sign-in/" in mail_text(m), 1)
        link = first(re.escape(portal) + "/sign-in/" + TOKEN, mail_text(sign_in[0]) if sign_in else "")
        secrets["portal sign-in link"], secrets["portal sign-in token"] = link, link[-43:]
        action, fields = form(customer_browser.open(link)[2], "/sign-in/") if link else (None, {})
        status, _, _ = customer_browser.open(base + action, fields) if action else (0, {}, "")
        secrets["portal form token"] = fields.get("csrf", "")
        secrets["portal session"] = customer_browser.cookie("redeem_portal")
        steps.append(("the buyer signs in to the portal with the e-mailed link", status == 303 and secrets["portal session"]))
        action, fields = form(customer_browser.open(portal)[2], "/link")
        got = customer_browser.open(base + action, fields)[2] if action else ""
        issued("portal's link", first(r'data-copy="(' + re.escape(base) + r'/r/[^"]+)"', got))
        steps.append(("the portal gives a new link", secrets["portal's link, token"]))
        steps.append(("the webhook endpoint got signed deliveries", wait_for(lambda: hooks.requests() > 0)))
    finally:
        server.terminate()
        server.wait(timeout=HANG_GUARD)
        log.close()
        smtp.stop()
        hooks.stop()
    failed = [what for what, ok in steps if not ok]
    check(f"[{label}] the flow issued and used every kind of secret", not failed, failed)
    with open(log_path) as f:
        return secrets, f.read()


def log_checks(label, secrets, logged):
    routes = ["/r/{token}", "/v1/subscribers/redeem_purchase", "/v1/redemption_links/request", "/checkout/done/{token}",
              "/account/{app_id}/sign-in/{token}", "/console/sign-in", "/redeem"]
    # The search means something only if the requests were logged: each by its route pattern.
    check(f"[{label}] the log names each route the flow used, by its pattern", all(route in logged.replace("\\/", "/") for route in routes),
          [route for route in routes if route not in logged.replace("\\/", "/")])
    leaked = secrets_in(logged, secrets)
    check(f"[{label}] none of the {len(secrets)} secrets issued appears in the log", not leaked, leaked)
    # Anything shaped like a token in a path or a query, whether or not this flow knew of it.
    shaped = re.findall(r"(?:/r/|/sign-in/|/done/|redemption_token=|code=)" + TOKEN[:-4] + "{20,}", logged.replace("\\/", "/"))
    check(f"[{label}] no path or query in the log carries a token", not shaped, shaped[:3])


def main():
    postgres = os.environ.get("REDEEM_TEST_POSTGRES_URL")
    runs = [("trace, text, SQLite", "trace", "text", None), ("debug, JSON, SQLite", "debug", "json", None)]
    if postgres:
        runs.append(("trace, JSON, PostgreSQL", "trace", "json", postgres))
    else:
        print("skip the PostgreSQL run: REDEEM_TEST_POSTGRES_URL is not set")
    for label, level, log_format, server_url in runs:
        workdir = scratch_dir("redeem-logs-")
        name = "redeem_e2e_" + uuid.uuid4().hex[:12]
        if server_url:
            subprocess.run(["psql", server_url, "-qc", f"CREATE DATABASE {name}"], check=True, capture_output=True)
        try:
            url = server_url.rsplit("/", 1)[0] + "/" + name if server_url else os.path.join(workdir, "redeem.sqlite")
            secrets, logged = flow(label, workdir, url, level, log_format)
            log_checks(label, secrets, logged)
        finally:
            if server_url:
                subprocess.run(["psql", server_url, "-qc", f"DROP DATABASE IF EXISTS {name} WITH (FORCE)"], capture_output=True)
    finish()


main()

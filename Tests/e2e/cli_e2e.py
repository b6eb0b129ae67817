#!/usr/bin/env python3
"""End-to-end checks of the `redeem` executable as an operator and a script use it:
admin commands with --json, both sqlite URL forms, serve, customer info over HTTP, bad configuration,
and the same on PostgreSQL when REDEEM_TEST_POSTGRES_URL is set. Prints 'N passed, M failed'."""
import fcntl, json, os, re, socket, struct, subprocess, sys, tempfile, uuid

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from page_check import USER_AGENTS, decode_qr, dump_dom, screenshot  # noqa: E402
from support import HANG_GUARD, check, fetch, finish, free_port, http, secrets_in, wait_healthy  # noqa: E402

BIN = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else ".build/debug/redeem")


def run(args, env=None, cwd=None):
    return subprocess.run([BIN, *args], capture_output=True, text=True, env={**os.environ, **(env or {})}, cwd=cwd, timeout=HANG_GUARD)


def redemption_owner(body):
    return (body or {}).get("redemption_info", {}).get("owner_app_user_id")


def page_checks(label, base, https_url, scheme_url, app_name):
    """The HTTPS link in a real browser: desktop shows a QR code of exactly the link; phones get the Open button instead."""
    with tempfile.TemporaryDirectory() as tmp:
        desktop = screenshot(https_url, os.path.join(tmp, "desktop.png"), 1280, 900)
        check(f"[{label}] the link page's QR code decodes to the exact link", decode_qr(desktop) == [https_url], decode_qr(desktop))
        phone = screenshot(https_url, os.path.join(tmp, "phone.png"), 390, 844, mobile=True)
        status, _, page = fetch(https_url, headers={"User-Agent": USER_AGENTS["ios"]})
        button = f'<a class="btn btn--primary" href="{scheme_url}">Open in {app_name}<'
        check(f"[{label}] phones get the Open button to the app's link, not a QR code",
              decode_qr(phone) == [] and status == 200 and button in page, (status, decode_qr(phone), button))


def lan_addresses():
    """This machine's IPv4 addresses on interfaces that are up and not loopback (the ioctls ifconfig uses)."""
    found = []
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        for _, name in socket.if_nameindex():
            request = struct.pack("256s", name.encode()[:15])
            try:
                flags = struct.unpack("H", fcntl.ioctl(s.fileno(), 0x8913, request)[16:18])[0]  # SIOCGIFFLAGS
                address = socket.inet_ntoa(fcntl.ioctl(s.fileno(), 0x8915, request)[20:24])  # SIOCGIFADDR
            except OSError:
                continue  # no IPv4 address
            if flags & 0x1 and not flags & 0x8:  # IFF_UP, not IFF_LOOPBACK
                found.append(address)
    return found


def offer_cli_checks(label, env, cwd, app):
    """Offers, a batch written once to CSV with progress, and a custom code, through the CLI. Returns two codes."""
    made = run(["offers", "create", "--app", app["id"], "--product", "pro_monthly", "--reference-name", "E2E trial",
                "--payment-mode", "free_trial", "--duration", "P1W", "--periods", "2", "--eligibility", "new", "--json"], env, cwd)
    offer = json.loads(made.stdout) if made.returncode == 0 else {}
    check(f"[{label}] offers create --json", offer.get("reference_name") == "E2E trial" and offer.get("eligibility") == ["new"],
          made.stdout + made.stderr)
    bad = run(["offers", "create", "--app", app["id"], "--product", "pro_monthly", "--reference-name", "Bad",
               "--payment-mode", "pay_as_you_go", "--duration", "P1M", "--eligibility", "new"], env, cwd)
    check(f"[{label}] an offer without its price fails naming the field", bad.returncode != 0 and "price" in bad.stderr, bad.stderr)
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "codes.csv")
        generated = run(["codes", "generate", "--offer", offer.get("id", "x"), "--count", "2500", "--out", out,
                         "--public-url", "https://redeem.example.com"], env, cwd)
        check(f"[{label}] codes generate shows progress and writes the CSV once",
              generated.returncode == 0 and "stored 2500/2500 (100%)" in generated.stderr and os.path.exists(out),
              generated.stdout + generated.stderr)
        lines = open(out).read().splitlines() if os.path.exists(out) else []
        check(f"[{label}] the CSV has a header and 2,500 grouped codes with their URLs",
              lines[:1] == ["code,redemption_url"] and len(lines) == 2501 and len(set(lines)) == 2501
              and all(len(l.split(",")[0]) == 19 and l.split(",")[0].count("-") == 3 for l in lines[1:])
              and lines[1].split(",")[1].endswith("&code=" + lines[1].split(",")[0].replace("-", "")), lines[:2])
        again = run(["codes", "generate", "--offer", offer.get("id", "x"), "--count", "5", "--out", out], env, cwd)
        check(f"[{label}] codes generate refuses to overwrite a file", again.returncode != 0 and "exists" in again.stderr, again.stderr)
        codes = [l.split(",")[0] for l in lines[1:3]]
    custom = run(["codes", "create-custom", "--offer", offer.get("id", "x"), "--code", "e2e-friends", "--max-redemptions", "2", "--json"], env, cwd)
    check(f"[{label}] codes create-custom normalises the code", custom.returncode == 0 and json.loads(custom.stdout)["code"] == "E2EFRIENDS",
          custom.stdout + custom.stderr)
    return codes


def offer_http_checks(label, env, cwd, base, app, codes, browser=False):
    key = app["keys"]["public_sandbox"]
    if browser:
        page = f"{base}/redeem?ctx=offercodes&id={app['id']}&code={codes[0].lower()}"
        dom = dump_dom(page, mobile="android")
        check(f"[{label}] the offer page renders in Chromium with the offer and the claim form",
              "2 weeks free" in dom and "Claim offer" in dom and 'name="claim_id"' in dom, dom[:300])
    status, body = http("POST", base + "/v1/subscribers/redeem_offer_code", key=key, body={"app_user_id": "offer-user", "code": codes[0].lower()})
    check(f"[{label}] a generated code redeems in the app with its offer period",
          status == 200 and body["subscriber"]["subscriptions"]["pro_monthly"].get("offer_period") == "P2W", body)
    status, body = http("POST", base + "/v1/subscribers/redeem_offer_code", key=key, body={"app_user_id": "other-user", "code": codes[0]})
    check(f"[{label}] the same code again is already redeemed (7864)", status == 409 and body.get("code") == 7864, body)
    status, body = http("POST", base + "/v1/subscribers/redeem_offer_code", key=key, body={"app_user_id": "friend", "code": "E2E FRIENDS"})
    check(f"[{label}] the custom code redeems", status == 200, body)
    report = run(["offers", "report", "--app", app["id"]], env, cwd)
    rows = report.stdout.splitlines()
    check(f"[{label}] offers report prints the CSV", report.returncode == 0 and len(rows) == 3 and rows[0].startswith("redeemed_at,app_user_id")
          and any(",friend," in r and ",custom,E2EFRIENDS," in r for r in rows), report.stdout + report.stderr)
    usage = run(["offers", "usage", "--app", app["id"], "--json"], env, cwd)
    check(f"[{label}] offers usage counts the quarter", usage.returncode == 0 and json.loads(usage.stdout)["used"] == 2, usage.stdout)
    batches = run(["codes", "batches", "--app", app["id"], "--json"], env, cwd)
    check(f"[{label}] codes batches shows one of 2,500 redeemed", batches.returncode == 0
          and json.loads(batches.stdout)["batches"][0]["redeemed"] == 1, batches.stdout)
    offer_id = json.loads(batches.stdout)["batches"][0]["offer_id"] if batches.returncode == 0 else "x"
    off = run(["offers", "deactivate", "--offer", offer_id], env, cwd)
    status, body = http("POST", base + "/v1/subscribers/redeem_offer_code", key=key, body={"app_user_id": "late-user", "code": codes[1]})
    check(f"[{label}] offers deactivate switches its codes off (7862)",
          off.returncode == 0 and "inactive" in off.stdout and status == 403 and body.get("code") == 7862, off.stdout + off.stderr + str(body))


def offering_cli_checks(label, env, cwd, app):
    """Store identifiers on products and offerings, from the CLI (RevenueCat's SDKs read them)."""
    with_app = {**env, "REDEEM_APP": app["id"]}
    ids = run(["products", "update", "--id", "pro_monthly", "--app-store-id", "com.e2e.monthly", "--play-store-id", "pro",
               "--play-base-plan", "monthly", "--json"], with_app, cwd)
    one = run(["products", "update", "--id", "pro_monthly", "--app-store-id", "com.e2e.monthly.v2", "--json"], with_app, cwd)
    stored = json.loads(one.stdout).get("store_identifiers", {}) if one.returncode == 0 else {}
    check(f"[{label}] products update sets store identifiers, and one given alone changes only itself",
          ids.returncode == 0 and stored == {"app_store": "com.e2e.monthly.v2", "play_store": "pro", "play_base_plan": "monthly"},
          ids.stderr + one.stdout + one.stderr)
    no_plan = run(["products", "create", "--id", "pro_yearly", "--type", "subscription", "--period", "P1Y", "--play-store-id", "pro"],
                  with_app, cwd)
    check(f"[{label}] a Play subscription without its base plan is refused naming the flag",
          no_plan.returncode != 0 and "--play-base-plan" in no_plan.stderr, no_plan.stderr)
    made = run(["offerings", "create", "--id", "default", "--description", "Main paywall", "--package", "$rc_monthly=pro_monthly",
                "--metadata", '{"headline": "Go Pro"}', "--current"], with_app, cwd)
    listed = run(["offerings", "list"], with_app, cwd)
    check(f"[{label}] offerings create and list", made.returncode == 0 and "default  (current)  $rc_monthly=pro_monthly" in listed.stdout,
          made.stderr + listed.stdout + listed.stderr)
    bad = run(["offerings", "create", "--id", "bad", "--package", "$rc_made_up=pro_monthly"], with_app, cwd)
    malformed = run(["offerings", "create", "--id", "bad", "--package", "pro_monthly"], with_app, cwd)
    check(f"[{label}] offerings refuse a made-up $rc_ package and a package without a product, saying why",
          bad.returncode != 0 and "$rc_made_up" in bad.stderr and malformed.returncode != 0 and "IDENTIFIER=PRODUCT" in malformed.stderr,
          bad.stderr + malformed.stderr)


def offering_checks(label, env, with_app, cwd, base, app):
    """`customers offering`: a customer's chosen offering, chosen and removed through --server, read locally alike."""
    made = run(["offerings", "create", "--id", "winback", "--package", "weekly=remote_weekly"], with_app, cwd)

    def current():
        status, body = http("GET", f"{base}/v1/subscribers/off-user/offerings", key=app["keys"]["public_production"])
        return (body or {}).get("current_offering_id") if status == 200 else status

    chose = run(["customers", "offering", "--user", "off-user", "--set", "winback"], with_app, cwd)
    remote = run(["customers", "offering", "--user", "off-user", "--json"], with_app, cwd)
    local = run(["customers", "offering", "--app", app["id"], "--user", "off-user", "--json"], env, cwd)
    check(f"[{label}] customers offering --set chooses the customer's current offering through --server; read alike locally",
          made.returncode == 0 and chose.returncode == 0 and "off-user sees winback as current (chosen " in chose.stdout
          and current() == "winback" and remote.returncode == 0 and json.loads(remote.stdout).get("offering_id") == "winback"
          and json.loads(remote.stdout) == json.loads(local.stdout or "{}"),
          made.stderr + chose.stdout + chose.stderr + remote.stdout + remote.stderr + local.stdout + local.stderr)
    unknown = run(["customers", "offering", "--user", "off-user", "--set", "nope"], with_app, cwd)
    both = run(["customers", "offering", "--user", "off-user", "--set", "winback", "--remove"], with_app, cwd)
    no_app = run(["customers", "offering", "--app", "app_nope", "--user", "off-user"], env, cwd)
    check(f"[{label}] customers offering refuses an unknown offering (naming it), --set with --remove, and an unknown app",
          unknown.returncode != 0 and "nope" in unknown.stderr and both.returncode != 0 and "--remove" in both.stderr
          and no_app.returncode != 0 and "app_nope" in no_app.stderr and current() == "winback",
          unknown.stderr + both.stderr + no_app.stdout + no_app.stderr)
    removed = run(["customers", "offering", "--user", "off-user", "--remove"], with_app, cwd)
    shown = run(["customers", "offering", "--app", app["id"], "--user", "off-user"], env, cwd)
    audit = run(["audit", "--app", app["id"], "--json"], env, cwd)
    actions = [e.get("action") for e in json.loads(audit.stdout or "{}").get("entries", [])] if audit.returncode == 0 else []
    check(f"[{label}] customers offering --remove gives back the app's own, audited",
          removed.returncode == 0 and current() == "default" and "off-user sees the app's own current offering" in shown.stdout
          and "offering.override" in actions and "offering.override.remove" in actions,
          removed.stdout + removed.stderr + shown.stdout + audit.stdout[:400] + audit.stderr)
    run(["offerings", "delete", "--id", "winback"], with_app, cwd)


def export_checks(label, env, with_app, cwd, app):
    """`customers export`: the console's export of a customer, through --server and to a file locally, both audited."""
    remote = run(["customers", "export", "--user", "attr-user"], with_app, cwd)
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "attr-user.json")
        local = run(["customers", "export", "--app", app["id"], "--user", "attr-user", "--output", path], env, cwd)
        written = json.load(open(path)) if os.path.exists(path) else {}
        mode = os.stat(path).st_mode & 0o777 if os.path.exists(path) else None
    exported = json.loads(remote.stdout) if remote.returncode == 0 else {}
    same = {k: v for k, v in exported.items() if k not in ("exported_at", "audit_entries")} == \
        {k: v for k, v in written.items() if k not in ("exported_at", "audit_entries")}
    check(f"[{label}] customers export prints the customer's data through --server, and writes the same to a file only its owner reads",
          exported.get("customer", {}).get("original_app_user_id") == "attr-user"
          and [a["key"] for a in exported.get("attributes", [])] == ["$email"] and same and mode == 0o600
          and "Wrote attr-user's data to" in local.stdout, remote.stdout[:300] + remote.stderr + local.stdout + local.stderr + str(mode))
    unknown = run(["customers", "export", "--user", "nobody-here"], with_app, cwd)
    nowhere = run(["customers", "export", "--app", app["id"], "--user", "attr-user", "--output", "/nonexistent/dir/x.json"], env, cwd)
    audit = run(["audit", "--app", app["id"], "--json"], env, cwd)
    actors = [e.get("actor", "") for e in json.loads(audit.stdout or "{}").get("entries", []) if e.get("action") == "customer.export"]
    check(f"[{label}] customers export refuses an unknown user and a file it cannot write, naming them; each export is audited",
          unknown.returncode != 0 and "nobody-here" in unknown.stderr and nowhere.returncode != 0 and "--output" in nowhere.stderr
          and "cli" in actors and any(a.startswith("key:") for a in actors), unknown.stderr + nowhere.stderr + str(actors))


def remote_checks(label, env, cwd, base, app):
    """The same commands through a running server's admin API (--server, REDEEM_ADMIN_KEY), and errors naming flags."""
    admin = json.loads(run(["keys", "create", "--admin", "--label", "e2e remote", "--json"], env, cwd).stdout)["key"]
    remote = {**env, "REDEEM_SERVER": base, "REDEEM_ADMIN_KEY": admin}
    local_apps = json.loads(run(["apps", "list", "--json"], env, cwd).stdout)
    remote_apps = run(["apps", "list", "--json"], remote, cwd)
    check(f"[{label}] --server: apps list answers as the local database does",
          remote_apps.returncode == 0 and json.loads(remote_apps.stdout) == local_apps, remote_apps.stdout + remote_apps.stderr)
    made = run(["products", "create", "--id", "remote_weekly", "--type", "subscription", "--period", "P1W", "--price", "0.99",
                "--entitlement", "pro"], {**remote, "REDEEM_APP": app["id"]}, cwd)
    listed = run(["products", "list"], {**env, "REDEEM_APP": app["id"]}, cwd)
    check(f"[{label}] --server: a product made remotely (app from REDEEM_APP) is listed locally with its price in words",
          made.returncode == 0 and "remote_weekly  subscription  0.99 USD per week" in listed.stdout, made.stderr + listed.stdout)
    shown = run(["apps", "show", "--app", app["id"]], remote, cwd)
    check(f"[{label}] --server: apps show lists every setting", shown.returncode == 0 and "support e-mail        help@example.com" in shown.stdout
          and "after purchase" in shown.stdout, shown.stdout + shown.stderr)
    bad_remote = run(["apps", "update", app["id"], "--icon-url", "http://insecure.example/icon.png"], remote, cwd)
    bad_local = run(["apps", "update", app["id"], "--icon-url", "http://insecure.example/icon.png"], env, cwd)
    check(f"[{label}] errors name the flag, not the API field, locally and remotely",
          all(r.returncode != 0 and "--icon-url must be" in r.stderr and "icon_url" not in r.stderr for r in (bad_remote, bad_local)),
          bad_remote.stderr + bad_local.stderr)
    with_app = {**remote, "REDEEM_APP": app["id"]}
    changed = run(["products", "update", "--id", "remote_weekly", "--price", "1.49"], with_app, cwd)
    listed = run(["products", "list"], {**env, "REDEEM_APP": app["id"]}, cwd)
    check(f"[{label}] --server: products update changes the price", changed.returncode == 0 and "1.49 USD per week" in listed.stdout,
          changed.stderr + listed.stdout)
    weekly = run(["purchases", "create", "--app", app["id"], "--product", "remote_weekly", "--email", "remote-sub@example.com", "--sandbox",
                  "--app-user-id", "remote-sub", "--json"], env, cwd)
    weekly_id = json.loads(weekly.stdout)["id"] if weekly.returncode == 0 else "?"
    cancelled = run(["purchases", "cancel", "--purchase", weekly_id, "--reason", "unused"], with_app, cwd)
    shown = run(["purchases", "show", "--app", app["id"], "--purchase", weekly_id, "--json"], env, cwd)
    feedback = json.loads(shown.stdout)["purchase"].get("cancellation_feedback") if shown.returncode == 0 else None
    check(f"[{label}] --server: purchases cancel --reason sends the buyer's reason, kept on the purchase",
          cancelled.returncode == 0 and "reason: I don’t use it enough" in cancelled.stdout and feedback == "unused",
          cancelled.stdout + cancelled.stderr + shown.stdout)
    remote_list = run(["customers", "list", "--status", "wont_renew", "--json"], with_app, cwd)
    local_list = run(["customers", "list", "--app", app["id"], "--status", "wont_renew", "--json"], env, cwd)
    ids = [(c["original_app_user_id"], c.get("email")) for c in json.loads(remote_list.stdout)["customers"]] if remote_list.returncode == 0 else []
    check(f"[{label}] --server: customers list --status wont_renew lists who cancelled, as the local database does",
          ids == [("remote-sub", "remote-sub@example.com")] and json.loads(remote_list.stdout) == json.loads(local_list.stdout or "{}"),
          remote_list.stdout + remote_list.stderr + local_list.stdout + local_list.stderr)
    resumed = run(["purchases", "resume", "--purchase", weekly_id, "--json"], with_app, cwd)
    again = run(["purchases", "resume", "--purchase", weekly_id], with_app, cwd)
    check(f"[{label}] --server: purchases resume lets it renew again; a second resume is refused, saying why",
          resumed.returncode == 0 and json.loads(resumed.stdout).get("unsubscribe_detected_at") is None
          and again.returncode != 0 and "already renews" in again.stdout + again.stderr,
          resumed.stdout + resumed.stderr + again.stdout + again.stderr)
    grouped = run(["products", "update", "--id", "remote_weekly", "--subscription-group", "remote", "--group-level", "2"], with_app, cwd)
    yearly = run(["products", "create", "--id", "remote_yearly", "--type", "subscription", "--period", "P1Y", "--price", "39.99",
                  "--currency", "USD", "--entitlement", "pro", "--subscription-group", "remote", "--group-level", "1"], with_app, cwd)
    switched = run(["purchases", "change-plan", "--purchase", weekly_id, "--to", "remote_yearly", "--json"], with_app, cwd)
    shown = run(["purchases", "show", "--app", app["id"], "--purchase", weekly_id, "--json"], env, cwd)
    check(f"[{label}] --server: purchases change-plan switches it to another plan of its group, seen locally",
          grouped.returncode == 0 and yearly.returncode == 0 and switched.returncode == 0
          and json.loads(switched.stdout).get("product_id") == "remote_yearly"
          and shown.returncode == 0 and json.loads(shown.stdout)["purchase"]["product_id"] == "remote_yearly",
          grouped.stderr + yearly.stderr + switched.stdout + switched.stderr)
    replaced = run(["offerings", "replace", "--id", "default", "--description", "Remote", "--package", "$rc_annual=pro_monthly",
                    "--package", "weekly=remote_weekly", "--current"], with_app, cwd)
    status, offerings = http("GET", f"{base}/v1/subscribers/%24RCAnonymousID%3A0123456789abcdef0123456789abcdef/offerings",
                             key=app["keys"]["public_production"], headers={"X-Platform": "iOS"})
    packages = [(p["identifier"], p["platform_product_identifier"]) for o in (offerings or {}).get("offerings", []) for p in o["packages"]]
    check(f"[{label}] --server: offerings replace, and the SDK route serves it at once with the App Store IDs (store-less products left out)",
          replaced.returncode == 0 and status == 200 and offerings.get("current_offering_id") == "default"
          and packages == [("$rc_annual", "com.e2e.monthly.v2")], replaced.stderr + json.dumps(offerings))
    status, _ = http("POST", f"{base}/v1/subscribers/attr-user/attributes", key=app["keys"]["secret"],
                     body={"attributes": {"$email": {"value": "attr@example.com", "updated_at_ms": 1787392800000}}})
    local_attributes = run(["customers", "attributes", "--user", "attr-user"], {**env, "REDEEM_APP": app["id"]}, cwd)
    remote_attributes = run(["customers", "attributes", "--user", "attr-user", "--json"], with_app, cwd)
    listed = json.loads(remote_attributes.stdout)["attributes"] if remote_attributes.returncode == 0 else []
    check(f"[{label}] customers attributes lists what the backend set, locally and through --server",
          status == 200 and "$email  attr@example.com  (backend, 2026-08-22T10:00:00Z)" in local_attributes.stdout
          and [(a["key"], a["set_with_secret_key"]) for a in listed] == [("$email", True)],
          local_attributes.stdout + local_attributes.stderr + remote_attributes.stdout + remote_attributes.stderr)
    offering_checks(label, env, with_app, cwd, base, app)
    export_checks(label, env, with_app, cwd, app)
    gone = run(["offerings", "delete", "--id", "default"], with_app, cwd)
    status, offerings = http("GET", f"{base}/v1/subscribers/someone/offerings", key=app["keys"]["public_production"], headers={"X-Platform": "iOS"})
    check(f"[{label}] --server: offerings delete", gone.returncode == 0 and status == 200 and offerings == {"current_offering_id": None, "offerings": []},
          gone.stderr + json.dumps(offerings))
    hook = run(["webhooks", "create", "--url", "http://127.0.0.1:9/hook", "--json"], with_app, cwd)
    endpoint = json.loads(hook.stdout) if hook.returncode == 0 else {}
    local_hooks = run(["webhooks", "list", "--json"], {**env, "REDEEM_APP": app["id"]}, cwd)
    check(f"[{label}] --server: webhooks create shows the secret once; the local list has the endpoint without it",
          endpoint.get("signing_secret", "").startswith("whsec_") and local_hooks.returncode == 0
          and [w["id"] for w in json.loads(local_hooks.stdout)["webhooks"]] == [endpoint["id"]]
          and "signing_secret" not in local_hooks.stdout, hook.stderr + local_hooks.stdout + local_hooks.stderr)
    local_search = run(["customers", "search", "--query", "cli@example.com", "--json"], {**env, "REDEEM_APP": app["id"]}, cwd)
    remote_search = run(["customers", "search", "--query", "cli@example.com", "--json"], with_app, cwd)
    check(f"[{label}] --server: customers search answers as the local database does",
          remote_search.returncode == 0 and local_search.returncode == 0 and json.loads(remote_search.stdout) == json.loads(local_search.stdout)
          and len(json.loads(local_search.stdout)["customers"]) == 1, remote_search.stdout + remote_search.stderr + local_search.stderr)
    tested = run(["webhooks", "test"], with_app, cwd)
    deliveries = run(["webhooks", "deliveries", "--json"], {**env, "REDEEM_APP": app["id"]}, cwd)
    check(f"[{label}] webhooks test queues a delivery that the local delivery log lists",
          tested.returncode == 0 and deliveries.returncode == 0 and len(json.loads(deliveries.stdout)["deliveries"]) == 1,
          tested.stderr + deliveries.stdout + deliveries.stderr)
    disabled = run(["webhooks", "disable", "--endpoint", endpoint.get("id", "x")], {**env, "REDEEM_APP": app["id"]}, cwd)
    check(f"[{label}] webhooks disable", disabled.returncode == 0 and "disabled" in disabled.stdout, disabled.stderr)
    keyless = run(["apps", "list"], {**env, "REDEEM_SERVER": base, "REDEEM_ADMIN_KEY": ""}, cwd)
    check(f"[{label}] --server without REDEEM_ADMIN_KEY says so", keyless.returncode != 0 and "REDEEM_ADMIN_KEY" in keyless.stderr, keyless.stderr)
    no_app = run(["products", "list"], {**env, "REDEEM_APP": ""}, cwd)
    check(f"[{label}] a missing --app names --app and REDEEM_APP", no_app.returncode != 0 and "--app / REDEEM_APP" in no_app.stderr, no_app.stderr)


def remote_parity_checks(label, env, cwd, base, app):
    """Every other admin command through --server (the client generated from openapi.yaml): each answers as the
    local database does, and its effect is seen locally."""
    admin = json.loads(run(["keys", "create", "--admin", "--label", "e2e parity", "--json"], env, cwd).stdout)["key"]
    remote = {**env, "REDEEM_SERVER": base, "REDEEM_ADMIN_KEY": admin, "REDEEM_APP": app["id"]}
    local = {**env, "REDEEM_APP": app["id"]}

    def both(args):
        """The same read through --server and locally: (remote JSON, local JSON), {} where one failed."""
        r, l = run(args + ["--json"], remote, cwd), run(args + ["--json"], local, cwd)
        return (json.loads(r.stdout) if r.returncode == 0 else {"failed": r.stderr}), (json.loads(l.stdout) if l.returncode == 0 else {})

    for args in (["offers", "list"], ["offers", "usage"], ["codes", "batches"], ["codes", "list-custom"], ["entitlements", "list"],
                 ["keys", "list"], ["webhooks", "deliveries"], ["products", "prices", "list", "--id", "pro_monthly"]):
        # The server's delivery worker may act between the reads (a busy machine delays its first attempt): the remote
        # answer must then be the local one read just before it, or just after.
        before = run(args + ["--json"], local, cwd)
        r, l = both(args)
        earlier = json.loads(before.stdout) if before.returncode == 0 else {}
        check(f"[{label}] --server: {' '.join(args[:2])} answers as the local database does", r in (earlier, l) and l != {},
              json.dumps(r)[:400] + " vs " + json.dumps(l)[:400])

    entitlement = run(["entitlements", "create", "--id", "remote_ent", "--display-name", "Remote", "--json"], remote, cwd)
    renamed = run(["entitlements", "update", "--id", "remote_ent", "--display-name", "Renamed"], remote, cwd)
    listed = run(["entitlements", "list"], local, cwd)
    check(f"[{label}] --server: entitlements create and update", entitlement.returncode == 0 and renamed.returncode == 0
          and "remote_ent  Renamed" in listed.stdout, entitlement.stderr + renamed.stderr + listed.stdout)

    key = run(["keys", "create", "--kind", "public_sandbox", "--label", "remote key", "--json"], remote, cwd)
    made = json.loads(key.stdout) if key.returncode == 0 else {}
    revoked = run(["keys", "revoke", made.get("id", "key_x")], remote, cwd)
    keys = json.loads(run(["keys", "list", "--json"], local, cwd).stdout)["keys"]
    check(f"[{label}] --server: keys create shows the key once, keys revoke ends it",
          made.get("key", "").startswith("rdm_pk_sbx_") and made.get("label") == "remote key" and revoked.returncode == 0
          and [k.get("revoked_at") is not None for k in keys if k["id"] == made.get("id")] == [True], key.stdout + key.stderr + revoked.stderr)
    bad_kind = run(["keys", "create", "--kind", "root"], remote, cwd)
    check(f"[{label}] --server: keys create refuses an unknown kind naming the flag", bad_kind.returncode != 0 and "--kind" in bad_kind.stderr,
          bad_kind.stderr)

    default = run(["products", "prices", "add", "--id", "pro_monthly", "--currency", "USD", "--amount", "4.99", "--default"], remote, cwd)
    priced = run(["products", "prices", "add", "--id", "pro_monthly", "--currency", "JPY", "--amount", "700"], remote, cwd)
    trial = run(["products", "trial", "--id", "pro_monthly", "--days", "7"], remote, cwd)
    removed = run(["products", "prices", "remove", "--id", "pro_monthly", "--currency", "JPY", "--json"], remote, cwd)
    check(f"[{label}] --server: products prices add and remove, and products trial",
          default.returncode == 0 and priced.returncode == 0 and "JPY  700\n" in priced.stdout and "USD  4.99  (default)" in priced.stdout
          and trial.returncode == 0 and "Free trial: 7 days" in trial.stdout
          and removed.returncode == 0 and "JPY" not in removed.stdout and json.loads(removed.stdout)["trial_days"] == 7,
          priced.stdout + priced.stderr + trial.stdout + trial.stderr + removed.stdout + removed.stderr)

    offer = run(["offers", "create", "--product", "pro_monthly", "--reference-name", "Remote offer", "--payment-mode", "free_trial",
                 "--duration", "P1W", "--periods", "1", "--eligibility", "new", "--json"], remote, cwd)
    offer_id = json.loads(offer.stdout)["id"] if offer.returncode == 0 else "offer_x"
    off = run(["offers", "deactivate", "--offer", offer_id], remote, cwd)
    on = run(["offers", "activate", "--offer", offer_id], remote, cwd)
    check(f"[{label}] --server: offers create, deactivate and activate", offer.returncode == 0 and "is inactive" in off.stdout
          and "is active" in on.stdout, offer.stderr + off.stderr + on.stderr)
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "remote.csv")
        generated = run(["codes", "generate", "--offer", offer_id, "--count", "300", "--out", out, "--quiet"], remote, cwd)
        lines = open(out).read().splitlines() if os.path.exists(out) else []
        batches = json.loads(run(["codes", "batches", "--offer", offer_id, "--json"], local, cwd).stdout)["batches"]
        batch_id = batches[0]["id"] if batches else "batch_x"
        check(f"[{label}] --server: codes generate streams the CSV to the file and names the batch",
              generated.returncode == 0 and len(lines) == 301 and lines[0].startswith("code") and f"batch {batch_id}: 300 codes" in generated.stdout
              and not os.path.exists(out + ".partial"), generated.stdout + generated.stderr + str(lines[:2]))
    stopped = run(["codes", "deactivate-batch", "--batch", batch_id], remote, cwd)
    custom = run(["codes", "create-custom", "--offer", offer_id, "--code", "remote-code", "--max-redemptions", "3", "--json"], remote, cwd)
    custom_id = json.loads(custom.stdout)["id"] if custom.returncode == 0 else "cc_x"
    custom_off = run(["codes", "deactivate-custom", "--id", custom_id], remote, cwd)
    customs = json.loads(run(["codes", "list-custom", "--offer", offer_id, "--json"], local, cwd).stdout)["custom_codes"]
    check(f"[{label}] --server: codes deactivate-batch, create-custom and deactivate-custom",
          "is inactive" in stopped.stdout and [(c["code"], c["active"]) for c in customs] == [("REMOTECODE", False)]
          and "is inactive" in custom_off.stdout, stopped.stderr + custom.stderr + custom_off.stderr + json.dumps(customs))
    report_remote, report_local = run(["offers", "report"], remote, cwd), run(["offers", "report"], local, cwd)
    check(f"[{label}] --server: offers report prints the CSV the local database does",
          report_remote.returncode == 0 and report_remote.stdout == report_local.stdout and "," in report_local.stdout.partition("\n")[0],
          report_remote.stdout[:300] + report_remote.stderr + report_local.stdout[:300])

    bought = run(["purchases", "create", "--product", "pro_monthly", "--email", "parity@example.com", "--sandbox", "--app-user-id",
                  "parity-user", "--language", "de", "--json"], local, cwd)
    purchase_id = json.loads(bought.stdout)["id"] if bought.returncode == 0 else "pur_x"
    r, l = both(["purchases", "list", "--user", "parity-user"])
    check(f"[{label}] --server: purchases list answers as the local database does; purchases create --language keeps it",
          r == l and [p["id"] for p in l.get("purchases", [])] == [purchase_id] and l["purchases"][0].get("language") == "de",
          json.dumps(r)[:400] + bought.stderr)
    # Through --server a purchase is recorded by POST /v1/purchases, which takes the app's own secret key.
    before = run(["customers", "list", "--json"], local, cwd).stdout
    as_admin = run(["purchases", "create", "--product", "pro_monthly", "--email", "remote-made@example.com"], remote, cwd)
    other = json.loads(run(["apps", "create", "--name", "Other shop", "--json"], env, cwd).stdout)
    as_other = run(["purchases", "create", "--product", "pro_monthly", "--email", "remote-made@example.com"],
                   {**remote, "REDEEM_ADMIN_KEY": other["keys"]["secret"]}, cwd)
    check(f"[{label}] --server: purchases create refuses the admin key and another app's secret key, naming REDEEM_ADMIN_KEY, "
          "and records nothing", as_admin.returncode != 0 and "REDEEM_ADMIN_KEY is the admin key" in as_admin.stderr
          and as_other.returncode != 0 and f"REDEEM_ADMIN_KEY is not the secret key of {app['id']}" in as_other.stderr
          and run(["customers", "list", "--json"], local, cwd).stdout == before, as_admin.stderr + as_other.stderr)
    with_secret = {**remote, "REDEEM_ADMIN_KEY": app["keys"]["secret"]}
    made = run(["purchases", "create", "--product", "pro_monthly", "--email", "remote-made@example.com", "--sandbox", "--language", "pt-BR",
                "--json"], with_secret, cwd)
    answer = json.loads(made.stdout) if made.returncode == 0 else {}
    shown = run(["purchases", "show", "--purchase", answer.get("id", "pur_x"), "--json"], local, cwd)
    stored = json.loads(shown.stdout)["purchase"] if shown.returncode == 0 else {}
    buyer = [c["original_app_user_id"] for c in json.loads(run(["customers", "list", "--json"], local, cwd).stdout)["customers"]
             if c["customer_id"] == answer.get("customer_id")]
    check(f"[{label}] --server: purchases create records through the server API with the app's secret key: an anonymous buyer, "
          "the server's link, the language kept, the same fields as the local command prints",
          len(buyer) == 1 and buyer[0].startswith("$RCAnonymousID:") and answer.get("redemption_https_url", "").startswith(base + "/r/")
          and answer.get("language") == "pt" and stored.get("email") == "remote-made@example.com" and stored.get("is_sandbox") is True
          and set(answer) == set(json.loads(bought.stdout)), made.stdout + made.stderr + shown.stderr)
    link = run(["purchases", "link", "--purchase", purchase_id, "--json"], remote, cwd)
    sent = json.loads(link.stdout) if link.returncode == 0 else {}
    check(f"[{label}] --server: purchases link issues a new link", sent.get("redemption_https_url", "").startswith(base + "/r/")
          and "expires_at" in sent, link.stdout + link.stderr)
    r, l = both(["purchases", "show", "--purchase", purchase_id])
    check(f"[{label}] --server: purchases show answers as the local database does, the new link among its links",
          r == l and len(l.get("redemption_links", [])) == 2, json.dumps(r)[:400])
    moved = run(["purchases", "transfer", "--purchase", purchase_id, "--to", "parity-other"], remote, cwd)
    refunded = run(["purchases", "refund", "--purchase", purchase_id, "--json"], remote, cwd)
    check(f"[{label}] --server: purchases transfer and refund", "Moved" in moved.stdout and refunded.returncode == 0
          and json.loads(refunded.stdout).get("refunded_at") is not None, moved.stderr + refunded.stdout + refunded.stderr)
    # Nothing is e-mailed here (no mail server), so the retry of an unknown e-mail shows the server's refusal.
    retried = run(["emails", "retry", "--email", "eml_nope"], remote, cwd)
    check(f"[{label}] --server: emails retry of an unknown e-mail says so", retried.returncode != 0 and "eml_nope" in retried.stderr,
          retried.stdout + retried.stderr)
    granted = run(["grants", "create", "--user", "parity-grant", "--entitlement", "pro", "--duration", "weekly", "--json"], remote, cwd)
    grant_id = json.loads(granted.stdout)["id"] if granted.returncode == 0 else "pur_x"
    revoked = run(["grants", "revoke", "--purchase", grant_id], remote, cwd)
    check(f"[{label}] --server: grants create and revoke", granted.returncode == 0 and f"Revoked {grant_id}" in revoked.stdout,
          granted.stdout + granted.stderr + revoked.stderr)
    bad_grant = run(["grants", "create", "--user", "parity-grant", "--entitlement", "pro", "--duration", "fortnight"], remote, cwd)
    check(f"[{label}] --server: grants create refuses an unknown duration naming the flag",
          bad_grant.returncode != 0 and "--duration" in bad_grant.stderr, bad_grant.stderr)
    # remote_checks queued a test delivery.
    deliveries = json.loads(run(["webhooks", "deliveries", "--json"], local, cwd).stdout)["deliveries"]
    replayed = run(["webhooks", "replay", "--delivery", deliveries[0]["id"] if deliveries else "x"], remote, cwd)
    check(f"[{label}] --server: webhooks replay", replayed.returncode == 0 and "queued again" in replayed.stdout, replayed.stderr)
    unreachable = run(["apps", "list"], {**remote, "REDEEM_SERVER": "http://127.0.0.1:9"}, cwd)
    check(f"[{label}] --server: an unreachable server is named", unreachable.returncode != 0 and "cannot reach http://127.0.0.1:9" in unreachable.stderr,
          unreachable.stderr)


def purchase_link_checks(label, env, cwd, base, app):
    """`redeem links purchase`: both links by default, one with --sandbox, the identified form and UTM values encoded,
    the same answer locally (with --public-url) and through --server, a terminal QR code, and an unknown product refused."""
    admin = json.loads(run(["keys", "create", "--admin", "--label", "e2e links", "--json"], env, cwd).stdout)["key"]
    remote = {**env, "REDEEM_SERVER": base, "REDEEM_ADMIN_KEY": admin}
    both = run(["links", "purchase", "--app", app["id"], "--product", "pro_monthly", "--public-url", base], env, cwd)
    check(f"[{label}] links purchase prints the production and the sandbox link",
          both.returncode == 0 and f"Production: {base}/p/{app['id']}/pro_monthly\n" in both.stdout
          and f"Sandbox:    {base}/sandbox/p/{app['id']}/pro_monthly\n" in both.stdout, both.stdout + both.stderr)
    args = ["links", "purchase", "--app", app["id"], "--product", "pro_monthly", "--app-user-id", "vip user+1",
            "--utm-source", "news&letter", "--utm-campaign", "spring sale"]
    wanted = f"{base}/sandbox/p/{app['id']}/pro_monthly/vip%20user%2B1?utm_source=news%26letter&utm_campaign=spring%20sale"
    local = run(args + ["--sandbox", "--public-url", base], env, cwd)
    check(f"[{label}] links purchase --sandbox prints the one link, the app user ID and UTM values encoded",
          local.returncode == 0 and local.stdout == wanted + "\n", local.stdout + local.stderr)
    remote_json = run(args + ["--json"], remote, cwd)
    local_json = run(args + ["--json", "--public-url", base], env, cwd)
    answer = json.loads(remote_json.stdout) if remote_json.returncode == 0 else {}
    check(f"[{label}] --server: links purchase --json answers as the local database does",
          answer.get("sandbox_url") == wanted and local_json.returncode == 0 and json.loads(local_json.stdout) == answer,
          remote_json.stdout + remote_json.stderr + local_json.stdout)
    status, api = http("GET", f"{base}/admin/v1/apps/{app['id']}/products/pro_monthly/links?utm_source=news%26letter",
                       key=app["keys"]["secret"])
    check(f"[{label}] the admin API gives the same links", status == 200
          and api.get("production_url") == f"{base}/p/{app['id']}/pro_monthly?utm_source=news%26letter", (status, api))
    qr = run(["links", "purchase", "--app", app["id"], "--product", "pro_monthly", "--production", "--qr"], remote, cwd)
    check(f"[{label}] links purchase --qr prints the link and a terminal QR code",
          qr.returncode == 0 and qr.stdout.startswith(f"{base}/p/{app['id']}/pro_monthly\n") and ("\u2580" in qr.stdout or "\u2584" in qr.stdout),
          qr.stdout[:200] + qr.stderr)
    for target, where in ((env, "locally"), (remote, "through --server")):
        missing = run(["links", "purchase", "--app", app["id"], "--product", "nope", "--public-url", base], target, cwd)
        check(f"[{label}] links purchase refuses an unknown product {where}", missing.returncode != 0 and "nope" in missing.stderr,
              missing.stdout + missing.stderr)
    bad = run(["links", "purchase", "--app", app["id"], "--product", "pro_monthly", "--app-user-id", "a/b"], remote, cwd)
    check(f"[{label}] links purchase refuses an app user ID the checkout would refuse, naming the flag",
          bad.returncode != 0 and "--app-user-id" in bad.stderr, bad.stderr)


def scenario(label, env, cwd, browser=False):
    url = env.get("REDEEM_DATABASE_URL") or "redeem.sqlite"
    if not url.startswith("postgres"):
        path = os.path.join(cwd or "", url.removeprefix("sqlite://"))
        missing = run(["apps", "list", "--json"], env, cwd)
        check(f"[{label}] an admin command without a database fails naming its path, creating nothing",
              missing.returncode != 0 and f"no database at {os.path.realpath(path)}" in missing.stderr
              and "redeem migrate" in missing.stderr and not os.path.exists(path), missing.stderr)
    first = run(["migrate"], env, cwd)
    check(f"[{label}] migrate creates the database", first.returncode == 0 and "Applied migrations" in first.stdout, first.stdout + first.stderr)
    created = run(["apps", "create", "--name", f"E2E {label}", "--support-email", "help@example.com", "--json"], env, cwd)
    check(f"[{label}] apps create --json exits 0", created.returncode == 0, created.stderr)
    if created.returncode != 0:
        return
    app = json.loads(created.stdout)
    check(f"[{label}] apps create prints id, scheme and three keys",
          app["id"].startswith("app_") and app["scheme"].startswith("rdm-") and len(app["scheme"]) == 14
          and set(app["keys"]) == {"public_sandbox", "public_production", "secret"}, created.stdout)
    product = run(["products", "create", "--app", app["id"], "--id", "pro_monthly", "--type", "subscription",
                   "--period", "P1M", "--entitlement", "pro", "--json"], env, cwd)
    check(f"[{label}] products create --json", product.returncode == 0 and json.loads(product.stdout)["entitlements"] == ["pro"],
          product.stdout + product.stderr)
    bad = run(["products", "create", "--app", app["id"], "--id", "x", "--type", "subscription", "--json"], env, cwd)
    check(f"[{label}] a bad product fails naming the field", bad.returncode != 0 and "period" in bad.stderr, bad.stderr)
    recorded = run(["purchases", "create", "--app", app["id"], "--product", "pro_monthly", "--email", "cli@example.com",
                    "--sandbox", "--public-url", "https://pay.example.com", "--json"], env, cwd)
    purchase = json.loads(recorded.stdout) if recorded.returncode == 0 else {}
    check(f"[{label}] purchases create --json prints the purchase with both link forms",
          purchase.get("product_id") == "pro_monthly" and purchase.get("is_sandbox") is True
          and purchase.get("redemption_url", "").startswith(app["scheme"] + "://redeem_web_purchase?redemption_token=")
          and purchase.get("redemption_https_url", "").startswith("https://pay.example.com/r/"), recorded.stdout + recorded.stderr)
    legal = run(["apps", "update", "--app", app["id"], "--terms-url", "https://example.com/terms", "--privacy-url",
                 "https://example.com/privacy"], env, cwd)
    shown = run(["apps", "show", "--app", app["id"]], env, cwd)
    check(f"[{label}] apps update --terms-url/--privacy-url, and apps show lists them",
          legal.returncode == 0 and any(line.split() == ["terms", "of", "use", "https://example.com/terms"] for line in shown.stdout.splitlines())
          and any(line.split() == ["privacy", "policy", "https://example.com/privacy"] for line in shown.stdout.splitlines()),
          legal.stderr + shown.stdout)
    consent = run(["apps", "update", "--app", app["id"], "--require-terms-consent", "true"], env, cwd)
    check(f"[{label}] apps update --require-terms-consent true, and apps show says a box is ticked",
          consent.returncode == 0 and "https://example.com/terms (a box to tick)" in run(["apps", "show", "--app", app["id"]], env, cwd).stdout,
          consent.stderr)
    no_terms = run(["apps", "update", "--app", app["id"], "--terms-url", ""], env, cwd)
    check(f"[{label}] the terms cannot be cleared while consent is required", no_terms.returncode != 0
          and "--require-terms-consent" in no_terms.stderr, no_terms.stderr)
    run(["apps", "update", "--app", app["id"], "--require-terms-consent", "false"], env, cwd)
    reminders = run(["apps", "update", "--app", app["id"], "--renewal-reminders", "true"], env, cwd)
    reminded = run(["apps", "show", "--app", app["id"]], env, cwd).stdout
    run(["apps", "update", "--app", app["id"], "--renewal-reminders", "false"], env, cwd)
    check(f"[{label}] apps update --renewal-reminders true, shown by apps show, and off again",
          reminders.returncode == 0 and any(line.split() == ["renewal", "reminders", "e-mailed", "to", "buyers"] for line in reminded.splitlines())
          and any(line.split() == ["renewal", "reminders", "off"] for line in run(["apps", "show", "--app", app["id"]], env, cwd).stdout.splitlines()),
          reminders.stderr + reminded)
    refused = run(["apps", "update", "--app", app["id"], "--terms-url", "http://example.com/terms"], env, cwd)
    check(f"[{label}] an http terms URL is refused naming --terms-url", refused.returncode != 0 and "--terms-url must be" in refused.stderr,
          refused.stderr)
    no_code = run(["apps", "update", "--app", app["id"], "--checkout-tax", "managed_payments"], env, cwd)
    check(f"[{label}] managed payments without a tax code is refused naming --stripe-tax-code",
          no_code.returncode != 0 and "--stripe-tax-code" in no_code.stderr, no_code.stderr)
    managed = run(["apps", "update", "--app", app["id"], "--checkout-tax", "managed_payments", "--stripe-tax-code", "txcd_10000000"],
                  env, cwd)
    shown = run(["apps", "show", "--app", app["id"]], env, cwd)
    check(f"[{label}] apps update --checkout-tax managed_payments --stripe-tax-code, and apps show says so",
          managed.returncode == 0 and "tax managed_payments (txcd_10000000)" in shown.stdout, managed.stderr + shown.stdout)
    reset = run(["apps", "update", "--app", app["id"], "--checkout-tax", "none", "--stripe-tax-code", ""], env, cwd)
    check(f"[{label}] an empty --stripe-tax-code clears it", reset.returncode == 0
          and "tax none, promotion codes" in run(["apps", "show", "--app", app["id"]], env, cwd).stdout, reset.stderr)
    offer_codes = offer_cli_checks(label, env, cwd, app)
    offering_cli_checks(label, env, cwd, app)
    listed = run(["apps", "list", "--json"], env, cwd)
    check(f"[{label}] apps list sees the app", app["id"] in [a["id"] for a in json.loads(listed.stdout)["apps"]], listed.stdout)
    migrate = run(["migrate"], env, cwd)
    check(f"[{label}] migrate reports up to date", migrate.returncode == 0 and "up to date" in migrate.stdout, migrate.stdout + migrate.stderr)

    port = free_port()
    log = tempfile.TemporaryFile(mode="w+")
    server = subprocess.Popen([BIN, "serve", "--port", str(port), "--log-level", "trace", "--public-url", f"http://127.0.0.1:{port}"],
                              env={**os.environ, **env, "REDEEM_LOG_FORMAT": "json"}, cwd=cwd,
                              stdout=subprocess.DEVNULL, stderr=log, text=True)
    token, test_token, granted = "", "", {}  # what the log must not hold, once issued
    try:
        base = f"http://127.0.0.1:{port}"
        wait_healthy(base, server)
        status, health = http("GET", base + "/health")
        check(f"[{label}] serve answers /health", status == 200 and health["status"] == "ok", health)
        status, info = http("GET", base + "/v1/subscribers/e2e-user", key=app["keys"]["public_production"])
        check(f"[{label}] customer info for a new user", status == 200 and info["subscriber"]["original_app_user_id"] == "e2e-user", info)
        status, granted = http("POST", base + "/v1/purchases", key=app["keys"]["secret"],
                               body={"app_user_id": "e2e-user", "product_id": "pro_monthly"}, headers={"Idempotency-Key": str(uuid.uuid4())})
        check(f"[{label}] server API grant", status == 201, granted)
        check(f"[{label}] the grant carries both redemption link forms",
              granted.get("redemption_url", "").startswith(app["scheme"] + "://redeem_web_purchase?redemption_token=")
              and granted.get("redemption_https_url", "").startswith(base + "/r/"), granted)
        token = granted.get("redemption_https_url", "/").rsplit("/", 1)[1]
        if browser:
            page_checks(label, base, granted.get("redemption_https_url", ""), granted.get("redemption_url", ""), f"E2E {label}")
        status, redeemed = http("POST", base + "/v1/subscribers/redeem_purchase", key=app["keys"]["public_sandbox"],
                                body={"app_user_id": "$RCAnonymousID:0123456789abcdef0123456789abcdef", "redemption_token": token})
        check(f"[{label}] the link redeems in the app", status == 200 and redemption_owner(redeemed) == "e2e-user", redeemed)
        links = run(["links", "test", "--app", app["id"], "--public-url", base, "--json"], env, cwd)
        test_token = json.loads(links.stdout)["https_url"].rsplit("/", 1)[1] if links.returncode == 0 else "x"
        status, invalid = http("POST", base + "/v1/subscribers/redeem_purchase", key=app["keys"]["public_sandbox"],
                               body={"app_user_id": "e2e-user", "redemption_token": test_token})
        check(f"[{label}] links test gives a link the server reports as invalid (7849)", status == 400 and invalid.get("code") == 7849, invalid)
        status, info = http("GET", base + "/v1/subscribers/e2e-user", key=app["keys"]["public_sandbox"])
        check(f"[{label}] entitlement appears in customer info", "pro" in info["subscriber"]["entitlements"], info)
        offer_http_checks(label, env, cwd, base, app, offer_codes, browser)
        remote_checks(label, env, cwd, base, app)
        remote_parity_checks(label, env, cwd, base, app)
        purchase_link_checks(label, env, cwd, base, app)
        status, error = http("GET", base + "/admin/v1/apps", key=app["keys"]["public_sandbox"])
        check(f"[{label}] public key refused on admin route", status == 403, error)
    finally:
        server.terminate()
        server.wait(timeout=HANG_GUARD)
        log.seek(0)
        stderr = log.read()
    lines = [line for line in stderr.splitlines() if line.strip()]
    parsed = []
    for line in lines:
        try:
            parsed.append(json.loads(line))
        except ValueError:
            pass
    check(f"[{label}] REDEEM_LOG_FORMAT=json logs one JSON object per line", lines and len(parsed) == len(lines),
          next((l for l in lines if not l.startswith("{")), ""))
    check(f"[{label}] request logs name the route pattern", any(p.get("route") == "/v1/subscribers/{app_user_id}" for p in parsed))
    leaked = secrets_in(stderr, {**app["keys"], "token": token, "https link": granted.get("redemption_https_url"),
                                 "app link": granted.get("redemption_url"), "links test token": test_token})
    check(f"[{label}] the trace-level log holds no key, token or link", not leaked, leaked)


def demo_checks(env, first_output):
    """The demo at its best: found by its ID after a rename, one set of labelled keys alive, an icon Redeem serves."""
    renamed = run(["apps", "update", "app_demo", "--name", "Renamed Demo"], env)
    second = run(["demo", "--setup-only"], env)
    apps = json.loads(run(["apps", "list", "--json"], env).stdout)["apps"]
    check("a renamed demo app is found again by its ID, not duplicated",
          renamed.returncode == 0 and second.returncode == 0 and [a["id"] for a in apps] == ["app_demo"], second.stderr + str(apps))
    keys = json.loads(run(["keys", "list", "--json"], env).stdout)["keys"]
    labelled = [k for k in keys if k.get("label") == "redeem demo"]
    check("a demo re-run revokes the previous run's keys and labels the new ones",
          len(labelled) == 6 and sum(k.get("revoked_at") is None for k in labelled) == 3
          and "keys of the previous demo run are revoked" in second.stdout, labelled)
    passwords = [out.split("with password ", 1)[1].split()[0] for out in (first_output, second.stdout) if "with password " in out]
    operators = run(["operators", "list", "--json"], env)
    check("the demo makes one owner operator and prints a new password each run",
          len(passwords) == 2 and passwords[0] != passwords[1] and len(passwords[1]) >= 12
          and [o["email"] for o in json.loads(operators.stdout)] == ["owner@example.com"], first_output[-400:] + operators.stdout)
    purchase = run(["purchases", "create", "--app", "app_demo", "--product", "pro_lifetime", "--email", "cli-support@example.com",
                    "--sandbox", "--json"], env)
    purchase_id = json.loads(purchase.stdout)["id"] if purchase.returncode == 0 else "?"
    found = run(["customers", "search", "--app", "app_demo", "--query", "CLI-SUPPORT@example.com", "--json"], env)
    check("customers search finds a buyer by e-mail", found.returncode == 0 and json.loads(found.stdout)["customers"][0]["matched"] == "e-mail",
          found.stdout + found.stderr)
    link = run(["purchases", "link", "--app", "app_demo", "--purchase", purchase_id, "--json"], env)
    check("purchases link issues a new link", link.returncode == 0 and "/r/" in json.loads(link.stdout)["redemption_https_url"], link.stdout + link.stderr)
    refund = run(["purchases", "refund", "--app", "app_demo", "--purchase", purchase_id], env)
    again = run(["purchases", "refund", "--app", "app_demo", "--purchase", purchase_id], env)
    check("purchases refund refunds a sandbox purchase once", refund.returncode == 0 and again.returncode != 0 and "already refunded" in again.stderr,
          refund.stdout + refund.stderr + again.stderr)
    granted = run(["grants", "create", "--app", "app_demo", "--user", "cli-vip", "--entitlement", "pro", "--duration", "weekly", "--json"], env)
    grant = json.loads(granted.stdout) if granted.returncode == 0 else {}
    check("grants create records a promotional grant", grant.get("product_id") == "rc_promo_pro_weekly" and grant.get("store") == "promotional",
          granted.stdout + granted.stderr)
    both = run(["grants", "create", "--app", "app_demo", "--user", "cli-vip", "--entitlement", "pro", "--duration", "weekly",
                "--until", "2030-01-01T00:00:00Z"], env)
    check("grants create refuses a duration and an end date together, naming the flag", both.returncode != 0 and "--until" in both.stderr, both.stderr)
    listed = run(["purchases", "list", "--app", "app_demo", "--user", "cli-vip"], env)
    check("purchases list shows the customer's grant", listed.returncode == 0 and "rc_promo_pro_weekly" in listed.stdout and "active" in listed.stdout,
          listed.stdout + listed.stderr)
    revoked = run(["grants", "revoke", "--app", "app_demo", "--purchase", grant.get("id", "?")], env)
    check("grants revoke ends the grant", revoked.returncode == 0 and "Revoked" in revoked.stdout, revoked.stdout + revoked.stderr)
    monthly = run(["purchases", "create", "--app", "app_demo", "--product", "pro_monthly", "--email", "cli-sub@example.com", "--sandbox",
                   "--app-user-id", "cli-sub", "--json"], env)
    monthly_id = json.loads(monthly.stdout)["id"] if monthly.returncode == 0 else "?"
    unknown = run(["purchases", "cancel", "--app", "app_demo", "--purchase", monthly_id, "--reason", "bored"], env)
    check("purchases cancel refuses a reason not listed, naming the flag", unknown.returncode != 0 and "--reason must be one of" in unknown.stderr,
          unknown.stdout + unknown.stderr)
    cancelled = run(["purchases", "cancel", "--app", "app_demo", "--purchase", monthly_id, "--reason", "too_expensive"], env)
    check("purchases cancel stops a sandbox subscription renewing, with the buyer's reason",
          cancelled.returncode == 0 and "stops renewing" in cancelled.stdout and "(reason: It’s too expensive)" in cancelled.stdout,
          cancelled.stdout + cancelled.stderr)
    resumed = run(["purchases", "resume", "--app", "app_demo", "--purchase", monthly_id], env)
    recancelled = run(["purchases", "cancel", "--app", "app_demo", "--purchase", monthly_id], env)
    check("purchases resume lets a cancelled sandbox subscription renew again (and it can be cancelled again)",
          resumed.returncode == 0 and "renews again" in resumed.stdout and recancelled.returncode == 0, resumed.stdout + resumed.stderr)
    # Another plan of the group: the monthly product joins a group with a yearly one.
    grouped = run(["products", "update", "--app", "app_demo", "--id", "pro_monthly", "--subscription-group", "pro", "--group-level", "2"], env)
    yearly = run(["products", "create", "--app", "app_demo", "--id", "pro_yearly", "--type", "subscription", "--period", "P1Y",
                  "--price", "39.99", "--currency", "USD", "--entitlement", "pro", "--subscription-group", "pro", "--group-level", "1"], env)
    planned = run(["purchases", "create", "--app", "app_demo", "--product", "pro_monthly", "--email", "cli-plan@example.com", "--sandbox",
                   "--app-user-id", "cli-plan", "--json"], env)
    planned_id = json.loads(planned.stdout)["id"] if planned.returncode == 0 else "?"
    nowhere = run(["purchases", "change-plan", "--app", "app_demo", "--purchase", planned_id, "--to", "pro_lifetime"], env)
    check("purchases change-plan refuses a plan not offered, naming the ones that are",
          grouped.returncode == 0 and yearly.returncode == 0 and nowhere.returncode != 0 and "must be one of: pro_yearly" in nowhere.stderr,
          grouped.stderr + yearly.stderr + nowhere.stdout + nowhere.stderr)
    switched = run(["purchases", "change-plan", "--app", "app_demo", "--purchase", planned_id, "--to", "pro_yearly"], env)
    status = run(["purchases", "show", "--app", "app_demo", "--purchase", planned_id, "--json"], env)
    check("purchases change-plan switches a sandbox subscription to the yearly plan at once",
          switched.returncode == 0 and "Switched" in switched.stdout and status.returncode == 0
          and json.loads(status.stdout)["purchase"]["product_id"] == "pro_yearly", switched.stdout + switched.stderr + status.stdout[:300])
    # Back down to monthly: a downgrade waits for the yearly period's end; asking for the yearly plan again drops it.
    down = run(["purchases", "change-plan", "--app", "app_demo", "--purchase", planned_id, "--to", "pro_monthly"], env)
    waiting = run(["purchases", "show", "--app", "app_demo", "--purchase", planned_id, "--json"], env)
    kept = run(["purchases", "change-plan", "--app", "app_demo", "--purchase", planned_id, "--to", "pro_yearly", "--json"], env)
    check("purchases change-plan schedules a downgrade for the period's end, and the current plan drops it",
          down.returncode == 0 and "keeps pro_yearly until" in down.stdout and "then renews as pro_monthly" in down.stdout
          and waiting.returncode == 0 and json.loads(waiting.stdout)["purchase"]["scheduled_plan"]["product_id"] == "pro_monthly"
          and kept.returncode == 0 and "scheduled_plan" not in json.loads(kept.stdout),
          down.stdout + down.stderr + waiting.stdout[:400] + kept.stdout[:300])
    moved = run(["purchases", "transfer", "--app", "app_demo", "--purchase", monthly_id, "--to", "cli-sub-2"], env)
    leaving = run(["customers", "list", "--app", "app_demo", "--status", "wont_renew"], env)
    check("customers list --status wont_renew lists the customer whose subscription was cancelled, with their address",
          leaving.returncode == 0 and "cli-sub-2  cli-sub@example.com" in leaving.stdout and len(leaving.stdout.strip().splitlines()) == 1,
          leaving.stdout + leaving.stderr)
    wrong = run(["customers", "list", "--app", "app_demo", "--status", "leaving"], env)
    check("customers list refuses an unknown status, naming the flag", wrong.returncode != 0 and "--status must be one of" in wrong.stderr,
          wrong.stderr)
    shown = run(["purchases", "show", "--app", "app_demo", "--purchase", monthly_id, "--json"], env)
    detail = json.loads(shown.stdout) if shown.returncode == 0 else {}
    check("purchases transfer moves it and purchases show lists its links",
          moved.returncode == 0 and len(detail.get("redemption_links", [])) == 1 and detail["purchase"]["unsubscribe_detected_at"] is not None,
          moved.stderr + shown.stdout + shown.stderr)
    retry = run(["emails", "retry", "--app", "app_demo", "--email", "eml_missing"], env)
    check("emails retry names what is missing", retry.returncode != 0 and "not found" in retry.stderr, retry.stderr)
    audit = run(["audit", "--json"], env)
    actions = [(e["actor"], e["action"]) for e in json.loads(audit.stdout)["entries"]] if audit.returncode == 0 else []
    check("redeem audit shows who made and reset the demo's operator", ("redeem demo", "operator.create") in actions
          and ("redeem demo", "operator.password") in actions and ("cli", "purchase.refund") in actions and ("cli", "purchase.link") in actions,
          audit.stdout + audit.stderr)
    overview = run(["overview", "--app", "app_demo", "--days", "7"], env)
    # The demo's sample purchase and this scenario's three; the grant is not a purchase.
    through = re.search(r"Purchases through checkout +(\d+)", overview.stdout)
    elsewhere = re.search(r"purchases recorded elsewhere \(server API, CLI\), apart from the steps: (\d+)", overview.stdout)
    check("redeem overview counts this run's purchases (grants left out), through checkout and elsewhere, and links",
          overview.returncode == 0 and through and elsewhere and int(through.group(1)) + int(elsewhere.group(1)) == 4
          and "Links issued" in overview.stdout and "%" not in overview.stdout.split("Checkouts started")[1].split("\n")[0],
          overview.stdout + overview.stderr)
    bad_window = run(["overview", "--app", "app_demo", "--days", "12"], env)
    check("redeem overview refuses a window other than 7, 30 or 90", bad_window.returncode != 0 and "--days" in bad_window.stderr, bad_window.stderr)
    reset = run(["operators", "reset-two-factor", "--email", "owner@example.com"], env)
    unknown = run(["operators", "reset-two-factor", "--email", "nobody@example.com"], env)
    check("operators reset-two-factor turns it off, and names an unknown operator",
          reset.returncode == 0 and "off for owner@example.com" in reset.stdout and unknown.returncode != 0 and "not found" in unknown.stderr,
          reset.stdout + reset.stderr + unknown.stderr)
    check("redeem audit shows the CLI's catalog and support writes",
          {("cli", a) for a in ["app.create", "product.create", "key.create", "purchase.create", "grant.create", "grant.revoke", "purchase.cancel",
                                "purchase.transfer"]} <= set(actions), actions)
    lan = run(["demo", "--setup-only", "--lan"], env)
    urls = [line.split()[-1] for line in lan.stdout.splitlines() if "/sandbox/p/app_demo/" in line]
    hosts = {u.split("://", 1)[1].split(":", 1)[0] for u in urls}
    if lan_addresses():
        check("demo --lan puts one of the machine's LAN addresses in the links",
              lan.returncode == 0 and len(hosts) == 1 and hosts <= set(lan_addresses()), (lan_addresses(), lan.stdout + lan.stderr))
    else:
        check("demo --lan on a machine with no LAN address says so, naming --lan", lan.returncode != 0
              and "--lan" in lan.stderr and "no LAN (non-loopback IPv4) address" in lan.stderr, lan.stdout + lan.stderr)
    first_key = second.stdout.split("admin:", 1)[1].split()[0]
    port = free_port()
    server = subprocess.Popen([BIN, "serve", "--port", str(port)], env={**os.environ, **env},
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        base = f"http://127.0.0.1:{port}"
        wait_healthy(base, server)
        status, _ = http("GET", base + "/admin/v1/apps", key=first_key)
        check("the previous run's admin key no longer works", status == 401, status)
        status, _ = http("GET", base + "/admin/v1/apps", key=first_output.split("admin:", 1)[1].split()[0])
        check("nor the first run's", status == 401, status)
        status, headers, icon = fetch(base + "/assets/demo-icon.svg")
        check("Redeem serves the demo app's icon", status == 200 and headers["Content-Type"] == "image/svg+xml" and icon.startswith("<svg"),
              (status, headers["Content-Type"]))
        status, _, page = fetch(base + "/sandbox/p/app_demo/pro_monthly")
        check("the demo's checkout page shows its icon and support address",
              status == 200 and 'src="/assets/demo-icon.svg"' in page and "support@example.com" in page, (status, page[:300]))
    finally:
        server.terminate()
        server.wait(timeout=HANG_GUARD)


def main():
    with tempfile.TemporaryDirectory() as tmp:
        scenario("sqlite absolute", {"REDEEM_DATABASE_URL": f"sqlite://{tmp}/abs.sqlite"}, None, browser=True)
        check("sqlite:///absolute/path creates that file", os.path.exists(f"{tmp}/abs.sqlite"))
        scenario("sqlite relative", {"REDEEM_DATABASE_URL": "sqlite://rel.sqlite"}, tmp)
        check("sqlite://relative/path is relative to the working directory", os.path.exists(f"{tmp}/rel.sqlite"))
        scenario("default ./redeem.sqlite", {"REDEEM_DATABASE_URL": ""}, tmp)
        check("the default database is ./redeem.sqlite", os.path.exists(f"{tmp}/redeem.sqlite"))

        for args, setting in [(["serve", "--port", "abc"], "--port"), (["serve", "--port", "70000"], "--port"),
                              (["serve", "--database-url", "mysql://x"], "REDEEM_DATABASE_URL"),
                              (["serve", "--log-level", "loud"], "--log-level"),
                              (["serve", "--public-url", "ftp://x"], "--public-url"),
                              (["serve", "--trusted-proxies", "127.0.0.1,nginx"], "--trusted-proxies"),
                              # The CLI's links are held to serve's rule for the public URL: no path.
                              (["codes", "generate", "--offer", "o", "--count", "1", "--out", f"{tmp}/never.csv", "--public-url",
                                "https://pay.example.com/shop"], "--public-url / REDEEM_PUBLIC_URL 'https://pay.example.com/shop' must be")]:
            bad = run(args, {"REDEEM_DATABASE_URL": f"sqlite://{tmp}/bad.sqlite"})
            check(f"bad configuration {' '.join(args[1:])} fails naming {setting}", bad.returncode != 0 and setting in bad.stderr, bad.stderr)

        demo_env = {"REDEEM_DATABASE_URL": f"sqlite://{tmp}/demo.sqlite"}
        demo = run(["demo", "--setup-only"], demo_env)
        check("demo --setup-only prints the demo app's keys", demo.returncode == 0 and "rdm_pk_sbx_" in demo.stdout and "rdm_sk_" in demo.stdout, demo.stderr)
        demo_checks(demo_env, demo.stdout)

    pg = os.environ.get("REDEEM_TEST_POSTGRES_URL")
    if pg:
        name = "redeem_e2e_" + uuid.uuid4().hex[:12]
        subprocess.run(["psql", pg, "-qc", f"CREATE DATABASE {name}"], check=True)
        try:
            with tempfile.TemporaryDirectory() as tmp:
                scenario("postgres", {"REDEEM_DATABASE_URL": pg.rsplit("/", 1)[0] + "/" + name}, tmp)
                check("postgres leaves no sqlite file behind", not os.path.exists(f"{tmp}/redeem.sqlite"))
        finally:
            subprocess.run(["psql", pg, "-qc", f"DROP DATABASE IF EXISTS {name} WITH (FORCE)"])
    else:
        print("skip postgres scenario: REDEEM_TEST_POSTGRES_URL is not set")

    finish()


main()

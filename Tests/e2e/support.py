"""What the end-to-end scripts share: pass/fail counting, free loopback ports and JSON over HTTP."""
import json, socket, sys, time, urllib.error, urllib.request

results = {"passed": 0, "failed": 0}


def check(name, condition, detail=""):
    results["passed" if condition else "failed"] += 1
    print(("ok   " if condition else "FAIL ") + name + ("" if condition else f"  -- {detail}"), flush=True)


def finish():
    print(f"{results['passed']} passed, {results['failed']} failed")
    results["finished"] = True
    sys.exit(1 if results["failed"] else 0)


def scratch_dir(prefix):
    """A directory for a run's database, mail and server log: removed when every check passed, kept (and named) when a
    check failed or the script stopped early, so its server log can be read."""
    import atexit, shutil, tempfile
    path = tempfile.mkdtemp(prefix=prefix)

    def clean():
        if results.get("finished") and not results["failed"]:
            shutil.rmtree(path, ignore_errors=True)
        else:
            print(f"kept {path} for its server log", flush=True)
    atexit.register(clean)
    return path


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


# How long a wait on an event may take before the script gives up: a guard against a hang, never a requirement. Each
# wait ends as soon as its event happens; only a run that would otherwise hang ever takes this long.
HANG_GUARD = 120


def wait_for(condition, timeout=HANG_GUARD, interval=0.05):
    """Polls `condition()` until it returns something true, and returns that; after `timeout` seconds (a hang guard),
    returns the last, false value."""
    deadline = time.monotonic() + timeout
    while True:
        value = condition()
        if value or time.monotonic() >= deadline:
            return value
        time.sleep(interval)


def wait_healthy(base, process=None, timeout=HANG_GUARD):
    """Waits until `base/health` answers 200; False if it never does, or as soon as `process` (the server) has exited."""
    def healthy():
        try:
            return http("GET", base + "/health")[0] == 200
        except OSError:
            return False
    return bool(wait_for(lambda: healthy() or (process is not None and process.poll() is not None), timeout)) and healthy()


def call(method, url, key=None, body=None, headers=None, timeout=60):
    """(status, decoded JSON body or the raw start of a non-JSON one, response headers); status 0 with the error as
    body when no HTTP answer came."""
    request = urllib.request.Request(url, method=method, data=json.dumps(body).encode() if body is not None else None)
    if key:
        request.add_header("Authorization", f"Bearer {key}")
    if body is not None:
        request.add_header("Content-Type", "application/json")
    for name, value in (headers or {}).items():
        request.add_header(name, value)
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            return response.status, json.loads(response.read() or b"null"), response.headers
    except urllib.error.HTTPError as error:
        raw = error.read()
        try:
            return error.code, json.loads(raw or b"null"), error.headers
        except ValueError:
            return error.code, raw[:200], error.headers
    except OSError as error:
        return 0, repr(error), {}


def http(method, url, key=None, body=None, headers=None):
    """Returns (status, decoded JSON body); error statuses are answers, not exceptions; no answer raises OSError."""
    status, answer, _ = call(method, url, key, body, headers)
    if status == 0:
        raise OSError(answer)
    return status, answer


def fetch(url, headers=None, timeout=60):
    """GET `url` as a browser would: (status, headers, body text), error statuses included (urlopen raises on them, so
    a status read after urlopen can only be 2xx or 3xx)."""
    request = urllib.request.Request(url, headers=headers or {})
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            return response.status, response.headers, response.read().decode("utf-8", "replace")
    except urllib.error.HTTPError as error:
        return error.code, error.headers, error.read().decode("utf-8", "replace")


def secrets_in(text, secrets):
    """The labels of the `secrets` (label -> value) found in `text`, a server log. JSON log lines may write "/" as
    "\\/", so a link URL is looked for in the text with that undone as well."""
    unescaped = text.replace("\\/", "/")
    return sorted(label for label, value in secrets.items() if value and (value in text or value in unescaped))


class MailServer:
    """A real SMTP server on loopback (aiosmtpd, Tests/RedeemTestSupport/smtp_test_server.py) writing each message it
    accepts to `directory` as JSON. `url` is what `redeem serve --smtp-url` takes."""

    def __init__(self, directory):
        import os, subprocess
        root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
        os.makedirs(directory, exist_ok=True)
        self.directory = directory
        self.process = subprocess.Popen(
            [sys.executable, os.path.join(root, "Tests", "RedeemTestSupport", "smtp_test_server.py"), "--dir", directory],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        self.port = int(self.process.stdout.readline().split()[1])
        self.url = f"smtp://127.0.0.1:{self.port}?security=none"

    def messages(self, matching, count, timeout=HANG_GUARD):
        """The received messages for which `matching(message)` holds, as soon as there are `count` of them (or those
        there are when the hang guard runs out); `timeout=0` looks once."""
        import glob, os

        def found():
            matched = []
            for name in sorted(glob.glob(os.path.join(self.directory, "message-*.json")),
                               key=lambda n: int(n.rsplit("-", 1)[1].split(".")[0])):
                with open(name) as f:
                    message = json.load(f)
                if matching(message):
                    matched.append(message)
            return matched
        wait_for(lambda: len(found()) >= count, timeout, interval=0.1)
        return found()

    def stop(self):
        self.process.stdin.close()
        self.process.wait(timeout=HANG_GUARD)


class WebhookReceiver:
    """A webhook endpoint on loopback (Tests/RedeemTestSupport/webhook_receiver.py) writing each request it gets to
    `directory`, and answering 500 to the first `fail_first` of them, 200 after."""

    def __init__(self, directory, fail_first=0):
        import os, subprocess
        root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
        os.makedirs(directory, exist_ok=True)
        self.directory = directory
        self.process = subprocess.Popen(
            [sys.executable, os.path.join(root, "Tests", "RedeemTestSupport", "webhook_receiver.py"), "--dir", directory,
             "--fail-first", str(fail_first)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        self.url = f"http://127.0.0.1:{int(self.process.stdout.readline().split()[1])}/hook"

    def requests(self):
        """How many requests it has got so far."""
        import os
        return len([name for name in os.listdir(self.directory) if name.endswith(".json")])

    def stop(self):
        self.process.stdin.close()
        self.process.wait(timeout=HANG_GUARD)


def run_cli(binary, args, env, stdin=None):
    """Runs `redeem` with `args`; its standard output, or an error naming the command and its standard error."""
    import subprocess
    done = subprocess.run([binary, *args], env=env, input=stdin, capture_output=True, text=True)
    if done.returncode != 0:
        raise RuntimeError(f"{args}: {done.stderr}")
    return done.stdout


def serve_on_sqlite(binary, prefix, set_up):
    """A fresh SQLite database in a scratch directory, migrated and set up through the CLI (`set_up(env)` returns
    what the walk needs), and `redeem serve` on it on a free port, without Stripe. Returns the set-up's result, the
    base URL, the server process and its log file (the caller terminates the one and closes the other)."""
    import os
    import subprocess
    workdir = scratch_dir(prefix)
    env = {**os.environ, "REDEEM_DATABASE_URL": "sqlite://" + os.path.join(workdir, "redeem.sqlite")}
    env.pop("REDEEM_STRIPE_SECRET_KEY", None)
    run_cli(binary, ["migrate"], env)
    made = set_up(env)
    base = f"http://127.0.0.1:{free_port()}"
    log = open(os.path.join(workdir, "server.log"), "w")
    server = subprocess.Popen([binary, "serve", "--port", base.rsplit(":", 1)[1], "--public-url", base], env=env,
                              stdout=subprocess.DEVNULL, stderr=log)
    return made, base, server, log


def screenshots(page, directory, name):
    """Desktop and phone screenshots of the current page, as `directory/name-desktop.png` and `-phone.png`; at each
    size, a check that the page is no wider than the screen (nothing scrolls sideways)."""
    import os
    for label, size in (("desktop", (1280, 900)), ("phone", (390, 844))):
        page.set_viewport_size({"width": size[0], "height": size[1]})
        page.screenshot(path=os.path.join(directory, f"{name}-{label}.png"), full_page=True)
        width = page.evaluate("document.documentElement.scrollWidth")
        check(f"{name}: no wider than the {label} screen ({size[0]} px)", width <= size[0], width)
    page.set_viewport_size({"width": 1280, "height": 900})


def chromium(playwright):
    """Debian's Chromium, driven by Playwright (its own browser download is not used)."""
    return playwright.chromium.launch(executable_path="/usr/bin/chromium", args=["--no-sandbox"])


def desktop_context(browser, height=900, **options):
    """A 1280 px wide English context whose waits end when the element appears; the timeout only guards a hang."""
    context = browser.new_context(viewport={"width": 1280, "height": height}, locale="en-US", **options)
    context.set_default_timeout(HANG_GUARD * 1000)
    return context


def console_sign_in(page, base, email, password):
    """Signs in to the console through its form."""
    page.goto(base + "/console/sign-in")
    page.get_by_label("E-mail").fill(email)
    page.get_by_label("Password").fill(password)
    page.get_by_role("button", name="Sign in").click()

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


def wait_healthy(base, tries=200):
    """Waits until `base/health` answers 200; False if it never does."""
    for _ in range(tries):
        try:
            if http("GET", base + "/health")[0] == 200:
                return True
        except OSError:
            time.sleep(0.05)
    return False


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
    status, answer, _ = call(method, url, key, body, headers, timeout=10)
    if status == 0:
        raise OSError(answer)
    return status, answer


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

    def messages(self, matching, count, tries=100):
        """The received messages for which `matching(message)` holds, once there are `count` of them (or the last try's)."""
        import glob, os
        found = []
        for _ in range(tries):
            found = []
            for name in sorted(glob.glob(os.path.join(self.directory, "message-*.json"))):
                with open(name) as f:
                    message = json.load(f)
                if matching(message):
                    found.append(message)
            if len(found) >= count:
                return found
            time.sleep(0.1)
        return found

    def stop(self):
        self.process.stdin.close()
        self.process.wait(timeout=10)


def run_cli(binary, args, env, stdin=None):
    """Runs `redeem` with `args`; its standard output, or an error naming the command and its standard error."""
    import subprocess
    done = subprocess.run([binary, *args], env=env, input=stdin, capture_output=True, text=True)
    if done.returncode != 0:
        raise RuntimeError(f"{args}: {done.stderr}")
    return done.stdout


def screenshots(page, directory, name):
    """Desktop and phone screenshots of the current page, as `directory/name-desktop.png` and `-phone.png`."""
    import os
    for label, size in (("desktop", (1280, 900)), ("phone", (390, 844))):
        page.set_viewport_size({"width": size[0], "height": size[1]})
        page.screenshot(path=os.path.join(directory, f"{name}-{label}.png"), full_page=True)
    page.set_viewport_size({"width": 1280, "height": 900})

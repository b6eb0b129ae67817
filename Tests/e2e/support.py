"""What the end-to-end scripts share: pass/fail counting, free loopback ports and JSON over HTTP."""
import json, socket, sys, time, urllib.error, urllib.request

results = {"passed": 0, "failed": 0}


def check(name, condition, detail=""):
    results["passed" if condition else "failed"] += 1
    print(("ok   " if condition else "FAIL ") + name + ("" if condition else f"  -- {detail}"), flush=True)


def finish():
    print(f"{results['passed']} passed, {results['failed']} failed")
    sys.exit(1 if results["failed"] else 0)


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


def http(method, url, key=None, body=None, headers=None):
    """Returns (status, decoded JSON body); error statuses are answers, not exceptions."""
    request = urllib.request.Request(url, method=method, data=json.dumps(body).encode() if body is not None else None)
    if key:
        request.add_header("Authorization", f"Bearer {key}")
    if body is not None:
        request.add_header("Content-Type", "application/json")
    for name, value in (headers or {}).items():
        request.add_header(name, value)
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, json.loads(response.read() or b"null")
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read() or b"null")

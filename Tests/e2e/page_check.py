#!/usr/bin/env python3
"""Browser checks for Redeem's HTML pages: screenshots in headless Chromium and QR decoding with zbar.

Standard library only. Needs Debian's `chromium` and `zbar-tools` packages
(`apt-get install chromium zbar-tools`).

    from page_check import screenshot, decode_qr, dump_dom
    screenshot("http://127.0.0.1:8080/r/TOKEN", "/tmp/desktop.png", 1280, 900)
    screenshot("page.html", "/tmp/phone.png", 390, 844, mobile=True)          # iPhone user agent
    screenshot("page.html", "/tmp/android.png", 412, 915, mobile="android", dark=True)
    assert decode_qr("/tmp/desktop.png") == ["https://redeem.example.com/r/TOKEN"]
    html = dump_dom("page.html", mobile="android")   # the DOM after scripts ran

Command line:
    page_check.py shot URL_OR_FILE OUT.png [--width W] [--height H] [--mobile|--android] [--dark]
    page_check.py qr IMAGE.png
    page_check.py dom URL_OR_FILE [--mobile|--android]

The environment variable CHROMIUM overrides the browser binary (default: `chromium` on PATH).
"""
import argparse
import os
import pathlib
import shutil
import subprocess
import sys
import tempfile

__all__ = ["screenshot", "decode_qr", "dump_dom", "chromium_command", "USER_AGENTS"]

USER_AGENTS = {
    "ios": (
        "Mozilla/5.0 (iPhone; CPU iPhone OS 18_5 like Mac OS X) AppleWebKit/605.1.15 "
        "(KHTML, like Gecko) Version/18.5 Mobile/15E148 Safari/604.1"
    ),
    "android": (
        "Mozilla/5.0 (Linux; Android 15; Pixel 9) AppleWebKit/537.36 "
        "(KHTML, like Gecko) Chrome/138.0.0.0 Mobile Safari/537.36"
    ),
}

TIMEOUT_SECONDS = 60


def _browser():
    binary = os.environ.get("CHROMIUM") or shutil.which("chromium") or shutil.which("chromium-browser")
    if not binary:
        raise RuntimeError("headless Chromium not found: apt-get install chromium (or set CHROMIUM)")
    return binary


def _url(url_or_file):
    """http(s):, file: and data: URLs pass through; anything else is a local path."""
    text = str(url_or_file)
    if text.split(":", 1)[0].lower() in ("http", "https", "file", "data", "about"):
        return text
    path = pathlib.Path(text).resolve()
    if not path.exists():
        raise FileNotFoundError(path)
    return path.as_uri()


def _user_agent(mobile):
    if not mobile:
        return None
    if mobile is True:
        return USER_AGENTS["ios"]
    if mobile in USER_AGENTS:
        return USER_AGENTS[mobile]
    return str(mobile)  # a literal user-agent string


def chromium_command(profile_dir, width, height, mobile=False, dark=False, extra=()):
    """The argument list shared by screenshot() and dump_dom(), without the URL."""
    args = [
        _browser(),
        "--headless=new",
        "--no-sandbox",  # required as root and in most containers
        "--disable-gpu",
        "--hide-scrollbars",
        "--no-first-run",
        "--no-default-browser-check",
        "--disable-dev-shm-usage",
        "--disable-extensions",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--mute-audio",
        "--force-device-scale-factor=1",
        f"--user-data-dir={profile_dir}",
        f"--window-size={int(width)},{int(height)}",
        # Let the page's own scripts finish before the capture; pages load no network resources.
        "--virtual-time-budget=2000",
        "--run-all-compositor-stages-before-draw",
    ]
    user_agent = _user_agent(mobile)
    if user_agent:
        args.append(f"--user-agent={user_agent}")
    # prefers-color-scheme: blink's preferredColorScheme is 0 = dark, 1 = light.
    args.append("--blink-settings=preferredColorScheme=" + ("0" if dark else "1"))
    if dark:
        args.append("--force-dark-mode")
    args.extend(extra)
    return args


def _run(args):
    env = dict(os.environ)
    env.pop("DISPLAY", None)
    result = subprocess.run(args, capture_output=True, text=True, timeout=TIMEOUT_SECONDS, env=env)
    if result.returncode != 0:
        raise RuntimeError(f"chromium exited {result.returncode}: {result.stderr.strip()[-2000:]}")
    return result


def screenshot(url_or_file, out_png, width, height, mobile=False, dark=False):
    """Capture the first width×height CSS pixels of a page (at device scale 1) into out_png.

    mobile: False (desktop Chromium's user agent), True or "ios" (iPhone Safari),
    "android" (Chrome on Android), or any literal user-agent string.
    dark: render with prefers-color-scheme: dark.
    Returns the absolute path of the PNG.
    """
    out = pathlib.Path(out_png).resolve()
    out.parent.mkdir(parents=True, exist_ok=True)
    if out.exists():
        out.unlink()
    with tempfile.TemporaryDirectory(prefix="page-check-") as profile:
        args = chromium_command(profile, width, height, mobile, dark, extra=[f"--screenshot={out}"])
        result = _run(args + [_url(url_or_file)])
    if not out.exists() or out.stat().st_size == 0:
        raise RuntimeError(f"chromium wrote no screenshot: {result.stderr.strip()[-2000:]}")
    return str(out)


def dump_dom(url_or_file, mobile=False, dark=False, width=1280, height=900):
    """The serialised DOM after the page's scripts ran (e.g. to see the Android intent swap)."""
    with tempfile.TemporaryDirectory(prefix="page-check-") as profile:
        args = chromium_command(profile, width, height, mobile, dark, extra=["--dump-dom"])
        return _run(args + [_url(url_or_file)]).stdout


def decode_qr(png):
    """Every QR/barcode payload zbarimg finds in the image, in zbar's order; [] when none."""
    zbarimg = shutil.which("zbarimg")
    if not zbarimg:
        raise RuntimeError("zbarimg not found: apt-get install zbar-tools")
    result = subprocess.run(
        [zbarimg, "--raw", "-q", str(png)], capture_output=True, timeout=TIMEOUT_SECONDS
    )
    # zbarimg exits 4 when the image holds no symbol; other non-zero codes are real errors.
    if result.returncode == 4:
        return []
    if result.returncode != 0:
        raise RuntimeError(f"zbarimg exited {result.returncode}: {result.stderr.decode(errors='replace').strip()}")
    return [line for line in result.stdout.decode("utf-8", errors="replace").splitlines() if line]


def _main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    shot = sub.add_parser("shot", help="screenshot a page")
    shot.add_argument("url")
    shot.add_argument("out")
    shot.add_argument("--width", type=int, default=1280)
    shot.add_argument("--height", type=int, default=900)
    shot.add_argument("--mobile", action="store_true", help="iPhone user agent")
    shot.add_argument("--android", action="store_true", help="Android Chrome user agent")
    shot.add_argument("--dark", action="store_true", help="prefers-color-scheme: dark")
    qr = sub.add_parser("qr", help="decode QR codes in a PNG")
    qr.add_argument("png")
    dom = sub.add_parser("dom", help="print the DOM after scripts ran")
    dom.add_argument("url")
    dom.add_argument("--mobile", action="store_true")
    dom.add_argument("--android", action="store_true")
    args = parser.parse_args(argv)

    if args.command == "shot":
        mobile = "android" if args.android else bool(args.mobile)
        print(screenshot(args.url, args.out, args.width, args.height, mobile=mobile, dark=args.dark))
    elif args.command == "qr":
        payloads = decode_qr(args.png)
        for payload in payloads:
            print(payload)
        return 0 if payloads else 1
    elif args.command == "dom":
        mobile = "android" if args.android else bool(args.mobile)
        sys.stdout.write(dump_dom(args.url, mobile=mobile))
    return 0


if __name__ == "__main__":
    sys.exit(_main())

#!/usr/bin/env python3
"""The deployment recipe, end to end: Debian's nginx on loopback with a self-signed certificate, configured from
deploy/nginx/redeem.conf, in front of `redeem serve` configured as deploy/redeem.env.example says. Through nginx over
HTTPS: the universal-link files byte for byte, a purchase's link page and its redemption.
Also checks deploy/redeem.service with systemd-analyze when it is installed.
Usage: nginx_front.py path/to/redeem (nginx and openssl installed). Prints 'N passed, M failed'."""
import http.client as httpclient, json, os, re, shutil, ssl, subprocess, sys, tempfile, uuid

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from support import HANG_GUARD, check, finish, free_port, wait_for  # noqa: E402

BIN = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else ".build/debug/redeem")
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def cli(args, db):
    result = subprocess.run([BIN, *args], capture_output=True, text=True, timeout=HANG_GUARD, env={**os.environ, "REDEEM_DATABASE_URL": db})
    if result.returncode != 0:
        raise RuntimeError(f"redeem {' '.join(args)}: {result.stderr}")
    return result.stdout


def nginx_conf(tmp, https_port, http_port, upstream_port):
    """deploy/nginx/redeem.conf with this test's ports, certificate and paths, inside a minimal main configuration."""
    site = open(os.path.join(ROOT, "deploy/nginx/redeem.conf")).read()
    site = site.replace("server 127.0.0.1:8080;", f"server 127.0.0.1:{upstream_port};")
    site = site.replace("listen 443 ssl http2;", f"listen 127.0.0.1:{https_port} ssl http2;").replace("listen [::]:443 ssl http2;", "")
    site = site.replace("listen 80;", f"listen 127.0.0.1:{http_port};").replace("listen [::]:80;", "")
    site = site.replace("/etc/letsencrypt/live/pay.example.com/fullchain.pem", f"{tmp}/cert.pem")
    site = site.replace("/etc/letsencrypt/live/pay.example.com/privkey.pem", f"{tmp}/key.pem")
    site = site.replace("pay.example.com", "localhost").replace("/var/www/letsencrypt", f"{tmp}/acme")
    # As root, nginx would run its workers as `nobody`, who cannot enter the private temporary directory.
    user = "user root;\n" if os.geteuid() == 0 else ""
    return f"""daemon off;
{user}pid {tmp}/nginx.pid;
error_log {tmp}/error.log warn;
events {{ worker_connections 256; }}
http {{
    access_log {tmp}/access.log;
    client_body_temp_path {tmp}/body;
    proxy_temp_path {tmp}/proxy;
    fastcgi_temp_path {tmp}/fastcgi;
    uwsgi_temp_path {tmp}/uwsgi;
    scgi_temp_path {tmp}/scgi;
    default_type application/octet-stream;
{site}
}}
"""


def fetch(port, method, path, key=None, body=None, headers=None):
    """One HTTPS request to nginx, trusting only the test's certificate; returns (status, headers, body bytes)."""
    context = ssl.create_default_context(cafile=fetch.cafile)
    connection = httpclient.HTTPSConnection("localhost", port, context=context, timeout=HANG_GUARD)
    sent = dict(headers or {})
    if key:
        sent["Authorization"] = f"Bearer {key}"
    data = json.dumps(body).encode() if body is not None else None
    if data is not None:
        sent["Content-Type"] = "application/json"
    connection.request(method, path, body=data, headers=sent)
    response = connection.getresponse()
    answer = (response.status, {k.lower(): v for k, v in response.getheaders()}, response.read())
    connection.close()
    return answer


def main():
    if shutil.which("systemd-analyze"):
        with tempfile.TemporaryDirectory() as tmp:
            unit = open(os.path.join(ROOT, "deploy/redeem.service")).read().replace("/usr/local/bin/redeem", BIN)
            open(f"{tmp}/redeem.service", "w").write(unit)
            verified = subprocess.run(["systemd-analyze", "verify", f"{tmp}/redeem.service"], capture_output=True, text=True)
            check("systemd-analyze verifies deploy/redeem.service", verified.returncode == 0 and not verified.stderr.strip(), verified.stderr)
            # The commented credentials, switched on, as docs/deploy.md says to.
            credentials = unit.replace("#LoadCredential=", "LoadCredential=")
            open(f"{tmp}/redeem-credentials.service", "w").write(credentials)
            verified = subprocess.run(["systemd-analyze", "verify", f"{tmp}/redeem-credentials.service"], capture_output=True, text=True)
            check("systemd-analyze verifies the unit with its LoadCredential= lines switched on",
                  credentials.count("\nLoadCredential=") == 3 and verified.returncode == 0 and not verified.stderr.strip(), verified.stderr)
    else:
        print("skip systemd-analyze: not installed")

    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2", "-subj", "/CN=localhost",
                        "-addext", "subjectAltName=DNS:localhost", "-keyout", f"{tmp}/key.pem", "-out", f"{tmp}/cert.pem"],
                       check=True, capture_output=True)
        fetch.cafile = f"{tmp}/cert.pem"
        os.makedirs(f"{tmp}/acme")
        db = f"sqlite://{tmp}/redeem.sqlite"
        cli(["migrate"], db)
        app = json.loads(cli(["apps", "create", "--name", "Behind nginx", "--ios-team-id", "ABCDE12345", "--ios-bundle-id", "com.example.app",
                              "--redemption-link-policy", "enabled", "--json"], db))
        cli(["products", "create", "--app", app["id"], "--id", "pro", "--type", "subscription", "--period", "P1M", "--entitlement", "pro"], db)

        upstream, https_port, http_port = free_port(), free_port(), free_port()
        public = f"https://localhost:{https_port}"
        env = {**os.environ, "REDEEM_DATABASE_URL": db, "REDEEM_PORT": str(upstream), "REDEEM_PUBLIC_URL": public,
               "REDEEM_TRUSTED_PROXIES": "127.0.0.1,::1", "REDEEM_RATE_LIMIT_PER_IP": "1000"}
        server = subprocess.Popen([BIN, "serve"], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        open(f"{tmp}/nginx.conf", "w").write(nginx_conf(tmp, https_port, http_port, upstream))
        # Its start-up errors (a configuration it refuses) go to standard error, before error_log applies: kept in a file.
        nginx = subprocess.Popen(["nginx", "-p", tmp, "-c", f"{tmp}/nginx.conf"], stdout=subprocess.DEVNULL,
                                 stderr=open(f"{tmp}/nginx.stderr", "w"))
        try:
            # nginx answers 502 until Redeem listens: wait for Redeem's own 200, unless either process died.
            def up():
                try:
                    return fetch(https_port, "GET", "/health")[0] == 200
                except (OSError, httpclient.HTTPException):
                    return False
            wait_for(lambda: nginx.poll() is not None or server.poll() is not None or up())
            if nginx.poll() is not None or server.poll() is not None:
                log = "".join(open(f"{tmp}/{name}").read() for name in ["nginx.stderr", "error.log"] if os.path.exists(f"{tmp}/{name}"))
                raise RuntimeError(f"nginx exited with {nginx.poll()}, redeem serve with {server.poll()}; nginx said:\n{log}")
            status, headers, body = fetch(https_port, "GET", "/health")
            check("nginx answers /health over TLS from Redeem", status == 200 and json.loads(body)["status"] == "ok", (status, body))

            for path in ["/.well-known/apple-app-site-association", "/.well-known/assetlinks.json"]:
                status, headers, body = fetch(https_port, "GET", path)
                direct = subprocess.run(["curl", "-s", f"http://127.0.0.1:{upstream}{path}"], capture_output=True).stdout
                check(f"{path} passes through nginx byte for byte, 200, application/json, no redirect",
                      status == 200 and headers.get("content-type", "").startswith("application/json") and body == direct
                      and "location" not in headers, (status, headers, body[:200], direct[:200]))
            aasa = json.loads(fetch(https_port, "GET", "/.well-known/apple-app-site-association")[2])
            check("the association file names the app", aasa["applinks"]["details"][0]["appIDs"] == ["ABCDE12345.com.example.app"], aasa)

            plain = subprocess.run(["curl", "-s", "-o", "/dev/null", "-w", "%{http_code} %{redirect_url}",
                                    f"http://127.0.0.1:{http_port}/r/abc"], capture_output=True, text=True).stdout
            check("plain HTTP redirects to HTTPS", plain.startswith("301 https://"), plain)

            status, _, body = fetch(https_port, "POST", "/v1/purchases", key=app["keys"]["secret"],
                                    body={"app_user_id": f"$RCAnonymousID:{uuid.uuid4().hex}", "product_id": "pro"},
                                    headers={"Idempotency-Key": str(uuid.uuid4())})
            granted = json.loads(body)
            link = granted.get("redemption_https_url", "")
            check("a purchase through nginx carries an https link on the public URL", status == 201 and link.startswith(public + "/r/"), granted)
            token = link.rsplit("/", 1)[1]
            status, headers, page = fetch(https_port, "GET", f"/r/{token}")
            text = page.decode()
            check("the link page opens through nginx as HTML", status == 200 and headers.get("content-type", "").startswith("text/html"),
                  (status, headers))
            urls = re.findall(r'https?://[^"\'<> ]+/r/' + re.escape(token), text)
            check("the link page's links use the https public URL", urls and all(u.startswith(public) for u in urls), urls)
            status, _, body = fetch(https_port, "POST", "/v1/subscribers/redeem_purchase", key=app["keys"]["public_production"],
                                    body={"app_user_id": "nginx-user", "redemption_token": token})
            redeemed = json.loads(body)
            check("the link redeems through nginx", status == 200 and "pro" in redeemed["subscriber"]["entitlements"], redeemed)

            # nginx writes a request's log line after sending the answer: wait for the line.
            wait_for(lambda: "/v1/subscribers/redeem_purchase" in open(f"{tmp}/access.log").read())
            access = open(f"{tmp}/access.log").read()
            check("nginx logged the requests it proxied", f"/r/{token}" in access and "/v1/subscribers/redeem_purchase" in access)
        finally:
            nginx.terminate()
            server.terminate()
            nginx.wait(timeout=HANG_GUARD)
            server.wait(timeout=HANG_GUARD)
    finish()


main()

"""A real SMTP server on 127.0.0.1 for RedeemMail's tests (aiosmtpd).

Writes each accepted message to DIR/message-N.json: envelope, raw bytes and the parts
parsed with Python's `email` package. Prints "ready PORT" once listening and stops when
stdin closes. Recipients starting with "reject" get 550, with "tempfail" get 451, with "bounceonce" get 550 the first
time and are accepted after (a failed e-mail that a retry delivers).
"""
import argparse
import json
import os
import socket
import ssl
import subprocess
import sys
import threading

try:
    from aiosmtpd.controller import Controller
    from aiosmtpd.smtp import AuthResult
except ImportError:
    print("aiosmtpd-missing: python package aiosmtpd is not installed for %s (pip install aiosmtpd)"
          % sys.executable, flush=True)
    sys.exit(3)

import email
import email.policy


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def make_tls_context(directory):
    cert, key = os.path.join(directory, "cert.pem"), os.path.join(directory, "key.pem")
    subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1",
         "-subj", "/CN=localhost", "-addext", "subjectAltName=IP:127.0.0.1,DNS:localhost",
         "-keyout", key, "-out", cert],
        check=True, capture_output=True)
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    context.load_cert_chain(cert, key)
    return context


def addresses(header):
    return [{"name": a.display_name, "address": a.addr_spec} for a in header.addresses] if header else []


class Handler:
    def __init__(self, directory):
        self.directory = directory
        self.count = 0
        self.lock = threading.Lock()
        self.bounced = set()

    async def handle_RCPT(self, server, session, envelope, address, rcpt_options):
        if address.startswith("reject"):
            return "550 5.1.1 mailbox unavailable"
        if address.startswith("tempfail"):
            return "451 4.3.0 try again later"
        if address.startswith("bounceonce") and address not in self.bounced:
            self.bounced.add(address)
            return "550 5.1.1 mailbox unavailable (this once)"
        envelope.rcpt_tos.append(address)
        return "250 OK"

    async def handle_DATA(self, server, session, envelope):
        raw = envelope.original_content or envelope.content
        message = email.message_from_bytes(raw, policy=email.policy.default)
        parts = [p for p in message.walk() if not p.is_multipart()]
        record = {
            "mail_from": envelope.mail_from,
            "rcpt_tos": envelope.rcpt_tos,
            "raw": raw.decode("ascii", errors="replace"),
            "tls": server.transport.get_extra_info("ssl_object") is not None,
            "auth_mechanism": getattr(session, "redeem_mechanism", None),
            "auth_login": getattr(session, "redeem_login", None),
            "subject": str(message["subject"]),
            "from": addresses(message["from"]),
            "to": addresses(message["to"]),
            "reply_to": addresses(message["reply-to"]),
            "message_id": str(message["message-id"]),
            "date": str(message["date"]),
            "mime_version": str(message["mime-version"]),
            "content_type": message.get_content_type(),
            "parts": [{
                "content_type": p.get_content_type(),
                "charset": p.get_content_charset(),
                "transfer_encoding": str(p["content-transfer-encoding"]),
                "text": p.get_content(),
            } for p in parts],
            "defects": [repr(d) for p in message.walk() for d in p.defects],
        }
        with self.lock:
            self.count += 1
            name = os.path.join(self.directory, "message-%d.json" % self.count)
        with open(name + ".tmp", "w", encoding="utf-8") as f:
            json.dump(record, f)
        os.rename(name + ".tmp", name)
        return "250 Message accepted"


def authenticator(user, password):
    def check(server, session, envelope, mechanism, auth_data):
        session.redeem_mechanism = mechanism
        session.redeem_login = auth_data.login.decode()
        ok = auth_data.login.decode() == user and auth_data.password.decode() == password
        return AuthResult(success=ok, handled=False)  # handled=False: aiosmtpd replies 535 itself
    return check


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--dir", required=True)
    parser.add_argument("--auth-user")
    parser.add_argument("--auth-password")
    parser.add_argument("--auth-mechanism", choices=["PLAIN", "LOGIN"])
    parser.add_argument("--tls", choices=["starttls", "implicit"])
    parser.add_argument("--port", type=int, help="listen here instead of on a free port")
    args = parser.parse_args()

    options = {}
    if args.auth_user is not None:
        options.update(auth_required=True, auth_require_tls=False,
                       authenticator=authenticator(args.auth_user, args.auth_password or ""))
        if args.auth_mechanism:
            options["auth_exclude_mechanism"] = [m for m in ("PLAIN", "LOGIN") if m != args.auth_mechanism]
    if args.tls == "starttls":
        options.update(tls_context=make_tls_context(args.dir), require_starttls=True)
    elif args.tls == "implicit":
        options.update(ssl_context=make_tls_context(args.dir))

    port = args.port or free_port()
    controller = Controller(Handler(args.dir), hostname="127.0.0.1", port=port, **options)
    controller.start()
    print("ready %d" % port, flush=True)
    sys.stdin.read()  # until the test closes our stdin (or dies)
    controller.stop()


if __name__ == "__main__":
    main()

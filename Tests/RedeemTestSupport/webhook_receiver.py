#!/usr/bin/env python3
"""A real HTTP receiver on 127.0.0.1 for webhook tests: records every POST (headers and body) as JSON files in
--dir, answers 500 to the first --fail-first requests and 200 after. Prints "ready <port>"; stops when stdin closes."""
import argparse, json, os, sys, threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--dir", required=True)
    parser.add_argument("--fail-first", type=int, default=0)
    parser.add_argument("--port", type=int, default=0)
    args = parser.parse_args()
    lock = threading.Lock()
    state = {"count": 0}

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self):
            body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
            with lock:
                state["count"] += 1
                n = state["count"]
            status = 500 if n <= args.fail_first else 200
            record = {"n": n, "path": self.path, "status": status, "headers": {k.lower(): v for k, v in self.headers.items()},
                      "body": body.decode("utf-8")}
            # Written whole, then renamed: a reader polling the folder never sees half a record.
            path = os.path.join(args.dir, "request-%04d.json" % n)
            with open(path + ".part", "w") as f:
                json.dump(record, f)
            os.rename(path + ".part", path)
            self.send_response(status)
            self.send_header("Content-Length", "0")
            self.end_headers()

        def log_message(self, *_):
            pass

    server = ThreadingHTTPServer(("127.0.0.1", args.port), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    print("ready %d" % server.server_address[1], flush=True)
    sys.stdin.read()
    server.shutdown()


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""SQLite's writer thread per request: a redemption against the same writes (the redemption benchmark's second
baseline), in alternating 3 s segments (REDEEM_BENCH_ROUNDS, default 4), from the `sqlite-writer` thread's CPU time in
/proc. SQLite runs one write transaction at a time on that thread, so under load it bounds both routes' throughput:
the ratio of its time per request is the throughput ratio a quiet machine tends to. Also prints the checkpoint
thread's time and the throughput ratio of the same segments."""
import os, sys, tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import GENEROUS_LIMITS, SERVERS, seed_links, serve, wrk  # noqa: E402

ROUNDS = int(os.environ.get("REDEEM_BENCH_ROUNDS", "4"))
ROUTES = {"same": "/v1/benchmark/same-writes", "redeem": "/v1/subscribers/redeem_purchase"}


def thread_ticks(pid, name):
    """CPU clock ticks of the process's threads called `name`."""
    total = 0
    for tid in os.listdir(f"/proc/{pid}/task"):
        try:
            if open(f"/proc/{pid}/task/{tid}/comm").read().strip() == name:
                fields = open(f"/proc/{pid}/task/{tid}/stat").read().rsplit(")", 1)[1].split()
                total += int(fields[11]) + int(fields[12])
        except OSError:
            pass
    return total


with tempfile.TemporaryDirectory() as tmp:
    env = {"REDEEM_DATABASE_URL": f"sqlite://{tmp}/bench.sqlite"}
    app, lines = seed_links(env, tmp, 10000, 330000, 330000)

    def write(name, chosen):
        path = os.path.join(tmp, name)
        with open(path, "w") as f:
            f.write("\n".join(chosen) + "\n")
        return path
    # As in redemption.py: the first 10,000 tokens move every purchase once to an identified user, so that both routes
    # measured make a transfer's writes; each segment then has tokens no other used.
    warm = write("warm", lines[:10000])
    rest = lines[30000:]
    share = len(rest) // (2 * ROUNDS)
    key = app["keys"]["public_sandbox"]
    ticks = os.sysconf("SC_CLK_TCK")
    with serve(env, GENEROUS_LIMITS) as base:
        for i in range(3):
            wrk(base, "redeem_tokens.lua", {"TOKENS": warm, "KEY": key, "ROUTE": ROUTES["same"], "USERS": f"warm{i}-"}, seconds=2)
        pid = SERVERS[-1]
        results = {name: [] for name in ROUTES}
        for r in range(ROUNDS):
            for k, (name, route) in enumerate(ROUTES.items()):
                segment = write(f"{name}{r}", rest[(2 * r + k) * share:(2 * r + k + 1) * share])
                writer, checkpointer = thread_ticks(pid, "sqlite-writer"), thread_ticks(pid, "sqlite-ckpt")
                out = wrk(base, "redeem_tokens.lua", {"TOKENS": segment, "KEY": key, "ROUTE": route, "USERS": f"{name}{r}-"}, seconds=3)
                requests = out[0] * 3
                results[name].append(((thread_ticks(pid, "sqlite-writer") - writer) / ticks * 1e6 / requests,
                                      (thread_ticks(pid, "sqlite-ckpt") - checkpointer) / ticks * 1e6 / requests, out[0]))
    for name, segments in results.items():
        print(f"{name:6s}", "  ".join(f"writer {w:.0f} µs, checkpoints {c:.0f} µs, {rps:,.0f} req/s" for w, c, rps in segments))
    median = lambda name: sorted(w for w, _, _ in results[name])[len(results[name]) // 2]
    throughput = sum(s[2] for s in results["redeem"]) / sum(s[2] for s in results["same"])
    print(f"writer µs a request, median: same writes {median('same'):.0f}, redemption {median('redeem'):.0f}; "
          f"ratio {median('same') / median('redeem'):.2f} (throughput ratio of these segments {throughput:.2f})")

#!/usr/bin/env python3
"""The mutation pass (docs/testing.md): breaks the security-relevant code one place at a time, builds, runs the named
suites, and restores the file. Each mutation must make a test fail. Needs PostgreSQL for the cases that run on both
engines (scripts/postgres-up.sh); takes one incremental build per mutation.

    python3 scripts/mutation-pass.py          # every mutation
    python3 scripts/mutation-pass.py M4 M10   # some
"""
import os
import re
import subprocess
import sys

# Each mutation: (id, what it breaks, file, exact old text, new text, test filter)
M = [
 ("M1", "constant-time comparison always says equal", "Sources/RedeemCore/SecretToken.swift",
  "        return diff == 0\n", "        return true\n", "SecretTokenTests|ConsoleTests|TwoFactorTests|PurchasesAPITests"),
 ("M2", "secrets stored in plaintext instead of their SHA-256", "Sources/RedeemCore/SecretToken.swift",
  "        hex(SHA256.hash(data: Data(secret.utf8)))", "        secret", "SecretTokenTests|RedemptionAPITests"),
 ("M3", "console forms accepted without their CSRF token", "Sources/RedeemServer/Console/ConsoleSessionMiddleware.swift",
  "                try FormBody.requireToken(form, session.csrf, expired: \"The form has expired; go back, reload the page and try again.\")",
  "                _ = form", "ConsoleTests|TwoFactorTests"),
 ("M4", "portal forms accepted without their CSRF token", "Sources/RedeemServer/Portal/PortalContext.swift",
  "            try FormBody.requireToken(form, session.csrf, expired: \"The page has expired; go back, reload it and try again.\")",
  "            _ = form", "PortalTests"),
 ("M5", "rate limits never refuse", "Sources/RedeemServer/RateLimits/RateLimiter.swift",
  "    private func check(_ buckets: [(name: String, limit: Int)]) async throws {\n", "    private func check(_ buckets: [(name: String, limit: Int)]) async throws {\n        if !buckets.isEmpty { return }\n", "RateLimitTests|SecurityClaimTests|OfferCodePageTests"),
 ("M6", "Stripe webhook signatures not checked", "Sources/RedeemStripe/StripeSignature.swift",
  "        guard matches else { throw .noMatchingSignature }", "        _ = matches", "StripeSignatureTests|StripeWebhookTests"),
 ("M7", "outgoing webhooks signed with an empty secret", "Sources/RedeemWebhooks/WebhookSignature.swift",
  "    static func signature(body: [UInt8], secret: String, t: Int64) -> String {\n", "    static func signature(body: [UInt8], secret _: String, t: Int64) -> String {\n        let secret = \"\"\n", "WebhookSignatureTests|WebhookTests"),
 ("M8", "console sessions never idle out", "Sources/RedeemCore/Operator.swift",
  "endedAt == nil && now.timeIntervalSince(lastSeen) < idleTimeout && now.timeIntervalSince(createdAt) < maximumAge",
  "endedAt == nil && now.timeIntervalSince(createdAt) < maximumAge", "ConsoleTests|SecurityClaimTests"),
 ("M9", "portal sessions never expire", "Sources/RedeemStore/SQLStore+Portal.swift",
  "WHERE token_hash = \\(tokenHash) AND ended_at IS NULL AND expires_at > \\(now)", "WHERE token_hash = \\(tokenHash) AND ended_at IS NULL", "SecurityClaimTests|PortalTests"),
 ("M10", "portal sign-in links never expire", "Sources/RedeemStore/SQLStore+Portal.swift",
  "AND used_at IS NULL AND expires_at > \\(now)\n                    RETURNING email", "AND used_at IS NULL\n                    RETURNING email", "SecurityClaimTests|PortalTests"),
 ("M11", "authenticator codes work more than once", "Sources/RedeemStore/SQLStore+Operators.swift",
  "AND (totp_last_step IS NULL OR totp_last_step < \\(step))", "", "TwoFactorTests"),
 ("M12", "authenticator codes accepted from any time step", "Sources/RedeemServer/Console/TwoFactor.swift",
  "            if SecretToken.constantTimeEquals(expected, typed) { matched = step }", "            if SecretToken.constantTimeEquals(expected, typed) || step == current { matched = step }", "TwoFactorTests|SecurityClaimTests"),
 ("M13", "redemption links never expire", "Sources/RedeemStore/SQLStore+Redemption.swift",
  "WHERE token_hash = \\(tokenHash) AND app_id = \\(appID) AND consumed_at IS NULL AND expires_at > \\(now)\n            RETURNING purchase_id",
  "WHERE token_hash = \\(tokenHash) AND app_id = \\(appID) AND consumed_at IS NULL\n            RETURNING purchase_id", "RedemptionAPITests|ExpiredLinkTests"),
]


root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
env = dict(os.environ)
env.setdefault("REDEEM_TEST_POSTGRES_URL", "postgres://postgres@127.0.0.1:54329/postgres")


def run(only):
    survived = 0
    for mid, what, path, old, new, tests in M:
        if only and mid not in only:
            continue
        file = os.path.join(root, path)
        source = open(file).read()
        if old not in source:
            print(f"{mid} NOT APPLIED: the text to break is not in {path}", flush=True)
            survived += 1
            continue
        open(file, "w").write(source.replace(old, new, 1))
        try:
            build = subprocess.run(["swift", "build", "--build-tests"], cwd=root, capture_output=True, text=True)
            if build.returncode != 0:
                print(f"{mid} BUILD FAILED\n{build.stdout[-2000:]}", flush=True)
                survived += 1
                continue
            test = subprocess.run(
                ["swift", "test", "--skip-build", "--filter", tests], cwd=root, capture_output=True, text=True, env=env, timeout=1500)
            failed = sorted(set(re.findall(r"✘ Test (\w+)\(", test.stdout)))
            caught = test.returncode != 0 and failed
            survived += 0 if caught else 1
            print(f"{mid} {'caught' if caught else 'SURVIVED'}: {what}: {', '.join(failed[:6])}", flush=True)
        finally:
            open(file, "w").write(source)
    subprocess.run(["swift", "build", "--build-tests"], cwd=root, capture_output=True)
    return survived


if __name__ == "__main__":
    sys.exit(1 if run(set(sys.argv[1:])) else 0)

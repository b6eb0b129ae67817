import Foundation
import RedeemCore

/// The redemption benchmark's yardsticks as use cases, so the controller only reads requests: the single
/// `UPDATE … RETURNING`, and the writes a redemption makes after the rate limit it counts.
struct BenchmarkService: Sendable {
    let store: any BenchmarkStore
    let limiter: RateLimiter
    let clock: any RedeemClock

    /// Whether the token exists (the baseline's one update).
    func baseline(token: String) async throws -> Bool {
        try await store.benchmarkBaseline(tokenHash: SecretToken.hash(token))
    }

    /// The redemption's rate-limit hits, then its rows in one transaction; whether the token could be claimed.
    func sameWrites(appID: String, token: String, appUserID: String?, ip: String?) async throws -> Bool {
        let user = try AppUserID(validating: appUserID ?? "")
        try await limiter.redemption(ip: ip, appID: appID, user: user)
        return try await store.benchmarkSameWrites(
            appID: appID, tokenHash: SecretToken.hash(token), appUserID: user.rawValue, now: clock.now())
    }
}

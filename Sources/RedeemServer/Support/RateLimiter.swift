import Foundation
import RedeemCore
import RedeemStore

/// Fixed-window limits on guessable routes, kept in the database so they hold across instances.
public struct RateLimits: Sendable {
    public var redeemPerIP: Int = 60
    public var redeemPerUser: Int = 20
    public var newLinkPerIP: Int = 10
    public var newLinkPerEmail: Int = 3
    public var window: TimeInterval = 60

    public init() {}
}

struct RateLimiter: Sendable {
    let store: SQLStore
    let limits: RateLimits
    let clock: any RedeemClock

    /// Counts a hit in every bucket; throws 429 with `Retry-After` when any is over its limit.
    func check(_ buckets: [(name: String, limit: Int)]) async throws {
        let now = clock.now()
        var retryAfter: TimeInterval = 0
        for bucket in buckets {
            let (hits, ends) = try await store.hit(bucket: bucket.name, window: limits.window, now: now)
            if hits > bucket.limit { retryAfter = max(retryAfter, ends.timeIntervalSince(now)) }
        }
        guard retryAfter > 0 else { return }
        var error = APIError(.tooManyRequests, code: 7429, message: "Too many attempts; try again later.")
        error.headers[.retryAfter] = String(Int(retryAfter.rounded(.up)))
        throw error
    }
}

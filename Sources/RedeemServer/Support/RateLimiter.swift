import Foundation
import NIOConcurrencyHelpers
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
    /// On SQLite (one server process) hits are counted in memory; on PostgreSQL in the database, so that every
    /// instance sees every hit.
    let counters: MemoryCounters?

    init(store: SQLStore, limits: RateLimits, clock: any RedeemClock, counters: MemoryCounters?) {
        self.store = store
        self.limits = limits
        self.clock = clock
        self.counters = store.database.engine == .sqlite ? counters : nil
    }

    /// Counts a hit in every bucket; throws 429 with `Retry-After` when any is over its limit.
    func check(_ buckets: [(name: String, limit: Int)]) async throws {
        let now = clock.now()
        var retryAfter: TimeInterval = 0
        if let counters {
            for bucket in buckets {
                let (hits, ends) = counters.hit(bucket: bucket.name, window: limits.window, now: now)
                if hits > bucket.limit { retryAfter = max(retryAfter, ends.timeIntervalSince(now)) }
            }
        } else {
            // Every bucket in one statement: one round trip.
            let (hits, ends) = try await store.hit(buckets: buckets.map(\.name), window: limits.window, now: now)
            for bucket in buckets where hits[bucket.name] ?? 0 > bucket.limit {
                retryAfter = max(retryAfter, ends.timeIntervalSince(now))
            }
        }
        guard retryAfter > 0 else { return }
        var error = APIError(.tooManyRequests, code: 7429, message: "Too many attempts; try again later.")
        error.headers[.retryAfter] = String(Int(retryAfter.rounded(.up)))
        throw error
    }
}

/// Fixed-window hit counters in memory, with the same windows as the database's.
final class MemoryCounters: Sendable {
    private let state = NIOLockedValueBox([String: (start: Int64, hits: Int)]())

    func hit(bucket: String, window: TimeInterval, now: Date) -> (hits: Int, windowEnds: Date) {
        let windowMs = Int64(window * 1000)
        let start = now.millisecondsSince1970 / windowMs * windowMs
        let hits = state.withLockedValue { counters -> Int in
            if counters.count > 100_000 { counters = counters.filter { $0.value.start == start } }
            let current = counters[bucket]
            let hits = current?.start == start ? current!.hits + 1 : 1
            counters[bucket] = (start, hits)
            return hits
        }
        return (hits, Date(milliseconds: start + windowMs))
    }
}

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
        let names = buckets.map(\.name)
        // In memory, or every bucket in one statement (one round trip).
        let (hits, ends) = if let counters {
            counters.hit(buckets: names, window: limits.window, now: now)
        } else {
            try await store.hit(buckets: names, window: limits.window, now: now)
        }
        guard buckets.contains(where: { hits[$0.name] ?? 0 > $0.limit }) else { return }
        var error = APIError(.tooManyRequests, code: 7429, message: "Too many attempts; try again later.")
        error.headers[.retryAfter] = String(Int(ends.timeIntervalSince(now).rounded(.up)))
        throw error
    }
}

/// Fixed-window hit counters in memory, with the same windows as the database's.
final class MemoryCounters: Sendable {
    private let state = NIOLockedValueBox([String: (start: Int64, hits: Int)]())

    /// Counts one hit in each bucket (a repeated name once), as `SQLStore.hit(buckets:window:now:)` does.
    func hit(buckets: [String], window: TimeInterval, now: Date) -> (hits: [String: Int], windowEnds: Date) {
        let windowMs = Int64(window * 1000)
        let start = now.millisecondsSince1970 / windowMs * windowMs
        let hits = state.withLockedValue { counters -> [String: Int] in
            if counters.count > 100_000 { counters = counters.filter { $0.value.start == start } }
            var hits: [String: Int] = [:]
            for bucket in buckets where hits[bucket] == nil {
                let current = counters[bucket]
                let count = current?.start == start ? current!.hits + 1 : 1
                counters[bucket] = (start, count)
                hits[bucket] = count
            }
            return hits
        }
        return (hits, Date(milliseconds: start + windowMs))
    }
}

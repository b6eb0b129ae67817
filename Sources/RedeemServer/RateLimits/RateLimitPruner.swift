import Foundation
import Logging
import RedeemCore
import ServiceLifecycle

/// What pruning needs from the database's counters.
protocol RateLimitPruneStore: Sendable {
    func pruneRateLimits(windowsBefore windowStart: Int64, limit: Int) async throws -> Int
}

/// Drops the database's counters of ended windows (PostgreSQL; the memory counters drop theirs as a window ends), so
/// the table holds the current window's buckets rather than every client address, app user and e-mail hash ever
/// counted: an erased customer's hashed address is gone within two windows. Every instance prunes; deleting what is
/// already gone changes nothing. Every bucket is counted in `RateLimits.window`, so a row whose window started before
/// the current one has ended.
struct RateLimitPruner: Service {
    let store: any RateLimitPruneStore
    let window: TimeInterval
    let clock: any RedeemClock
    let logger: Logger
    /// Rows per statement, so one pass never holds many locks for long.
    var batch = 5_000

    /// One pass: every row of an ended window, a batch at a time; how many went.
    @discardableResult
    func prune() async throws -> Int {
        let current = FixedWindow(length: window, containing: clock.now()).start
        var total = 0
        while true {
            let deleted = try await store.pruneRateLimits(windowsBefore: current, limit: batch)
            total += deleted
            if deleted < batch || Task.isCancelled { return total }
        }
    }

    /// A pass once per window, until shutdown.
    func run() async throws {
        let loop = QueueWorkerLoop(interval: .milliseconds(Int64(window * 1000)))
        await loop.run { [self] in
            do { try await prune() } catch { logger.notice("pruning rate-limit counters failed", metadata: ["error": "\(error)"]) }
        }
    }
}

import Foundation
import NIOConcurrencyHelpers
import RedeemCore

/// Fixed-window hit counters in memory, with the same windows as the database's.
///
/// Only the current window's counts are kept, per window length: the first hit of a later window drops the earlier
/// window's counts whole. Pruning then costs nothing per hit, however many buckets a window holds. (Filtering every
/// bucket on each hit once there were many, as this did, cost milliseconds per request under the lock after 100,000
/// distinct users in a minute.)
final class MemoryCounters: RateLimitCounter {
    private struct Window {
        let start: Int64
        var counts: [String: Int] = [:]
    }

    /// Keyed by the window's length in milliseconds.
    private let state = NIOLockedValueBox([Int64: Window]())

    /// Counts one hit in each bucket (a repeated name once), as the database does. A hit stamped in a window that has
    /// already ended (its `now` was read just before another hit's) counts in the current one: never fewer hits.
    func hit(buckets: [String], window: TimeInterval, now: Date) -> (hits: [String: Int], windowEnds: Date) {
        let stamped = FixedWindow(length: window, containing: now)
        let length = stamped.milliseconds
        // The ended window comes out of the lock with the counts, so its buckets are freed outside it.
        let (hits, start, _) = state.withLockedValue { windows -> ([String: Int], Int64, Window?) in
            // Taken out while counted, so its dictionary stays uniquely held and is changed in place.
            var current = windows.removeValue(forKey: length) ?? Window(start: stamped.start)
            var ended: Window?
            if current.start < stamped.start { (ended, current) = (current, Window(start: stamped.start)) }
            var hits: [String: Int] = [:]
            for bucket in buckets where hits[bucket] == nil {
                let count = (current.counts[bucket] ?? 0) + 1
                current.counts[bucket] = count
                hits[bucket] = count
            }
            windows[length] = current
            return (hits, current.start, ended)
        }
        return (hits, Date(milliseconds: start + length))
    }

    /// Buckets held, in every window length (for tests).
    var bucketCount: Int { state.withLockedValue { $0.values.reduce(0) { $0 + $1.counts.count } } }
}

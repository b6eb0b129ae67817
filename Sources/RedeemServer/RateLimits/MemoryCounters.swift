import Foundation
import NIOConcurrencyHelpers
import RedeemCore

/// Fixed-window hit counters in memory, with the same windows as the database's.
final class MemoryCounters: RateLimitCounter {
    private let state = NIOLockedValueBox([String: (start: Int64, hits: Int)]())

    /// Counts one hit in each bucket (a repeated name once), as the database does.
    func hit(buckets: [String], window: TimeInterval, now: Date) -> (hits: [String: Int], windowEnds: Date) {
        let fixed = FixedWindow(length: window, containing: now)
        let start = fixed.start
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
        return (hits, fixed.ends)
    }
}

import Foundation
import NIOConcurrencyHelpers
import RedeemCore

/// What batched counting needs from the database: many hits in each bucket by one statement.
protocol HitBatchStore: Sendable {
    func addHits(_ increments: [String: Int], window: TimeInterval, now: Date) async throws -> (hits: [String: Int], windowEnds: Date)
}

/// The database's counters (PostgreSQL, shared by instances), one statement per batch: hits that arrive while a statement
/// is in flight wait and go together in the next one. A busy bucket's row is then written once per batch, not once per
/// request, and under load a request spends no round trip of its own on rate limits. Each hit still gets its own count,
/// as if it had been counted alone: its bucket's total after the batch, less the batch's hits queued after it.
final class BatchedCounter: RateLimitCounter {
    private struct Hit {
        let buckets: [String]
        let length: TimeInterval
        let now: Date
        let window: FixedWindow
    }

    private enum Wake {
        case counted(Result<[String: Int], any Error>)
        /// No statement is in flight any more: this hit sends the next one, for itself and every hit waiting.
        case lead
    }

    private struct State {
        var leading = false
        var waiting: [(hit: Hit, wake: CheckedContinuation<Wake, Never>)] = []
    }

    private let store: any HitBatchStore
    private let state = NIOLockedValueBox(State())

    init(store: any HitBatchStore) { self.store = store }

    /// How many hits wait behind a statement in flight (for tests).
    var waitingCount: Int { state.withLockedValue { $0.waiting.count } }

    func hit(buckets: [String], window: TimeInterval, now: Date) async throws -> (hits: [String: Int], windowEnds: Date) {
        var seen = Set<String>()
        let hit = Hit(
            buckets: buckets.filter { seen.insert($0).inserted }, length: window, now: now,
            window: FixedWindow(length: window, containing: now))
        let ends = hit.window.ends
        guard !hit.buckets.isEmpty else { return ([:], ends) }
        let wake = await withCheckedContinuation { (continuation: CheckedContinuation<Wake, Never>) in
            let leads = state.withLockedValue { state in
                if state.leading {
                    state.waiting.append((hit, continuation))
                    return false
                }
                state.leading = true
                return true
            }
            if leads { continuation.resume(returning: .lead) }
        }
        switch wake {
        case .counted(let result): return (try result.get(), ends)
        case .lead: return (try await lead(hit).get(), ends)
        }
    }

    /// Sends one statement for `own` and every hit waiting, wakes them with their counts, and hands the lead to the first
    /// hit that arrived meanwhile (or gives it up).
    private func lead(_ own: Hit) async -> Result<[String: Int], any Error> {
        let waiting = state.withLockedValue { state in
            defer { state.waiting = [] }
            return state.waiting
        }
        let results = await count([own] + waiting.map(\.hit))
        for (waiter, result) in zip(waiting, results.dropFirst()) { waiter.wake.resume(returning: .counted(result)) }
        let next = state.withLockedValue { state -> CheckedContinuation<Wake, Never>? in
            if state.waiting.isEmpty {
                state.leading = false
                return nil
            }
            return state.waiting.removeFirst().wake
        }
        next?.resume(returning: .lead)
        return results[0]
    }

    /// Each hit's counts, in order: one statement per window (several only when a batch spans a window's end).
    private func count(_ hits: [Hit]) async -> [Result<[String: Int], any Error>] {
        var results = [Result<[String: Int], any Error>](repeating: .success([:]), count: hits.count)
        let windows = Dictionary(grouping: hits.indices) { hits[$0].window }
        for indices in windows.sorted(by: { $0.key.start < $1.key.start }).map(\.value) {
            var increments: [String: Int] = [:]
            for index in indices { for bucket in hits[index].buckets { increments[bucket, default: 0] += 1 } }
            do {
                let first = hits[indices[0]]
                let totals = try await store.addHits(increments, window: first.length, now: first.now).hits
                var before: [String: Int] = [:]  // each bucket's count before the batch, then after each hit
                for (bucket, added) in increments { before[bucket] = (totals[bucket] ?? added) - added }
                for index in indices {
                    var counts: [String: Int] = [:]
                    for bucket in hits[index].buckets {
                        before[bucket, default: 0] += 1
                        counts[bucket] = before[bucket]
                    }
                    results[index] = .success(counts)
                }
            } catch {
                for index in indices { results[index] = .failure(error) }
            }
        }
        return results
    }
}

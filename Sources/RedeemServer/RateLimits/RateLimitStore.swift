import Foundation

/// Fixed-window hit counters: in the database (shared by instances) or in memory (one process).
protocol RateLimitCounter: Sendable {
    /// Counts one hit in each bucket (a repeated name once); returns each bucket's count and when the window ends.
    func hit(buckets: [String], window: TimeInterval, now: Date) async throws -> (hits: [String: Int], windowEnds: Date)
}

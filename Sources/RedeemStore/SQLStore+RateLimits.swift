import Foundation
import RedeemCore

extension SQLStore {
    /// Counts one hit in `bucket`'s fixed window and returns the count so far and when the window ends.
    public func hit(bucket: String, window: TimeInterval, now: Date) async throws -> (hits: Int, windowEnds: Date) {
        let (hits, ends) = try await hit(buckets: [bucket], window: window, now: now)
        return (hits[bucket] ?? 1, ends)
    }

    /// Counts one hit in each bucket's fixed window; returns each count so far and when the window ends.
    /// One multi-row upsert, outside any transaction (one round trip on PostgreSQL), so concurrent hits from any
    /// instance sharing the database are all counted.
    public func hit(buckets: [String], window: TimeInterval, now: Date) async throws -> (hits: [String: Int], windowEnds: Date) {
        let windowMs = Int64(window * 1000)
        let start = now.millisecondsSince1970 / windowMs * windowMs
        var seen = Set<String>()
        let names = buckets.filter { seen.insert($0).inserted }  // an upsert may touch each row once
        guard !names.isEmpty else { return ([:], Date(milliseconds: start + windowMs)) }
        var text = "INSERT INTO rate_limits (bucket, window_start, hits) VALUES "
        text += names.indices.map { "($\($0 + 2), $1, 1)" }.joined(separator: ", ")
        text += """
             ON CONFLICT (bucket) DO UPDATE SET
                hits = CASE WHEN rate_limits.window_start = excluded.window_start THEN rate_limits.hits + 1 ELSE 1 END,
                window_start = excluded.window_start
            RETURNING bucket, hits
            """
        var sql = SQL(stringLiteral: text)
        sql.binds = [.int(start)] + names.map { .text($0) }
        let statement = sql
        let rows = try await single { try await $0.query(statement) }
        var hits: [String: Int] = [:]
        for row in rows { hits[try row.string("bucket")] = Int(try row.int("hits")) }
        return (hits, Date(milliseconds: start + windowMs))
    }

    /// Drops windows that ended before `date`.
    public func pruneRateLimits(before date: Date) async throws {
        try await write { try await $0.query("DELETE FROM rate_limits WHERE window_start < \(date)") }
    }
}

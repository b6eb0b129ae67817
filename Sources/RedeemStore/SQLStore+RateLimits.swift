import Foundation
import RedeemCore

extension SQLStore {
    /// Counts one hit in `bucket`'s fixed window and returns the count so far and when the window ends.
    public func hit(bucket: String, window: TimeInterval, now: Date) async throws -> (hits: Int, windowEnds: Date) {
        let (hits, ends) = try await hit(buckets: [bucket], window: window, now: now)
        return (hits[bucket] ?? 1, ends)
    }

    /// Counts one hit in each bucket's fixed window; returns each count so far and when the window ends.
    public func hit(buckets: [String], window: TimeInterval, now: Date) async throws -> (hits: [String: Int], windowEnds: Date) {
        try await addHits(Dictionary(buckets.map { ($0, 1) }, uniquingKeysWith: { first, _ in first }), window: window, now: now)
    }

    /// Adds `increments[bucket]` hits to each bucket's fixed window containing `now`; returns each count after it and when
    /// the window ends. One multi-row upsert, outside any transaction (one round trip on PostgreSQL), so concurrent hits
    /// from any instance sharing the database are all counted. Its rows are named in order, so two such statements lock
    /// the rows they share in the same order and never deadlock.
    public func addHits(_ increments: [String: Int], window: TimeInterval, now: Date) async throws -> (hits: [String: Int], windowEnds: Date) {
        let fixed = FixedWindow(length: window, containing: now)
        let names = increments.keys.sorted()
        guard !names.isEmpty else { return ([:], fixed.ends) }
        var text = "INSERT INTO rate_limits (bucket, window_start, hits) VALUES "
        text += names.indices.map { "($\(2 * $0 + 2), $1, $\(2 * $0 + 3))" }.joined(separator: ", ")
        text += """
             ON CONFLICT (bucket) DO UPDATE SET
                hits = CASE WHEN rate_limits.window_start = excluded.window_start THEN rate_limits.hits + excluded.hits ELSE excluded.hits END,
                window_start = excluded.window_start
            RETURNING bucket, hits
            """
        var sql = SQL(stringLiteral: text)
        sql.binds = [.int(fixed.start)] + names.flatMap { [.text($0), .int(Int64(increments[$0] ?? 1))] }
        let statement = sql
        let rows = try await single { try await $0.query(statement) }
        var hits: [String: Int] = [:]
        for row in rows { hits[try row.string("bucket")] = Int(try row.int("hits")) }
        return (hits, fixed.ends)
    }

    /// Drops up to `limit` buckets whose window started before `windowStart` (milliseconds, as `FixedWindow.start`);
    /// returns how many. On PostgreSQL rows a counting statement holds are skipped, not waited for: the upsert locks its
    /// rows in name order and this scan in its own, so waiting could deadlock; a skipped row is the current window's by
    /// the time it is free, or goes on the next pass.
    public func pruneRateLimits(windowsBefore windowStart: Int64, limit: Int = 5_000) async throws -> Int {
        try await single { connection in
            let skipLocked = connection.engine == .postgres ? "FOR UPDATE SKIP LOCKED" : ""
            return try await connection.query(
                """
                DELETE FROM rate_limits WHERE bucket IN (
                    SELECT bucket FROM rate_limits WHERE window_start < \(windowStart) LIMIT \(limit) \(unsafeRaw: skipLocked))
                RETURNING bucket
                """
            ).count
        }
    }
}

import Foundation
import RedeemCore

extension SQLStore {
    /// Counts one hit in `bucket`'s fixed window and returns the count so far and when the window ends.
    /// One upsert, so concurrent hits (from any instance sharing the database) are all counted.
    public func hit(bucket: String, window: TimeInterval, now: Date) async throws -> (hits: Int, windowEnds: Date) {
        let windowMs = Int64(window * 1000)
        let start = now.millisecondsSince1970 / windowMs * windowMs
        let row = try await write { connection in
            try await connection.first("""
                INSERT INTO rate_limits (bucket, window_start, hits) VALUES (\(bucket), \(start), 1)
                ON CONFLICT (bucket) DO UPDATE SET
                    hits = CASE WHEN rate_limits.window_start = excluded.window_start THEN rate_limits.hits + 1 ELSE 1 END,
                    window_start = excluded.window_start
                RETURNING hits
                """)
        }
        return (Int(try row?.int("hits") ?? 1), Date(milliseconds: start + windowMs))
    }

    /// Drops windows that ended before `date`.
    public func pruneRateLimits(before date: Date) async throws {
        try await write { try await $0.query("DELETE FROM rate_limits WHERE window_start < \(date)") }
    }
}

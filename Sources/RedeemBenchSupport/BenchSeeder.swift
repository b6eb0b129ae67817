import Foundation
import RedeemCore
import RedeemStore

/// Fills a database for `benchmarks/redemption.py` and `benchmarks/offer_codes.py`; never part of a server.
public struct BenchSeeder: Sendable {
    public let store: SQLStore

    public init(store: SQLStore) { self.store = store }

    /// Seeds `purchaseCount` purchases of `productID` by anonymous buyers and `tokenCount` live tokens spread over them;
    /// returns the plaintext tokens of the last `keep` tokens (the ones a benchmark redeems).
    ///
    /// The other `tokenCount - keep` tokens are never presented, so they are stored in bulk by the database itself:
    /// their hashes are 32 random bytes in hex (the same shape and distribution as the SHA-256 of a random token),
    /// inserted in key order in large transactions.
    public func seedRedemptionTokens(
        appID: String, productID: String, purchaseCount: Int, tokenCount: Int, keep: Int, now: Date,
        progress: @Sendable (Int) -> Void = { _ in }
    ) async throws -> [String] {
        let purchaseIDs = try await seedPurchases(appID: appID, productID: productID, count: purchaseCount, now: now)
        let expires = now.addingTimeInterval(86_400 * 365)
        let filler = max(0, tokenCount - keep)
        let chunk = 1_000_000
        for start in stride(from: 0, to: filler, by: chunk) {
            let count = min(chunk, filler - start)
            try await seedFillerTokens(appID: appID, count: count, offset: start, now: now, expires: expires)
            progress(start + count)
        }
        // The kept tokens: generated here (their plaintext is needed), hashed, and inserted in key order.
        var kept: [(hash: String, token: String)] = (0..<min(keep, tokenCount)).map { _ in
            let token = RedemptionLink.newToken()
            return (SecretToken.hash(token), token)
        }
        let tokens = kept.map(\.token)
        kept.sort { $0.hash < $1.hash }
        let rowsPerStatement = 500
        let rowsPerTransaction = 50_000
        for start in stride(from: 0, to: kept.count, by: rowsPerTransaction) {
            let slice = Array(kept[start..<min(kept.count, start + rowsPerTransaction)])
            try await store.database.transaction { connection in
                for first in stride(from: 0, to: slice.count, by: rowsPerStatement) {
                    var sql: SQL = "INSERT INTO redemption_tokens (token_hash, app_id, purchase_id, created_at, expires_at) VALUES "
                    var rows: [String] = []
                    for i in first..<min(slice.count, first + rowsPerStatement) {
                        sql.binds += [
                            .text(slice[i].hash), .text(appID), .text(purchaseIDs[(start + i) % purchaseIDs.count]),
                            now.sqlValue, expires.sqlValue,
                        ]
                        let n = sql.binds.count
                        rows.append("($\(n - 4), $\(n - 3), $\(n - 2), $\(n - 1), $\(n))")
                    }
                    sql.text += rows.joined(separator: ", ")
                    try await connection.query(sql)
                }
            }
            progress(filler + min(kept.count, start + rowsPerTransaction))
        }
        return tokens
    }

    private func seedPurchases(appID: String, productID: String, count: Int, now: Date) async throws -> [String] {
        var purchaseIDs: [String] = []
        let batch = 2_000
        for start in stride(from: 0, to: count, by: batch) {
            purchaseIDs += try await store.database.transaction { connection -> [String] in
                var created: [String] = []
                for _ in start..<min(count, start + batch) {
                    let grant = PurchaseGrant(
                        appID: appID, appUserID: AppUserID.anonymous(), productID: productID, store: .rcBilling,
                        isSandbox: true, purchaseDate: now, email: "bench@example.com")
                    created.append(try await SQLStore.insertPurchase(grant, now: now, on: connection).id)
                }
                return created
            }
        }
        return purchaseIDs
    }

    /// `count` never-presented tokens of the app, spread over its purchases, in one transaction.
    private func seedFillerTokens(appID: String, count: Int, offset: Int, now: Date, expires: Date) async throws {
        let engine = store.database.engine
        try await store.database.transaction { connection in
            switch engine {
            case .sqlite:
                try await connection.query("PRAGMA cache_size = -2000000")  // 2 GB: the whole index stays in memory
                try await connection.query("CREATE TEMP TABLE IF NOT EXISTS bench_purchases (n INTEGER PRIMARY KEY, id TEXT NOT NULL)")
                try await connection.query("DELETE FROM bench_purchases")
                try await connection.query(
                    """
                    INSERT INTO bench_purchases (n, id) SELECT row_number() OVER (ORDER BY id) - 1, id FROM purchases WHERE app_id = \(appID)
                    """)
                try await connection.query(
                    """
                    WITH RECURSIVE s(i) AS (SELECT \(offset) UNION ALL SELECT i + 1 FROM s WHERE i + 1 < \(offset + count)),
                        k(n) AS (SELECT COUNT(*) FROM bench_purchases)
                    INSERT INTO redemption_tokens (token_hash, app_id, purchase_id, created_at, expires_at)
                    SELECT lower(hex(randomblob(32))) AS h, \(appID), bp.id, \(now), \(expires)
                    FROM s, k JOIN bench_purchases bp ON bp.n = s.i % k.n ORDER BY h
                    """)
            case .postgres:
                try await connection.query(
                    """
                    WITH ids AS (SELECT array_agg(id ORDER BY id) AS a FROM purchases WHERE app_id = \(appID))
                    INSERT INTO redemption_tokens (token_hash, app_id, purchase_id, created_at, expires_at)
                    SELECT encode(sha256(convert_to(gen_random_uuid()::text || i::text, 'UTF8')), 'hex') AS h, \(appID),
                        ids.a[1 + i % cardinality(ids.a)], \(now), \(expires)
                    FROM ids, generate_series(\(offset), \(offset + count - 1)) AS i ORDER BY h
                    """)
            }
        }
    }
}

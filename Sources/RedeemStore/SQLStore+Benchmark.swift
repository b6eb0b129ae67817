import Foundation
import RedeemCore

extension SQLStore {
    /// The redemption benchmark's baseline: one `UPDATE … RETURNING` on the token table, in a write transaction,
    /// touching nothing a redemption would not.
    public func benchmarkBaseline(tokenHash: String) async throws -> Bool {
        try await write { connection in
            !(try await connection.query("""
                UPDATE redemption_tokens SET created_at = created_at WHERE token_hash = \(tokenHash) RETURNING token_hash
                """)).isEmpty
        }
    }

    /// Seeds `purchaseCount` purchases of `productID` by anonymous buyers and `tokenCount` live tokens spread over them,
    /// in batches; returns the plaintext tokens of the last `keep` tokens (the ones a benchmark redeems).
    public func seedRedemptionTokens(
        appID: String, productID: String, purchaseCount: Int, tokenCount: Int, keep: Int, now: Date,
        progress: @Sendable (Int) -> Void = { _ in }
    ) async throws -> [String] {
        var purchaseIDs: [String] = []
        let batch = 500
        for start in stride(from: 0, to: purchaseCount, by: batch) {
            let ids = try await write { connection -> [String] in
                var created: [String] = []
                for _ in start..<min(purchaseCount, start + batch) {
                    let grant = PurchaseGrant(appID: appID, appUserID: AppUserID.anonymous(), productID: productID, store: .rcBilling,
                                              isSandbox: true, purchaseDate: now, email: "bench@example.com")
                    created.append(try await Self.insertPurchase(grant, now: now, on: connection).id)
                }
                return created
            }
            purchaseIDs += ids
        }
        var kept: [String] = []
        let expires = now.addingTimeInterval(86_400 * 365)
        for start in stride(from: 0, to: tokenCount, by: batch) {
            let end = min(tokenCount, start + batch)
            var tokens: [String] = []
            var sql: SQL = "INSERT INTO redemption_tokens (token_hash, app_id, purchase_id, created_at, expires_at) VALUES "
            var rows: [String] = []
            for i in start..<end {
                let token = RedemptionLink.newToken()
                if i >= tokenCount - keep { tokens.append(token) }
                for value in [SecretToken.hash(token), appID, purchaseIDs[i % purchaseIDs.count]] { sql.binds.append(.text(value)) }
                sql.binds.append(now.sqlValue)
                sql.binds.append(expires.sqlValue)
                let n = sql.binds.count
                rows.append("($\(n - 4), $\(n - 3), $\(n - 2), $\(n - 1), $\(n))")
            }
            sql.text += rows.joined(separator: ", ")
            let statement = sql
            try await write { try await $0.query(statement) }
            kept += tokens
            progress(end)
        }
        return kept
    }
}

import Foundation
import RedeemCore

extension SQLStore {
    /// The redemption benchmark's first baseline: one `UPDATE … RETURNING` on the token table, in a write transaction,
    /// touching nothing a redemption would not.
    public func benchmarkBaseline(tokenHash: String) async throws -> Bool {
        try await write { connection in
            !(try await connection.query(
                """
                UPDATE redemption_tokens SET created_at = created_at WHERE token_hash = \(tokenHash) RETURNING token_hash
                """)).isEmpty
        }
    }

    /// The second baseline: the writes a redemption by a new, identified app user makes (the benchmark's case), in one
    /// transaction, with no reads, rules or JSON: the token consumed, the claimant's customer and alias inserted, the
    /// purchase moved to it, the attempt recorded. (On PostgreSQL the customer-version triggers fire as they do then.)
    public func benchmarkSameWrites(appID: String, tokenHash: String, appUserID: String, now: Date) async throws -> Bool {
        try await write { connection in
            guard
                let claimed = try await connection.first(
                    """
                    UPDATE redemption_tokens SET consumed_at = \(now), consumed_by = \(appUserID)
                    WHERE token_hash = \(tokenHash) AND app_id = \(appID) AND consumed_at IS NULL RETURNING purchase_id
                    """)
            else { return false }
            let purchaseID = try claimed.string("purchase_id")
            let customerID = Identifier.make(prefix: "cus")
            try await connection.query(
                """
                INSERT INTO customers (id, app_id, original_app_user_id, first_seen, last_seen)
                VALUES (\(customerID), \(appID), \(appUserID), \(now), \(now))
                """)
            try await connection.query(
                """
                INSERT INTO customer_aliases (app_id, app_user_id, customer_id, created_at) VALUES (\(appID), \(appUserID), \(customerID), \(now))
                """)
            try await connection.query("UPDATE purchases SET customer_id = \(customerID) WHERE id = \(purchaseID)")
            try await connection.query(
                """
                INSERT INTO redemption_attempts (id, app_id, purchase_id, app_user_id, outcome, created_at)
                VALUES (\(Identifier.make(prefix: "att")), \(appID), \(purchaseID), \(appUserID), 'redeemed', \(now))
                """)
            return true
        }
    }
}

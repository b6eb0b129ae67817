import Foundation
import RedeemCore

extension SQLStore {
    /// The redemption benchmark's baseline: one `UPDATE … RETURNING` on the token table, in a write transaction,
    /// touching nothing a redemption would not.
    public func benchmarkBaseline(tokenHash: String) async throws -> Bool {
        try await write { connection in
            !(try await connection.query(
                """
                UPDATE redemption_tokens SET created_at = created_at WHERE token_hash = \(tokenHash) RETURNING token_hash
                """)).isEmpty
        }
    }
}

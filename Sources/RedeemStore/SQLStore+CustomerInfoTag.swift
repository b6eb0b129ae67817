import Foundation
import RedeemCore

extension SQLStore {
    /// What a cached Customer Info must still match to be served, read before the data it guards.
    ///
    /// On SQLite, the database's change token: any commit, by any connection or process, moves it. On PostgreSQL,
    /// where other instances commit unseen, the customer's and its app catalog's versions, which triggers move with
    /// every change (migration 17), read in one round trip: a redemption on one instance is seen by the next
    /// Customer Info on every other. Nil for a customer not seen yet (nothing is cached for it).
    public func customerInfoTag(appID: String, appUserID: AppUserID) async throws -> String? {
        if let token = try await database.changeToken() { return "commit \(token)" }
        return try await read { connection in
            guard
                let row = try await connection.first(
                    """
                    SELECT c.id, c.info_version, ap.catalog_version FROM customer_aliases a
                    JOIN customers c ON c.id = a.customer_id JOIN apps ap ON ap.id = a.app_id
                    WHERE a.app_id = \(appID) AND a.app_user_id = \(appUserID.rawValue)
                    """)
            else { return nil }
            return "\(try row.string("id")) \(try row.int("info_version")) \(try row.int("catalog_version"))"
        }
    }
}

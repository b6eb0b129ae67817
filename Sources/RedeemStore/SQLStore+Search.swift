import Foundation
import RedeemCore

/// A customer found by the console's search, and what matched.
public struct CustomerMatch: Hashable, Sendable {
    public let customerID: String
    public let originalAppUserID: String
    public let lastSeen: Date
    /// What the query matched: "app user ID", "e-mail", "e-mail attribute" (`$email`), "purchase ID", "store transaction ID", "Stripe checkout
    /// session" or "Stripe reference".
    public let matched: String
}

extension SQLStore {
    /// Customers of an app that one query names, by exact value: an app user ID or alias, a purchase's e-mail or the
    /// `$email` attribute (any case),
    /// a purchase ID, a store transaction ID, a Stripe Checkout Session ID or the Stripe reference (subscription or
    /// payment) a purchase was made with. Every branch is an index lookup.
    public func searchCustomers(appID: String, query: String, limit: Int, offset: Int) async throws -> [CustomerMatch] {
        let q = query.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !q.isEmpty else { return [] }
        let email = q.lowercased()
        return try await read { connection in
            try await connection.query(
                """
                SELECT c.id, c.original_app_user_id, c.last_seen, m.matched FROM (
                    SELECT customer_id, 'app user ID' AS matched FROM customer_aliases WHERE app_id = \(appID) AND app_user_id = \(q)
                    UNION SELECT customer_id, 'e-mail' FROM purchases WHERE app_id = \(appID) AND LOWER(email) = \(email)
                    UNION SELECT sa.customer_id, 'e-mail attribute' FROM subscriber_attributes sa JOIN customers c ON c.id = sa.customer_id
                        WHERE sa.key = \("$email") AND LOWER(sa.value) = \(email) AND c.app_id = \(appID)
                    UNION SELECT customer_id, 'purchase ID' FROM purchases WHERE app_id = \(appID) AND id = \(q)
                    UNION SELECT customer_id, 'store transaction ID' FROM purchases WHERE app_id = \(appID) AND store_transaction_id = \(q)
                    UNION SELECT customer_id, 'Stripe checkout session' FROM purchases WHERE app_id = \(appID) AND checkout_reference = \(q)
                    UNION SELECT customer_id, 'Stripe reference' FROM purchases WHERE app_id = \(appID) AND payment_reference = \(q)
                ) m JOIN customers c ON c.id = m.customer_id
                ORDER BY c.last_seen DESC, c.id, m.matched LIMIT \(limit) OFFSET \(offset)
                """
            ).map {
                CustomerMatch(
                    customerID: try $0.string("id"), originalAppUserID: try $0.string("original_app_user_id"),
                    lastSeen: try $0.date("last_seen"), matched: try $0.string("matched"))
            }
        }
    }

    /// A customer of an app by its ID, with its aliases.
    public func customer(appID: String, id: String) async throws -> Customer {
        try await read { connection in
            guard let row = try await connection.first("SELECT * FROM customers WHERE app_id = \(appID) AND id = \(id)") else {
                throw StoreError.notFound("customer '\(id)'")
            }
            var customer = try Customer(row: row)
            customer.aliases = try await Self.aliases(customerID: customer.id, on: connection)
            return customer
        }
    }
}

import Foundation
import RedeemCore

/// Everything stored about one customer, as facts: what the console's customer page, its history and the export read.
public struct CustomerFacts: Sendable {
    public struct Link: Hashable, Sendable {
        public let purchaseID: String
        public let link: IssuedLink
    }

    public struct Attempt: Hashable, Sendable {
        /// The purchase whose link was tried, if the attempt named one.
        public let purchaseID: String?
        public let attempt: RedemptionAttempt
    }

    public struct Email: Sendable {
        public let email: QueuedEmail
        public let sentAt: Date?
        public let failedAt: Date?
        public let lastError: String?
    }

    public struct Webhook: Sendable {
        public let delivery: WebhookDelivery
        /// The purchase's store transaction the event is filed under.
        public let transactionID: String?
    }

    public var customer: Customer
    public var attributes: [SubscriberAttributeRecord]
    /// Oldest first.
    public var purchases: [Purchase]
    public var links: [Link]
    public var attempts: [Attempt]
    public var emails: [Email]
    /// Deliveries of events about the customer's purchases (one per endpoint).
    public var webhooks: [Webhook]
    /// Audit entries about the customer or their purchases.
    public var audit: [AuditEntry]
    /// The offering the app's backend chose as this customer's current one.
    public var offeringOverride: OfferingOverride?
    /// Their subscriptions' switches of plan, oldest first.
    public var planChanges: [PlanChange.Record] = []
}

/// A customer for the console's list, with the purchases its filters judge.
public struct CustomerListing: Sendable {
    public let customer: Customer
    public let purchases: [Purchase]

    /// The address of their latest purchase that has one: the person, as the list names them.
    public var email: String? { purchases.reversed().lazy.compactMap(\.email).first }
}

extension SQLStore {
    /// At most this many of each kind of fact per customer: a customer's page stays bounded however busy they were.
    public static let customerFactLimit = 1000

    /// Everything about the customer `id` of `appID` (not found: `StoreError.notFound`), read on one connection.
    public func customerFacts(appID: String, customerID: String) async throws -> CustomerFacts {
        let limit = Self.customerFactLimit
        return try await read { connection in
            guard let row = try await connection.first("SELECT * FROM customers WHERE app_id = \(appID) AND id = \(customerID)") else {
                throw StoreError.notFound("customer '\(customerID)'")
            }
            var customer = try Customer(row: row)
            customer.aliases = try await Self.aliases(customerID: customer.id, on: connection)
            let attributes = try await connection.query(
                "SELECT key, value, updated_at, from_backend FROM subscriber_attributes WHERE customer_id = \(customer.id)"
            ).map {
                SubscriberAttributeRecord(
                    key: try $0.string("key"), value: try $0.string("value"), updatedAt: try $0.date("updated_at"),
                    fromBackend: try $0.bool("from_backend"))
            }.sorted { $0.key < $1.key }
            let purchases = try await connection.query(
                "SELECT * FROM purchases WHERE customer_id = \(customer.id) ORDER BY purchase_date, id"
            ).map(Purchase.init(row:))
            var facts = CustomerFacts(
                customer: customer, attributes: attributes, purchases: purchases, links: [], attempts: [], emails: [], webhooks: [],
                audit: [])
            let ids = Self.list(customer.aliases.isEmpty ? [customer.originalAppUserID] : customer.aliases)
            let attemptsAbout: SQL
            if purchases.isEmpty {
                attemptsAbout = "app_user_id IN \(sql: ids)"
            } else {
                let inPurchases = Self.list(purchases.map(\.id))
                attemptsAbout = "(purchase_id IN \(sql: inPurchases) OR app_user_id IN \(sql: ids))"
                facts.links = try await connection.query(
                    """
                    SELECT * FROM redemption_tokens WHERE app_id = \(appID) AND purchase_id IN \(sql: inPurchases)
                    ORDER BY created_at DESC LIMIT \(limit)
                    """
                ).map { row in
                    CustomerFacts.Link(
                        purchaseID: try row.string("purchase_id"),
                        link: IssuedLink(
                            createdAt: try row.date("created_at"), expiresAt: try row.date("expires_at"), openedAt: row.optionalDate("opened_at"),
                            redeemedAt: row.optionalDate("consumed_at"), redeemedBy: row.optionalString("consumed_by")))
                }
                facts.emails = try await connection.query(
                    """
                    SELECT * FROM email_outbox WHERE purchase_id IN \(sql: inPurchases) ORDER BY created_at DESC, id DESC LIMIT \(limit)
                    """
                ).map { row in
                    CustomerFacts.Email(
                        email: try QueuedEmail(row: row), sentAt: row.optionalDate("sent_at"), failedAt: row.optionalDate("failed_at"),
                        lastError: row.optionalString("last_error"))
                }
                facts.webhooks = try await connection.query(
                    """
                    SELECT * FROM webhook_deliveries WHERE app_id = \(appID) AND transaction_id IN \(sql: Self.list(purchases.map(\.storeTransactionID)))
                    ORDER BY created_at DESC, id DESC LIMIT \(limit)
                    """
                ).map { CustomerFacts.Webhook(delivery: try WebhookDelivery(row: $0), transactionID: $0.optionalString("transaction_id")) }
                facts.planChanges = try await connection.query(
                    "SELECT * FROM plan_changes WHERE purchase_id IN \(sql: inPurchases) ORDER BY changed_at, id LIMIT \(limit)"
                ).map { row in
                    PlanChange.Record(
                        purchaseID: try row.string("purchase_id"), at: try row.date("changed_at"), fromProductID: try row.string("from_product_id"),
                        fromPrice: row.price(micros: "from_price_amount_micros", currency: "from_price_currency"),
                        toProductID: try row.string("to_product_id"))
                }
            }
            facts.attempts = try await connection.query(
                """
                SELECT * FROM redemption_attempts WHERE app_id = \(appID) AND \(sql: attemptsAbout)
                ORDER BY created_at DESC, id DESC LIMIT \(limit)
                """
            ).map { row in
                CustomerFacts.Attempt(
                    purchaseID: row.optionalString("purchase_id"),
                    attempt: RedemptionAttempt(
                        id: try row.string("id"), appUserID: try row.string("app_user_id"), outcome: try row.string("outcome"),
                        createdAt: try row.date("created_at")))
            }
            var about: SQL = "(object_type = 'customer' AND object_id = \(customer.id))"
            if !purchases.isEmpty { about = "\(sql: about) OR (object_type = 'purchase' AND object_id IN \(sql: Self.list(purchases.map(\.id))))" }
            facts.offeringOverride = try await Self.offeringOverride(customerID: customer.id, on: connection)
            facts.audit = try await connection.query(
                "SELECT * FROM audit_log WHERE app_id = \(appID) AND (\(sql: about)) ORDER BY at DESC, id DESC LIMIT \(limit)"
            ).map(AuditEntry.init(row:))
            return facts
        }
    }

    /// Up to `limit` customers of `appID` by latest activity (`last_seen`), newest first, after the cursor `before`
    /// (last seen, customer ID), each with its purchases. The owners an erasure leaves behind (`erased_at`; no ID
    /// reaches them) are not listed.
    public func recentCustomers(appID: String, before: (Date, String)?, limit: Int) async throws -> [CustomerListing] {
        try await read { connection in
            var sql: SQL =
                "SELECT c.* FROM customers c WHERE c.app_id = \(appID) AND c.erased_at IS NULL"
            if let (at, id) = before { sql = "\(sql: sql) AND (c.last_seen < \(at) OR (c.last_seen = \(at) AND c.id < \(id)))" }
            let customers = try await connection.query("\(sql: sql) ORDER BY c.last_seen DESC, c.id DESC LIMIT \(limit)").map(Customer.init(row:))
            guard !customers.isEmpty else { return [] }
            var owned: [String: [Purchase]] = [:]
            for purchase in try await connection.query(
                "SELECT * FROM purchases WHERE customer_id IN \(sql: Self.list(customers.map(\.id))) ORDER BY purchase_date, id"
            ).map(Purchase.init(row:)) {
                owned[purchase.customerID, default: []].append(purchase)
            }
            return customers.map { CustomerListing(customer: $0, purchases: owned[$0.id] ?? []) }
        }
    }
}

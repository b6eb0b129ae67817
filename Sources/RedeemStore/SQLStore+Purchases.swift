import Foundation
import RedeemCore
import RedeemWebhooks

extension SQLStore {
    public func grant(_ grant: PurchaseGrant, idempotency: Idempotency?, now: Date) async throws -> GrantResult {
        try await self.grant(grant, idempotency: idempotency, now: now, audit: nil)
    }

    /// Records a purchase once per idempotency key; `audit`, when given, is recorded with it, naming the new purchase.
    public func grant(_ grant: PurchaseGrant, idempotency: Idempotency?, now: Date, audit: AuditEntry?) async throws -> GrantResult {
        do {
            return try await grantOnce(grant, idempotency: idempotency, now: now, audit: audit)
        } catch let error as StoreError where error.isConflict && idempotency != nil {
            // A concurrent request with the same key committed first; this attempt now finds its result.
            return try await grantOnce(grant, idempotency: idempotency, now: now, audit: audit)
        }
    }

    func grantOnce(_ grant: PurchaseGrant, idempotency: Idempotency?, now: Date, audit: AuditEntry?) async throws -> GrantResult {
        try await write { connection in
            if let idempotency,
                let row = try await connection.first(
                    """
                    SELECT request_hash, resource_id FROM idempotency_keys
                    WHERE app_id = \(grant.appID) AND idempotency_key = \(idempotency.key)
                    """)
            {
                guard SecretToken.constantTimeEquals(try row.string("request_hash"), idempotency.fingerprint) else {
                    throw StoreError.idempotencyMismatch
                }
                return GrantResult(
                    purchase: try await Self.purchase(appID: grant.appID, id: try row.string("resource_id"), on: connection), created: false)
            }
            let purchase = try await Self.insertPurchase(grant, now: now, on: connection)
            try await Self.emitPurchase(purchase, now: now, on: connection)
            if var audit {
                audit.objectID = purchase.id
                try await Self.insertAudit(audit, on: connection)
            }
            if let idempotency {
                try await connection.query(
                    """
                    INSERT INTO idempotency_keys (app_id, idempotency_key, request_hash, resource_id, created_at)
                    VALUES (\(grant.appID), \(idempotency.key), \(idempotency.fingerprint), \(purchase.id), \(now))
                    """)
            }
            return GrantResult(purchase: purchase, created: true)
        }
    }

    public func purchase(appID: String, id: String) async throws -> Purchase {
        try await read { try await Self.purchase(appID: appID, id: id, on: $0) }
    }

    /// The purchase any of whose payments is `reference` (a Stripe payment intent), as a dispute names it.
    public func purchase(paidWith reference: String) async throws -> Purchase? {
        try await read { try await Self.purchase(paidWith: reference, on: $0) }
    }

    static func purchase(paidWith reference: String, on connection: any SQLConnection) async throws -> Purchase? {
        try await connection.first(
            "SELECT p.* FROM purchase_payments pp JOIN purchases p ON p.id = pp.purchase_id WHERE pp.reference = \(reference)"
        ).map(Purchase.init(row:))
    }

    static func purchase(paymentReference reference: String, on connection: any SQLConnection) async throws -> Purchase? {
        try await connection.first("SELECT * FROM purchases WHERE payment_reference = \(reference)").map(Purchase.init(row:))
    }

    public func purchases(customerID: String) async throws -> [Purchase] {
        try await read { connection in
            try await connection.query("SELECT * FROM purchases WHERE customer_id = \(customerID) ORDER BY purchase_date, id")
                .map(Purchase.init(row:))
        }
    }

    public func customerInfo(appID: String, appUserID: AppUserID, now: Date) async throws -> CustomerInfo {
        // The hot path: one statement reads the customer, purchases, products and entitlements.
        var snapshot = try await read { try await Self.snapshot(appID: appID, appUserID: appUserID, on: $0) }
        if snapshot == nil || now.timeIntervalSince(snapshot!.customer.lastSeen) >= lastSeenResolution {
            _ = try await write { try await Self.resolveOrCreate(appID: appID, appUserID: appUserID, now: now, on: $0) }
            snapshot = try await read { try await Self.snapshot(appID: appID, appUserID: appUserID, on: $0) }
        }
        guard let snapshot else { throw StoreError.conflict("customer '\(appUserID)' changed concurrently") }
        return CustomerInfo(customer: snapshot.customer, purchases: snapshot.purchases, products: snapshot.products, requestDate: now)
    }

    /// The CustomerInfo as an operator looks at it: read only, so looking is not a sighting (`last_seen` stays).
    public func observedCustomerInfo(appID: String, appUserID: AppUserID, now: Date) async throws -> CustomerInfo {
        guard let snapshot = try await read({ try await Self.snapshot(appID: appID, appUserID: appUserID, on: $0) }) else {
            throw StoreError.notFound("customer '\(appUserID)'")
        }
        return CustomerInfo(customer: snapshot.customer, purchases: snapshot.purchases, products: snapshot.products, requestDate: now)
    }

    struct Snapshot: Sendable {
        var customer: Customer
        var purchases: [Purchase] = []
        var products: [String: Product] = [:]
    }

    /// The customer `appUserID` resolves to, with every purchase and the products behind them; nil when unknown.
    /// `write`, an INSERT that changes none of this, runs first: on PostgreSQL as a CTE of the same statement.
    static func snapshot(
        appID: String, appUserID: AppUserID, writing write: SQL? = nil, on connection: any SQLConnection
    ) async throws
        -> Snapshot?
    {
        var prefix: SQL = ""
        if let write {
            if connection.engine == .postgres {
                prefix = "WITH written AS (\(sql: write) RETURNING 1) "
            } else {
                try await connection.query(write)
            }
        }
        let rows = try await connection.query(
            """
            \(sql: prefix)SELECT c.id AS customer_ref, c.original_app_user_id, c.first_seen, c.last_seen, p.*,
                pr.type AS product_type, pr.period AS product_period, pr.display_name AS product_display_name, pe.entitlement_id
            FROM customer_aliases a
            JOIN customers c ON c.id = a.customer_id
            LEFT JOIN purchases p ON p.customer_id = c.id
            LEFT JOIN products pr ON pr.app_id = p.app_id AND pr.id = p.product_id
            LEFT JOIN product_entitlements pe ON pe.app_id = pr.app_id AND pe.product_id = pr.id
            WHERE a.app_id = \(appID) AND a.app_user_id = \(appUserID.rawValue)
            ORDER BY p.purchase_date, p.id, pe.entitlement_id
            """)
        return try snapshot(appID: appID, rows: rows)
    }

    /// A snapshot from rows shaped as `snapshot(appID:appUserID:)` reads them: the customer's columns (`customer_ref`,
    /// `original_app_user_id`, `first_seen`, `last_seen`), then a purchase's, its product's and one entitlement each.
    static func snapshot(appID: String, rows: [SQLRow]) throws -> Snapshot? {
        guard let first = rows.first else { return nil }
        var snapshot = Snapshot(
            customer: Customer(
                id: try first.string("customer_ref"), appID: appID, originalAppUserID: try first.string("original_app_user_id"),
                aliases: [], firstSeen: try first.date("first_seen"), lastSeen: try first.date("last_seen")
            ))
        for row in rows where row.optionalString("id") != nil {
            let purchase = try Purchase(row: row)
            if snapshot.purchases.last?.id != purchase.id { snapshot.purchases.append(purchase) }
            if snapshot.products[purchase.productID] == nil {
                snapshot.products[purchase.productID] = Product(
                    appID: appID, id: purchase.productID, type: try row.enumeration("product_type"),
                    period: row.optionalString("product_period"), displayName: row.optionalString("product_display_name"),
                    entitlements: [], createdAt: purchase.createdAt
                )
            }
            if let entitlement = row.optionalString("entitlement_id"),
                snapshot.products[purchase.productID]?.entitlements.contains(entitlement) == false
            {
                snapshot.products[purchase.productID]?.entitlements.append(entitlement)
            }
        }
        return snapshot
    }

    /// `INITIAL_PURCHASE` or `NON_RENEWING_PURCHASE`, in the purchase's transaction.
    /// Nothing is read for it when the app has no live endpoint.
    static func emitPurchase(_ purchase: Purchase, now: Date, on connection: any SQLConnection) async throws {
        guard try await hasLiveEndpoint(appID: purchase.appID, on: connection) else { return }
        guard let product = try await products(appID: purchase.appID, ids: [purchase.productID], on: connection).first else { return }
        let customer = try await eventCustomer(id: purchase.customerID, on: connection)
        try await emit(.purchase(purchase, customer: customer, product: product, eventID: eventID(), at: now), on: connection, now: now)
    }

    /// `locking`: inside a write transaction that decides from the row, held until it commits (PostgreSQL; SQLite's
    /// writer is alone), so a second request at once (a double click) decides from what the first wrote.
    static func purchase(appID: String, id: String, locking: Bool = false, on connection: any SQLConnection) async throws -> Purchase {
        let lock = locking && connection.engine == .postgres ? "FOR UPDATE" : ""
        guard let row = try await connection.first("SELECT * FROM purchases WHERE app_id = \(appID) AND id = \(id) \(unsafeRaw: lock)") else {
            throw StoreError.notFound("purchase '\(id)'")
        }
        return try Purchase(row: row)
    }

    /// Inside a write transaction: records `grant` for its customer (created if new).
    /// Callers that already hold the product and the grant's customer pass them, saving two reads.
    package static func insertPurchase(
        _ grant: PurchaseGrant, product known: Product? = nil, customer resolved: Customer? = nil, now: Date, on connection: any SQLConnection
    ) async throws -> Purchase {
        var product = known
        if product == nil { product = try await products(appID: grant.appID, ids: [grant.productID], on: connection).first }
        guard let product else { throw StoreError.notFound("product '\(grant.productID)'") }
        var customer = resolved
        if customer == nil { customer = try await resolveOrCreate(appID: grant.appID, appUserID: grant.appUserID, now: now, on: connection) }
        guard let customer else { throw StoreError.notFound("customer '\(grant.appUserID.rawValue)'") }
        let (purchase, insert) = try purchaseInsert(grant, product: product, customerID: customer.id, now: now)
        try await connection.query(insert)
        return purchase
    }

    /// The purchase a grant of `product` to the customer makes, and the statement that inserts it.
    static func purchaseInsert(_ grant: PurchaseGrant, product: Product, customerID: String, now: Date) throws -> (Purchase, SQL) {
        var expires: Date? = nil
        if product.type == .subscription {
            // Granted entitlements' products have no period: the grant names its end, or none for lifetime.
            expires = try grant.expiresDate ?? product.period.map { try ISO8601Period(parsing: $0).advance(grant.purchaseDate) }
        }
        var purchase = Purchase(
            id: Identifier.make(prefix: "pur"), appID: grant.appID, customerID: customerID, productID: product.id,
            store: grant.store, isSandbox: grant.isSandbox, purchaseDate: grant.purchaseDate,
            originalPurchaseDate: grant.purchaseDate, expiresDate: expires, periodType: grant.periodType,
            storeTransactionID: grant.storeTransactionID ?? Identifier.make(prefix: "txn"), price: grant.price,
            email: grant.email, createdAt: now
        )
        purchase.customParams = grant.customParams
        purchase.offer = grant.offer
        purchase.language = grant.language
        purchase.termsConsent = grant.termsConsent
        return (purchase, try purchaseInsert(purchase, checkoutReference: grant.checkoutReference))
    }

    /// The statement that inserts `purchase` (an offer claim's effects hold the row, not the grant).
    static func purchaseInsert(_ purchase: Purchase, checkoutReference: String?) throws -> SQL {
        let params = purchase.customParams.isEmpty ? nil : String(decoding: try JSONEncoder.sorted.encode(purchase.customParams), as: UTF8.self)
        return """
            INSERT INTO purchases (id, app_id, customer_id, product_id, store, is_sandbox, purchase_date, original_purchase_date,
                expires_date, period_type, store_transaction_id, price_amount_micros, price_currency, email, custom_params,
                checkout_reference, offer_id, offer_code_ref_name, offer_discount_type, offer_period, language, terms_accepted_at,
                terms_url, created_at)
            VALUES (\(purchase.id), \(purchase.appID), \(purchase.customerID), \(purchase.productID), \(purchase.store.rawValue),
                \(purchase.isSandbox), \(purchase.purchaseDate), \(purchase.originalPurchaseDate), \(purchase.expiresDate),
                \(purchase.periodType.rawValue), \(purchase.storeTransactionID), \(purchase.price?.amountMicros),
                \(purchase.price?.currency), \(purchase.email), \(params), \(checkoutReference), \(purchase.offer?.offerID),
                \(purchase.offer?.referenceName), \(purchase.offer?.discountType.rawValue), \(purchase.offer?.period), \(purchase.language),
                \(purchase.termsConsent?.acceptedAt), \(purchase.termsConsent?.termsURL), \(purchase.createdAt))
            """
    }
}

extension SQLStore {
    /// The app's purchases billed to `email` (compared case-insensitively), or made by a customer whose backend set it as
    /// their `$email`, refunded ones included, newest first.
    public func purchases(appID: String, email: String) async throws -> [Purchase] {
        let email = email.lowercased()
        return try await read { connection in
            try await connection.query(
                """
                SELECT * FROM purchases WHERE id IN (
                    SELECT id FROM purchases WHERE app_id = \(appID) AND LOWER(email) = \(email)
                    UNION SELECT p.id FROM subscriber_attributes sa JOIN customers c ON c.id = sa.customer_id
                    JOIN purchases p ON p.customer_id = sa.customer_id
                    WHERE sa.key = \("$email") AND LOWER(sa.value) = \(email) AND sa.from_backend = 1 AND c.app_id = \(appID))
                ORDER BY purchase_date DESC, id LIMIT 20
                """
            ).map(Purchase.init(row:))
        }
    }
}

extension JSONEncoder {
    /// Deterministic JSON for stored values.
    static var sorted: JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return encoder
    }
}

extension SQLStore {
    /// The purchase a checkout produced, once it has been recorded.
    public func purchase(appID: String, checkoutReference: String) async throws -> Purchase? {
        try await read { connection in
            try await connection.first(
                """
                SELECT * FROM purchases WHERE app_id = \(appID) AND checkout_reference = \(checkoutReference)
                """
            ).map(Purchase.init(row:))
        }
    }
}

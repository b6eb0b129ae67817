import Foundation
import RedeemCore
import RedeemWebhooks

/// A product's prices per currency (`product_prices`) and its free trial (`products.trial_days`). The default row is
/// the product's `price`: writing one writes the other, in the same transaction.
extension SQLStore {
    public func productBilling(appID: String, productID: String) async throws -> ProductBilling {
        try await read { connection in try await Self.productBilling(appID: appID, productID: productID, on: connection) }
    }

    static func productBilling(appID: String, productID: String, on connection: any SQLConnection) async throws -> ProductBilling {
        guard let product = try await connection.first("SELECT trial_days FROM products WHERE app_id = \(appID) AND id = \(productID)") else {
            throw StoreError.notFound("product '\(productID)'")
        }
        let prices = try await connection.query(
            "SELECT * FROM product_prices WHERE app_id = \(appID) AND product_id = \(productID) ORDER BY currency"
        ).map(ProductPrice.init(row:))
        return ProductBilling(prices: prices, trialDays: product.optionalInt("trial_days").map(Int.init))
    }

    /// Adds or changes the price in `price.currency`; `makeDefault` (or being the first) makes it the product's price.
    /// A changed amount forgets the Stripe Price made for the old one (Stripe Prices cannot change their amount).
    public func setProductPrice(
        appID: String, productID: String, price: Price, makeDefault: Bool, now: Date, audit: AuditEntry? = nil
    ) async throws -> ProductBilling {
        try await write(audit: audit) { connection in
            let before = try await Self.productBilling(appID: appID, productID: productID, on: connection)
            let isDefault = makeDefault || before.prices.isEmpty || before.price(in: price.currency)?.isDefault == true
            try await Self.upsertPrice(appID: appID, productID: productID, price: price, isDefault: isDefault, now: now, on: connection)
            return try await Self.productBilling(appID: appID, productID: productID, on: connection)
        }
    }

    public func removeProductPrice(appID: String, productID: String, currency: String, audit: AuditEntry? = nil) async throws -> ProductBilling {
        try await write(audit: audit) { connection in
            let rows = try await connection.query(
                """
                DELETE FROM product_prices WHERE app_id = \(appID) AND product_id = \(productID) AND currency = \(currency) AND is_default = 0
                RETURNING currency
                """)
            guard !rows.isEmpty else { throw StoreError.notFound("\(currency) price of product '\(productID)'") }
            return try await Self.productBilling(appID: appID, productID: productID, on: connection)
        }
    }

    public func setTrialDays(appID: String, productID: String, days: Int?, audit: AuditEntry? = nil) async throws -> ProductBilling {
        try await write(audit: audit) { connection in
            let rows = try await connection.query(
                "UPDATE products SET trial_days = \(days.map(Int64.init)) WHERE app_id = \(appID) AND id = \(productID) RETURNING id")
            guard !rows.isEmpty else { throw StoreError.notFound("product '\(productID)'") }
            return try await Self.productBilling(appID: appID, productID: productID, on: connection)
        }
    }

    /// Records the Stripe Price made for a price, unless the amount changed meanwhile (that one needs its own).
    public func setStripePriceID(_ stripePriceID: String, for price: ProductPrice) async throws {
        try await write { connection in
            try await connection.query(
                """
                UPDATE product_prices SET stripe_price_id = \(stripePriceID)
                WHERE app_id = \(price.appID) AND product_id = \(price.productID) AND currency = \(price.currency)
                    AND amount_micros = \(price.price.amountMicros)
                """)
        }
    }

    /// Called by the catalog's product writes: the product's `price` is its default row (none when it has no price).
    static func syncDefaultPrice(_ product: Product, now: Date, on connection: any SQLConnection) async throws {
        guard let price = product.price else {
            try await connection.query("DELETE FROM product_prices WHERE app_id = \(product.appID) AND product_id = \(product.id) AND is_default = 1")
            return
        }
        // The catalog's price replaces the default, as it did before products had several prices.
        try await connection.query(
            """
            DELETE FROM product_prices WHERE app_id = \(product.appID) AND product_id = \(product.id) AND is_default = 1
                AND currency <> \(price.currency)
            """)
        try await upsertPrice(appID: product.appID, productID: product.id, price: price, isDefault: true, now: now, on: connection)
    }

    private static func upsertPrice(
        appID: String, productID: String, price: Price, isDefault: Bool, now: Date, on connection: any SQLConnection
    ) async throws {
        if isDefault {
            try await connection.query(
                "UPDATE product_prices SET is_default = 0 WHERE app_id = \(appID) AND product_id = \(productID) AND currency <> \(price.currency)")
            let rows = try await connection.query(
                """
                UPDATE products SET price_amount_micros = \(price.amountMicros), price_currency = \(price.currency)
                WHERE app_id = \(appID) AND id = \(productID) RETURNING id
                """)
            guard !rows.isEmpty else { throw StoreError.notFound("product '\(productID)'") }
        }
        try await connection.query(
            """
            INSERT INTO product_prices (app_id, product_id, currency, amount_micros, is_default, created_at, updated_at)
            VALUES (\(appID), \(productID), \(price.currency), \(price.amountMicros), \(isDefault), \(now), \(now))
            ON CONFLICT (app_id, product_id, currency) DO UPDATE SET
                stripe_price_id = CASE WHEN product_prices.amount_micros = excluded.amount_micros THEN product_prices.stripe_price_id END,
                amount_micros = excluded.amount_micros, is_default = excluded.is_default, updated_at = excluded.updated_at
            """)
    }
}

extension ProductPrice {
    init(row: SQLRow) throws {
        self.init(
            appID: try row.string("app_id"), productID: try row.string("product_id"),
            price: Price(amountMicros: try row.int("amount_micros"), currency: try row.string("currency")),
            isDefault: try row.bool("is_default"), stripePriceID: row.optionalString("stripe_price_id"))
    }
}

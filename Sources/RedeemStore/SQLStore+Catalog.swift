import Foundation
import RedeemCore

extension SQLStore {
    public func createEntitlement(_ entitlement: Entitlement, audit: AuditEntry? = nil) async throws {
        try await write(audit: audit) { connection in
            try await Self.requireApp(entitlement.appID, on: connection)
            try await connection.query(
                """
                INSERT INTO entitlements (app_id, id, display_name, created_at)
                VALUES (\(entitlement.appID), \(entitlement.id), \(entitlement.displayName), \(entitlement.createdAt))
                """)
        }
    }

    public func updateEntitlement(_ entitlement: Entitlement, audit: AuditEntry? = nil) async throws {
        try await write(audit: audit) { connection in
            let rows = try await connection.query(
                """
                UPDATE entitlements SET display_name = \(entitlement.displayName)
                WHERE app_id = \(entitlement.appID) AND id = \(entitlement.id) RETURNING id
                """)
            guard !rows.isEmpty else { throw StoreError.notFound("entitlement '\(entitlement.id)'") }
        }
    }

    public func entitlement(appID: String, id: String) async throws -> Entitlement {
        try await read { connection in
            guard let row = try await connection.first("SELECT * FROM entitlements WHERE app_id = \(appID) AND id = \(id)") else {
                throw StoreError.notFound("entitlement '\(id)'")
            }
            return try Entitlement(row: row)
        }
    }

    public func entitlements(appID: String) async throws -> [Entitlement] {
        try await read { connection in
            try await Self.requireApp(appID, on: connection)
            return try await connection.query("SELECT * FROM entitlements WHERE app_id = \(appID) ORDER BY id")
                .map(Entitlement.init(row:))
        }
    }

    public func createProduct(_ product: Product, audit: AuditEntry? = nil) async throws {
        try await write(audit: audit) { connection in
            try await Self.requireApp(product.appID, on: connection)
            try await connection.query(
                """
                INSERT INTO products (app_id, id, type, period, display_name, price_amount_micros, price_currency,
                    subscription_group, group_level, app_store_product_id, play_product_id, play_base_plan_id, created_at)
                VALUES (\(product.appID), \(product.id), \(product.type.rawValue), \(product.period), \(product.displayName),
                    \(product.price?.amountMicros), \(product.price?.currency), \(product.subscriptionGroup), \(product.groupLevel),
                    \(product.storeIDs.appStore), \(product.storeIDs.playStore), \(product.storeIDs.playBasePlan), \(product.createdAt))
                """)
            try await Self.link(product, on: connection)
            try await Self.syncDefaultPrice(product, now: product.createdAt, on: connection)
        }
    }

    public func updateProduct(_ product: Product, audit: AuditEntry? = nil) async throws {
        try await write(audit: audit) { connection in
            let rows = try await connection.query(
                """
                UPDATE products SET display_name = \(product.displayName), period = \(product.period),
                    price_amount_micros = \(product.price?.amountMicros), price_currency = \(product.price?.currency),
                    subscription_group = \(product.subscriptionGroup), group_level = \(product.groupLevel),
                    app_store_product_id = \(product.storeIDs.appStore), play_product_id = \(product.storeIDs.playStore),
                    play_base_plan_id = \(product.storeIDs.playBasePlan)
                WHERE app_id = \(product.appID) AND id = \(product.id) RETURNING id
                """)
            guard !rows.isEmpty else { throw StoreError.notFound("product '\(product.id)'") }
            try await connection.query("DELETE FROM product_entitlements WHERE app_id = \(product.appID) AND product_id = \(product.id)")
            try await Self.link(product, on: connection)
            try await Self.syncDefaultPrice(product, now: product.createdAt, on: connection)
        }
    }

    public func product(appID: String, id: String) async throws -> Product {
        try await read { connection in
            guard let product = try await Self.products(appID: appID, ids: [id], on: connection).first else {
                throw StoreError.notFound("product '\(id)'")
            }
            return product
        }
    }

    public func products(appID: String) async throws -> [Product] {
        try await read { connection in
            try await Self.requireApp(appID, on: connection)
            return try await Self.products(appID: appID, ids: nil, on: connection)
        }
    }

    /// Products with their entitlements; all of the app's when `ids` is nil, except the reserved products granted
    /// entitlements are recorded under (`PromotionalGrant`), which are not for sale.
    static func products(appID: String, ids: [String]?, on connection: any SQLConnection) async throws -> [Product] {
        var sql: SQL = """
            SELECT p.*, pe.entitlement_id FROM products p
            LEFT JOIN product_entitlements pe ON pe.app_id = p.app_id AND pe.product_id = p.id
            WHERE p.app_id = \(appID)
            """
        if ids == nil { sql.text += " AND substr(p.id, 1, \(PromotionalGrant.productPrefix.count)) <> '\(PromotionalGrant.productPrefix)'" }
        if let ids {
            guard !ids.isEmpty else { return [] }
            sql = "\(sql: sql) AND p.id IN \(sql: .list(ids.map(SQLValue.text)))"
        }
        sql.text += " ORDER BY p.id, pe.entitlement_id"
        var products: [Product] = []
        for row in try await connection.query(sql) {
            let id = try row.string("id")
            if products.last?.id != id { products.append(try Product(row: row)) }
            if let entitlement = row.optionalString("entitlement_id") {
                products[products.count - 1].entitlements.append(entitlement)
            }
        }
        return products
    }

    static func link(_ product: Product, on connection: any SQLConnection) async throws {
        for entitlement in Set(product.entitlements).sorted() {
            try await connection.query(
                """
                INSERT INTO entitlements (app_id, id, created_at) VALUES (\(product.appID), \(entitlement), \(product.createdAt))
                ON CONFLICT (app_id, id) DO NOTHING
                """)
            try await connection.query(
                """
                INSERT INTO product_entitlements (app_id, product_id, entitlement_id)
                VALUES (\(product.appID), \(product.id), \(entitlement))
                """)
        }
    }

    static func requireApp(_ appID: String, on connection: any SQLConnection) async throws {
        guard try await connection.first("SELECT id FROM apps WHERE id = \(appID)") != nil else {
            throw StoreError.notFound("app '\(appID)'")
        }
    }
}

import Foundation
import RedeemCore

extension SQLStore {
    public func customer(appID: String, appUserID: AppUserID, now: Date) async throws -> Customer {
        let resolution = lastSeenResolution
        if let found = try await read({ try await Self.resolve(appID: appID, appUserID: appUserID, on: $0) }),
            now.timeIntervalSince(found.lastSeen) < resolution
        {
            return found
        }
        return try await write { try await Self.resolveOrCreate(appID: appID, appUserID: appUserID, now: now, on: $0) }
    }

    public func findCustomer(appID: String, appUserID: AppUserID) async throws -> Customer? {
        try await read { connection in
            guard var customer = try await Self.resolve(appID: appID, appUserID: appUserID, on: connection) else { return nil }
            customer.aliases = try await Self.aliases(customerID: customer.id, on: connection)
            return customer
        }
    }

    public func alias(appID: String, _ source: AppUserID, into target: AppUserID, now: Date) async throws -> Customer {
        try await write { connection in
            try await Self.requireApp(appID, on: connection)
            let from = try await Self.resolveOrCreate(appID: appID, appUserID: source, now: now, on: connection)
            var into = try await Self.resolveOrCreate(appID: appID, appUserID: target, now: now, on: connection)
            if from.id != into.id {
                try await Self.merge(from, into: into, on: connection)
                into.firstSeen = min(from.firstSeen, into.firstSeen)
            }
            into.aliases = try await Self.aliases(customerID: into.id, on: connection)
            return into
        }
    }

    public func transferPurchase(appID: String, purchaseID: String, to appUserID: AppUserID, now: Date) async throws -> Purchase {
        try await write { connection in
            let customer = try await Self.resolveOrCreate(appID: appID, appUserID: appUserID, now: now, on: connection)
            guard
                let row = try await connection.first(
                    """
                    UPDATE purchases SET customer_id = \(customer.id) WHERE app_id = \(appID) AND id = \(purchaseID) RETURNING *
                    """)
            else {
                throw StoreError.notFound("purchase '\(purchaseID)'")
            }
            return try Purchase(row: row)
        }
    }

    /// Every alias, purchase and subscriber attribute of `source` moves to `target`, and `source` is deleted.
    static func merge(_ source: Customer, into target: Customer, on connection: any SQLConnection) async throws {
        try await moveEverything(from: source.id, into: target.id, on: connection)
        try await connection.query(
            """
            UPDATE customers SET first_seen = \(min(source.firstSeen, target.firstSeen)),
                last_seen = \(max(source.lastSeen, target.lastSeen))
            WHERE id = \(target.id)
            """)
        try await connection.query("DELETE FROM customers WHERE id = \(source.id)")
    }

    /// A merge's moves, statement by statement (a redemption's one statement does the same as CTEs,
    /// `SQLStore+RedemptionEffects`): `source`'s aliases, purchases, offer redemptions, attributes and offering override go
    /// to `target`.
    static func moveEverything(from source: String, into target: String, on connection: any SQLConnection) async throws {
        try await connection.query("UPDATE customer_aliases SET customer_id = \(target) WHERE customer_id = \(source)")
        try await connection.query("UPDATE purchases SET customer_id = \(target) WHERE customer_id = \(source)")
        // One redemption per customer and offer: where both redeemed an offer, the source's record keeps its old ID.
        try await connection.query(
            """
            UPDATE offer_redemptions SET customer_id = \(target) WHERE customer_id = \(source)
                AND offer_id NOT IN (SELECT offer_id FROM offer_redemptions WHERE customer_id = \(target))
            """)
        // Subscriber attributes: each key's latest write wins; the source's others go with it when it is deleted.
        try await connection.query(
            """
            DELETE FROM subscriber_attributes WHERE customer_id = \(target) AND EXISTS (
                SELECT 1 FROM subscriber_attributes s WHERE s.customer_id = \(source) AND s.key = subscriber_attributes.key
                    AND s.updated_at > subscriber_attributes.updated_at)
            """)
        try await connection.query(
            """
            UPDATE subscriber_attributes SET customer_id = \(target) WHERE customer_id = \(source)
                AND key NOT IN (SELECT key FROM subscriber_attributes WHERE customer_id = \(target))
            """)
        try await connection.query(offeringOverrideCarried(from: source, into: target, when: "TRUE"))
    }

    /// The source's offering override, if later than the target's, becomes the target's; the source's own row goes
    /// with it when it is deleted. Shared by both renderings of a merge.
    static func offeringOverrideCarried(from source: String, into target: String, when condition: SQL) -> SQL {
        """
        INSERT INTO offering_overrides (customer_id, app_id, offering_id, set_at)
        SELECT \(target), app_id, offering_id, set_at FROM offering_overrides WHERE customer_id = \(source) AND \(sql: condition)
        ON CONFLICT (customer_id) DO UPDATE SET offering_id = excluded.offering_id, set_at = excluded.set_at
        WHERE excluded.set_at > offering_overrides.set_at
        """
    }

    static func resolve(appID: String, appUserID: AppUserID, on connection: any SQLConnection) async throws -> Customer? {
        try await connection.first(
            """
            SELECT c.* FROM customer_aliases a JOIN customers c ON c.id = a.customer_id
            WHERE a.app_id = \(appID) AND a.app_user_id = \(appUserID.rawValue)
            """
        ).map(Customer.init(row:))
    }

    /// Inside a write transaction: the customer, created if new, with `last_seen` set to `now`.
    /// `appExists`: the caller has just read a row of the app in this transaction, so it is not checked again.
    static func resolveOrCreate(
        appID: String, appUserID: AppUserID, now: Date, appExists: Bool = false, on connection: any SQLConnection
    ) async throws -> Customer {
        let found = try await resolve(appID: appID, appUserID: appUserID, on: connection)
        return try await ensureCustomer(found, appID: appID, appUserID: appUserID, now: now, appExists: appExists, on: connection)
    }

    /// `resolveOrCreate` for a caller that already read the customer (`found`, nil when there was none).
    static func ensureCustomer(
        _ found: Customer?, appID: String, appUserID: AppUserID, now: Date, appExists: Bool = false, on connection: any SQLConnection
    ) async throws -> Customer {
        if var customer = found {
            if customer.lastSeen < now {
                try await connection.query("UPDATE customers SET last_seen = \(now) WHERE id = \(customer.id)")
                customer.lastSeen = now
            }
            return customer
        }
        if !appExists { try await requireApp(appID, on: connection) }
        let id = Identifier.make(prefix: "cus")
        if try await insertCustomer(
            id: id, appID: appID, appUserID: appUserID.rawValue, firstSeen: now, lastSeen: now, aliasedAt: now, on: connection)
        {
            return Customer(id: id, appID: appID, originalAppUserID: appUserID.rawValue, aliases: [appUserID.rawValue], firstSeen: now, lastSeen: now)
        }
        // A concurrent transaction created this user first: use theirs.
        try await connection.query("DELETE FROM customers WHERE id = \(id)")
        guard let existing = try await resolve(appID: appID, appUserID: appUserID, on: connection) else {
            throw StoreError.conflict("customer '\(appUserID)' changed concurrently")
        }
        return existing
    }

    /// Inserts customer `id` with `appUserID` as its first alias (one round trip on PostgreSQL). False when another
    /// transaction holds the alias: the customer row is then inserted but not aliased, for the caller to delete or roll back.
    static func insertCustomer(
        id: String, appID: String, appUserID: String, firstSeen: Date, lastSeen: Date, aliasedAt: Date, on connection: any SQLConnection
    ) async throws -> Bool {
        let customer: SQL = """
            INSERT INTO customers (id, app_id, original_app_user_id, first_seen, last_seen)
            VALUES (\(id), \(appID), \(appUserID), \(firstSeen), \(lastSeen))
            """
        let alias: SQL = """
            INSERT INTO customer_aliases (app_id, app_user_id, customer_id, created_at) VALUES (\(appID), \(appUserID), \(id), \(aliasedAt))
            ON CONFLICT (app_id, app_user_id) DO NOTHING RETURNING customer_id
            """
        if connection.engine == .postgres {
            return try await !connection.query("WITH created AS (\(sql: customer) RETURNING id) \(sql: alias)").isEmpty
        }
        try await connection.query(customer)
        return try await !connection.query(alias).isEmpty
    }

    static func aliases(customerID: String, on connection: any SQLConnection) async throws -> [String] {
        try await connection.query("SELECT app_user_id FROM customer_aliases WHERE customer_id = \(customerID) ORDER BY created_at, app_user_id")
            .map { try $0.string("app_user_id") }
    }
}

extension SQLStore {
    /// The original app user ID of a customer, by its internal ID.
    public func originalAppUserID(customerID: String) async throws -> String? {
        try await read {
            try await $0.first("SELECT original_app_user_id FROM customers WHERE id = \(customerID)")?.optionalString("original_app_user_id")
        }
    }
}

import Foundation
import RedeemCore

/// Erasing a customer (RevenueCat's `DELETE /v1/subscribers/{id}`, a GDPR erasure request), in one transaction: the
/// customer, its IDs and attributes go; its purchases stay for the books, moved to a new customer no ID reaches, with no
/// e-mail address, no link parameters, no redemption links or attempts, no e-mails, no webhook deliveries about them;
/// and the customer's addresses go from every other row of the app that holds them. `CustomerFeedStoreTests` writes an
/// address everywhere it can go and scans every text column of every table after.
extension SQLStore {
    /// Returns false when no customer has `appUserID`.
    public func eraseCustomer(appID: String, appUserID: AppUserID, now: Date, audit: AuditEntry) async throws -> Bool {
        try await write { connection in
            // SQLite keeps deleted and overwritten text in the file's free space unless told to zero it: for this
            // transaction it is, so the file holds no trace of the address (the setting is the connection's).
            guard connection.engine == .sqlite else {
                return try await Self.erase(appID: appID, appUserID: appUserID, now: now, audit: audit, on: connection)
            }
            try await connection.query("PRAGMA secure_delete = ON")
            do {
                let erased = try await Self.erase(appID: appID, appUserID: appUserID, now: now, audit: audit, on: connection)
                try await connection.query("PRAGMA secure_delete = OFF")
                return erased
            } catch {
                _ = try? await connection.query("PRAGMA secure_delete = OFF")
                throw error
            }
        }
    }

    static func erase(appID: String, appUserID: AppUserID, now: Date, audit: AuditEntry, on connection: any SQLConnection) async throws -> Bool {
        guard let customer = try await Self.resolve(appID: appID, appUserID: appUserID, on: connection) else { return false }
        let ids = try await Self.aliases(customerID: customer.id, on: connection)
        let purchases = try await connection.query(
            "SELECT id, email, store_transaction_id FROM purchases WHERE customer_id = \(customer.id)")
        let purchaseIDs = try purchases.map { try $0.string("id") }
        let transactions = try purchases.map { try $0.string("store_transaction_id") }
        var emails = Set(purchases.compactMap { $0.optionalString("email").flatMap(PortalRules.normalizedEmail) })
        if let attributed = try await Self.attributes(customerID: customer.id, on: connection)["$email"]?.value,
            let email = PortalRules.normalizedEmail(attributed)
        {
            emails.insert(email)
        }

        // The purchases' new owner: a customer with an ID no one holds, so no request ever reaches them.
        let erased = Identifier.make(prefix: "cus")
        let placeholder = AppUserID.anonymous().rawValue
        try await connection.query(
            """
            INSERT INTO customers (id, app_id, original_app_user_id, first_seen, last_seen, erased_at)
            VALUES (\(erased), \(appID), \(placeholder), \(now), \(now), \(now))
            """)
        try await connection.query(
            "UPDATE purchases SET customer_id = \(erased), email = NULL, custom_params = NULL WHERE customer_id = \(customer.id)")
        if !purchaseIDs.isEmpty {
            let inPurchases = Self.list(purchaseIDs)
            for table in ["redemption_tokens", "email_outbox", "email_throttle"] {
                try await connection.query("DELETE FROM \(unsafeRaw: table) WHERE purchase_id IN \(sql: inPurchases)")
            }
            try await connection.query("DELETE FROM redemption_attempts WHERE purchase_id IN \(sql: inPurchases)")
        }
        try await connection.query(
            "DELETE FROM redemption_attempts WHERE app_id = \(appID) AND app_user_id IN \(sql: Self.list(ids))")
        try await connection.query(
            """
            UPDATE offer_redemptions SET customer_id = \(erased), app_user_id = \(placeholder), email = NULL
            WHERE customer_id = \(customer.id)
            """)
        try await connection.query(
            "UPDATE offer_codes SET redeemed_by = \(placeholder) WHERE redeemed_by IN \(sql: Self.list(ids))")
        try await connection.query(
            "UPDATE web_checkouts SET app_user_id = NULL, email = NULL WHERE app_id = \(appID) AND app_user_id IN \(sql: Self.list(ids))")
        // Webhook events about the customer: filed under its purchases, or naming one of its IDs or addresses (an
        // alias event, attributes). A scan of the app's deliveries, which an erasure is rare enough to afford.
        var about: [SQL] = transactions.isEmpty ? [] : ["transaction_id IN \(sql: Self.list(transactions))"]
        about += ids.map { "body LIKE \(Self.containing(Self.jsonEscaped($0))) ESCAPE '!'" }
        about += emails.map { "LOWER(body) LIKE \(Self.containing($0)) ESCAPE '!'" }
        let deliveries: SQL = "SELECT id FROM webhook_deliveries WHERE app_id = \(appID) AND (\(sql: Self.anyOf(about)))"
        try await connection.query("DELETE FROM webhook_attempts WHERE delivery_id IN (\(sql: deliveries))")
        try await connection.query("DELETE FROM webhook_deliveries WHERE id IN (\(sql: deliveries))")
        for email in emails {
            try await connection.query(
                """
                DELETE FROM email_throttle WHERE purchase_id IN (
                    SELECT purchase_id FROM email_outbox WHERE app_id = \(appID) AND LOWER(recipient) = \(email))
                """)
            try await connection.query("DELETE FROM email_outbox WHERE app_id = \(appID) AND LOWER(recipient) = \(email)")
            try await connection.query(
                "UPDATE web_checkouts SET app_user_id = NULL, email = NULL WHERE app_id = \(appID) AND LOWER(email) = \(email)")
            // The address is the person's wherever it was given: a purchase or an offer claim made under another ID
            // (signed out, or on the web) keeps its record but not the address.
            try await connection.query("UPDATE purchases SET email = NULL WHERE app_id = \(appID) AND LOWER(email) = \(email)")
            try await connection.query("UPDATE offer_redemptions SET email = NULL WHERE app_id = \(appID) AND LOWER(email) = \(email)")
            try await connection.query("DELETE FROM portal_sign_in_tokens WHERE app_id = \(appID) AND email = \(email)")
            try await connection.query("DELETE FROM portal_sessions WHERE app_id = \(appID) AND email = \(email)")
            // An audit entry that named the address keeps what was done, not to whom.
            try await connection.query(
                "UPDATE audit_log SET detail = NULL WHERE app_id = \(appID) AND LOWER(detail) LIKE \(Self.containing(email)) ESCAPE '!'")
        }
        for id in ids {
            try await connection.query(
                "UPDATE audit_log SET detail = NULL WHERE app_id = \(appID) AND detail LIKE \(Self.containing(id)) ESCAPE '!'")
        }
        try await connection.query("DELETE FROM customer_aliases WHERE customer_id = \(customer.id)")
        try await connection.query("DELETE FROM subscriber_attributes WHERE customer_id = \(customer.id)")
        try await connection.query("DELETE FROM customers WHERE id = \(customer.id)")
        var entry = audit
        entry.objectID = customer.id
        try await Self.insertAudit(entry, on: connection)
        return true
    }

    static func list(_ values: [String]) -> SQL { .list(values.map(SQLValue.text)) }

    /// Conditions joined with OR.
    static func anyOf(_ conditions: [SQL]) -> SQL {
        conditions.dropFirst().reduce(conditions.first ?? "FALSE") { "\(sql: $0) OR \(sql: $1)" }
    }

    /// A LIKE pattern matching text that contains `text` literally (`!` escapes LIKE's wildcards).
    static func containing(_ text: String) -> String {
        var pattern = "%"
        for character in text {
            if "%_!".contains(character) { pattern.append("!") }
            pattern.append(character)
        }
        return pattern + "%"
    }

    /// A string as it appears inside a JSON document (webhook bodies escape quotes and backslashes).
    static func jsonEscaped(_ text: String) -> String {
        String(String(decoding: (try? JSONEncoder().encode(text)) ?? Data(), as: UTF8.self).dropFirst().dropLast())
    }
}

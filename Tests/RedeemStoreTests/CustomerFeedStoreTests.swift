import Foundation
import RedeemCore
import RedeemStore
import RedeemTestSupport
import Testing

/// What the console's customer pages read (every fact about one customer; customers by latest activity), and the
/// erasure they share with RevenueCat's `DELETE /v1/subscribers/{id}`: after it no table holds the address or the IDs.
@Suite struct CustomerFeedStoreTests {
    static let email = "Erase.Me@Example.com"
    static let lower = email.lowercased()

    /// Every text value of every table, lowercased and named by table and column.
    static func everyText(_ store: SQLStore) async throws -> [String] {
        try await store.database.read { connection in
            let tables =
                connection.engine == .postgres
                ? try await connection.query("SELECT table_name AS name FROM information_schema.tables WHERE table_schema = 'public'")
                : try await connection.query("SELECT name FROM sqlite_master WHERE type = 'table'")
            var texts: [String] = []
            for table in try tables.map({ try $0.string("name") }) {
                let columns =
                    connection.engine == .postgres
                    ? try await connection.query("SELECT column_name AS name FROM information_schema.columns WHERE table_name = \(table)")
                    : try await connection.query("SELECT name FROM pragma_table_info(\(table))")
                let names = try columns.map { try $0.string("name") }
                for row in try await connection.query("SELECT * FROM \(unsafeRaw: "\"\(table)\"")") {
                    for column in names {
                        if case .text(let text) = row[column] { texts.append("\(table).\(column): \(text.lowercased())") }
                    }
                }
            }
            return texts
        }
    }

    /// Writes the address everywhere it can go: purchases (theirs and one bought under another ID), the `$email`
    /// attribute, e-mails and their errors, webhook events and their attempts' errors, web checkouts, offer claims,
    /// portal sign-ins and sessions, and audit details.
    static func scatter(_ store: SQLStore, appID: String) async throws -> (customerID: String, purchaseID: String) {
        let mine = try await store.grant(
            PurchaseGrant(
                appID: appID, appUserID: Fixture.user("user-erase"), productID: "monthly", store: .rcBilling, isSandbox: true,
                purchaseDate: Fixture.now, email: email, customParams: ["utm_source": "newsletter"]),
            idempotency: nil, now: Fixture.now
        ).purchase
        // The same person bought again without signing in: an anonymous customer, the same address.
        let elsewhere = try await store.grant(
            PurchaseGrant(
                appID: appID, appUserID: Fixture.user("$RCAnonymousID:0e1d2c3b4a5968778695a4b3c2d1e0ff"), productID: "lifetime",
                purchaseDate: Fixture.now, email: email.uppercased()),
            idempotency: nil, now: Fixture.now
        ).purchase
        _ = try await store.grant(
            PurchaseGrant(
                appID: appID, appUserID: Fixture.user("bystander"), productID: "lifetime", purchaseDate: Fixture.now, email: "keep.me@example.com"),
            idempotency: nil, now: Fixture.now)
        let ms = Int64(Fixture.now.timeIntervalSince1970 * 1000)
        let customerID = mine.customerID
        try await store.database.transaction { c in
            try await c.query(
                "INSERT INTO subscriber_attributes (customer_id, key, value, updated_at, from_backend) VALUES (\(customerID), \("$email"), \(email), \(ms), 1)"
            )
            try await c.query(
                "INSERT INTO subscriber_attributes (customer_id, key, value, updated_at, from_backend) VALUES (\(customerID), \("$displayName"), 'Ada Erasable', \(ms), 0)"
            )
            for (id, purchase) in [("eml_1", mine.id), ("eml_2", elsewhere.id)] {
                try await c.query(
                    """
                    INSERT INTO email_outbox (id, app_id, purchase_id, kind, recipient, created_at, next_attempt_at, attempts, last_error)
                    VALUES (\(id), \(appID), \(purchase), 'receipt', \(email), \(ms), \(ms), 1, \("550 mailbox " + email + " unknown"))
                    """)
            }
            try await c.query(
                """
                INSERT INTO webhook_endpoints (id, app_id, url, signing_secret, created_at) VALUES ('whe_1', \(appID), 'https://hooks.example.com', 's', \(ms))
                """)
            let body = #"{"event":{"type":"SUBSCRIBER_ALIAS","app_user_id":"user-erase","subscriber_attributes":{"$email":{"value":"\#(email)"}}}}"#
            try await c.query(
                """
                INSERT INTO webhook_deliveries (id, endpoint_id, app_id, event_id, event_type, body, created_at, next_attempt_at, attempts)
                VALUES ('whd_1', 'whe_1', \(appID), 'evt_1', 'SUBSCRIBER_ALIAS', \(body), \(ms), \(ms), 1)
                """)
            try await c.query(
                """
                INSERT INTO webhook_attempts (id, delivery_id, attempted_at, status_code, error, duration_ms)
                VALUES ('wha_1', 'whd_1', \(ms), 500, \("rejected " + email), 12)
                """)
            try await c.query(
                """
                INSERT INTO web_checkouts (id, app_id, product_id, app_user_id, email, is_sandbox, status, created_at, updated_at)
                VALUES ('wc_1', \(appID), 'monthly', NULL, \(email), 1, 'open', \(ms), \(ms))
                """)
            try await c.query(
                """
                INSERT INTO portal_sign_in_tokens (token_hash, app_id, email, created_at, expires_at) VALUES ('th_1', \(appID), \(lower), \(ms), \(ms + 60000))
                """)
            try await c.query(
                "INSERT INTO portal_sessions (token_hash, app_id, email, created_at, expires_at) VALUES ('th_2', \(appID), \(lower), \(ms), \(ms + 60000))"
            )
            try await c.query(
                """
                INSERT INTO audit_log (id, at, actor, action, object_type, object_id, app_id, detail)
                VALUES ('aud_1', \(ms), 'cli', 'purchase.create', 'purchase', \(mine.id), \(appID), \("monthly for " + email.uppercased()))
                """)
            try await c.query(
                """
                INSERT INTO redemption_attempts (id, app_id, purchase_id, app_user_id, outcome, created_at)
                VALUES ('att_1', \(appID), NULL, 'user-erase', 'invalid', \(ms))
                """)
        }
        // An offer claimed on the web by address (its row keeps the address it was claimed with).
        let offer = try await OfferCases.makeOffer(store, appID: appID)
        try await store.database.transaction { c in
            try await c.query(
                """
                INSERT INTO offer_redemptions (id, app_id, offer_id, customer_id, app_user_id, code_type, channel, created_at, email)
                VALUES ('ofr_1', \(appID), \(offer.id), \(elsewhere.customerID), 'anon', 'custom', 'web', \(ms), \(email))
                """)
        }
        return (customerID, mine.id)
    }

    @Test(arguments: TestDatabases.available)
    func erasureLeavesTheAddressAndTheIDsInNoTable(_ backend: TestBackend) async throws {
        try await TestDatabases.withStore(backend) { store in
            let app = try await Fixture.app(store)
            try await Fixture.catalog(store, appID: app.id)
            let (_, purchaseID) = try await Self.scatter(store, appID: app.id)
            let before = try await Self.everyText(store)
            let tables = Set(before.filter { $0.contains(Self.lower) }.map { String($0.prefix { $0 != ":" }) })
            // The address really is in each place the erasure must clean.
            #expect(
                tables.isSuperset(of: [
                    "purchases.email", "subscriber_attributes.value", "email_outbox.recipient", "email_outbox.last_error", "webhook_deliveries.body",
                    "webhook_attempts.error", "web_checkouts.email", "portal_sign_in_tokens.email", "portal_sessions.email", "audit_log.detail",
                    "offer_redemptions.email",
                ]), "\(tables)")
            let audit = AuditEntry(
                at: Fixture.now, actor: "operator:owner@example.com", action: "customer.erase", objectType: "customer", objectID: "", appID: app.id)
            #expect(try await store.eraseCustomer(appID: app.id, appUserID: Fixture.user("user-erase"), now: Fixture.now, audit: audit))

            let after = try await Self.everyText(store)
            for trace in [Self.lower, "user-erase", "ada erasable", "newsletter"] {
                #expect(!after.contains { $0.contains(trace) }, "\(trace): \(after.filter { $0.contains(trace) })")
            }
            #expect(after.contains { $0.contains("keep.me@example.com") } && after.contains { $0.contains("bystander") })
            // The purchase stays for the books, unnamed; the erasure is in the audit log without the address.
            let kept = try await store.purchase(appID: app.id, id: purchaseID)
            #expect(kept.email == nil && kept.customParams.isEmpty)
            let entries = try await store.auditLog(appID: app.id, limit: 10)
            #expect(entries.contains { $0.action == "customer.erase" && $0.detail == nil })
        }
    }

    @Test(arguments: TestDatabases.available)
    func customerFactsGatherEverythingAboutOneCustomerAndNothingElse(_ backend: TestBackend) async throws {
        try await TestDatabases.withStore(backend) { store in
            let app = try await Fixture.app(store)
            try await Fixture.catalog(store, appID: app.id)
            let (customerID, purchaseID) = try await Self.scatter(store, appID: app.id)
            let facts = try await store.customerFacts(appID: app.id, customerID: customerID)
            #expect(facts.customer.originalAppUserID == "user-erase")
            #expect(facts.purchases.map(\.id) == [purchaseID])
            #expect(Set(facts.attributes.map(\.key)) == ["$email", "$displayName"])
            // Its e-mail, not the other purchase's; the refused attempt by its ID; the audit entry about its purchase.
            #expect(facts.emails.map(\.email.id) == ["eml_1"] && facts.emails.first?.lastError?.contains("550") == true)
            #expect(facts.attempts.map(\.attempt.id) == ["att_1"] && facts.attempts.first?.purchaseID == nil)
            #expect(facts.audit.map(\.id) == ["aud_1"])
            await #expect { try await store.customerFacts(appID: app.id, customerID: "cus_nope") } throws: {
                ($0 as? StoreError)?.isNotFound == true
            }
        }
    }

    @Test(arguments: TestDatabases.available)
    func recentCustomersComeByLatestActivityPagedByCursorWithoutErasedOwners(_ backend: TestBackend) async throws {
        try await TestDatabases.withStore(backend) { store in
            let app = try await Fixture.app(store)
            try await Fixture.catalog(store, appID: app.id)
            for index in 0..<7 {
                _ = try await store.customer(
                    appID: app.id, appUserID: Fixture.user("u\(index)"), now: Fixture.now.addingTimeInterval(Double(index) * 60))
            }
            _ = try await store.grant(
                PurchaseGrant(appID: app.id, appUserID: Fixture.user("u3"), productID: "lifetime", purchaseDate: Fixture.now), idempotency: nil,
                now: Fixture.now)
            let first = try await store.recentCustomers(appID: app.id, before: nil, limit: 4)
            #expect(first.map(\.customer.originalAppUserID) == ["u6", "u5", "u4", "u3"])
            #expect(first.last?.purchases.map(\.productID) == ["lifetime"] && first.first?.purchases.isEmpty == true)
            let last = try #require(first.last?.customer)
            let rest = try await store.recentCustomers(appID: app.id, before: (last.lastSeen, last.id), limit: 10)
            #expect(rest.map(\.customer.originalAppUserID) == ["u2", "u1", "u0"])
            // The erased customer's purchases move to an owner no ID reaches: it is not listed.
            let audit = AuditEntry(at: Fixture.now, actor: "cli", action: "customer.erase", objectType: "customer", objectID: "", appID: app.id)
            #expect(
                try await store.eraseCustomer(appID: app.id, appUserID: Fixture.user("u3"), now: Fixture.now.addingTimeInterval(3600), audit: audit))
            let listed = try await store.recentCustomers(appID: app.id, before: nil, limit: 50).map(\.customer.originalAppUserID)
            #expect(listed == ["u6", "u5", "u4", "u2", "u1", "u0"])
        }
    }
}

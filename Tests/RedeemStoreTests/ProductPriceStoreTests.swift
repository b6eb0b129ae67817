import Foundation
import RedeemCore
import RedeemStore
import RedeemTestSupport
import Testing

/// `product_prices` on both engines: the product's price is its default row, other currencies sit beside it, and the
/// old single price is migrated as the default; trials convert once, with their events.
@Suite struct ProductPriceStoreTests {
    static let now = Fixture.now
    static func usd(_ text: String) -> Price { try! Price(text: text, currency: "USD") }
    static func eur(_ text: String) -> Price { try! Price(text: text, currency: "EUR") }

    static func pricedMonthly(_ store: SQLStore) async throws -> App {
        let app = try await Fixture.app(store)
        try await store.createProduct(
            Product(
                appID: app.id, id: "monthly", type: .subscription, period: "P1M", displayName: "Monthly", entitlements: ["pro"],
                price: usd("4.99"), createdAt: now))
        return app
    }

    @Test(arguments: TestDatabases.available)
    func pricesPerCurrencyBesideTheDefault(_ backend: TestBackend) async throws {
        try await TestDatabases.withStore(backend) { store in
            let app = try await Self.pricedMonthly(store)
            var billing = try await store.productBilling(appID: app.id, productID: "monthly")
            #expect(billing.prices.map(\.price) == [Self.usd("4.99")] && billing.defaultPrice?.isDefault == true)
            billing = try await store.setProductPrice(appID: app.id, productID: "monthly", price: Self.eur("4.49"), makeDefault: false, now: Self.now)
            #expect(billing.prices.map(\.price) == [Self.usd("4.99"), Self.eur("4.49")])
            #expect(try await store.product(appID: app.id, id: "monthly").price == Self.usd("4.99"), "the default is unchanged")
            // A Stripe Price is kept while the amount stays, forgotten when it changes.
            try await store.setStripePriceID("price_eur1", for: try #require(billing.price(in: "EUR")))
            billing = try await store.setProductPrice(appID: app.id, productID: "monthly", price: Self.eur("4.49"), makeDefault: false, now: Self.now)
            #expect(billing.price(in: "EUR")?.stripePriceID == "price_eur1")
            billing = try await store.setProductPrice(appID: app.id, productID: "monthly", price: Self.eur("3.99"), makeDefault: true, now: Self.now)
            #expect(billing.price(in: "EUR")?.stripePriceID == nil && billing.defaultPrice?.currency == "EUR")
            #expect(try await store.product(appID: app.id, id: "monthly").price == Self.eur("3.99"), "the default is the product's price")
            // The default cannot be removed; another can.
            await #expect(throws: StoreError.self) { try await store.removeProductPrice(appID: app.id, productID: "monthly", currency: "EUR") }
            billing = try await store.removeProductPrice(appID: app.id, productID: "monthly", currency: "USD")
            #expect(billing.currencies == ["EUR"])
            billing = try await store.setTrialDays(appID: app.id, productID: "monthly", days: 7)
            #expect(billing.trialDays == 7)
            #expect(try await store.setTrialDays(appID: app.id, productID: "monthly", days: nil).trialDays == nil)
        }
    }

    @Test(arguments: TestDatabases.available)
    func theCatalogsPriceReplacesTheDefault(_ backend: TestBackend) async throws {
        try await TestDatabases.withStore(backend) { store in
            let app = try await Self.pricedMonthly(store)
            _ = try await store.setProductPrice(appID: app.id, productID: "monthly", price: Self.eur("4.49"), makeDefault: false, now: Self.now)
            var product = try await store.product(appID: app.id, id: "monthly")
            product.price = try Price(text: "700", currency: "JPY")
            try await store.updateProduct(product)
            let billing = try await store.productBilling(appID: app.id, productID: "monthly")
            #expect(billing.currencies == ["JPY", "EUR"] && billing.defaultPrice?.currency == "JPY")
        }
    }

    /// A product priced before version 26 comes out with that price as its default row, and one without stays without.
    @Test(arguments: TestDatabases.available)
    func theOldSinglePriceIsMigratedAsTheDefault(_ backend: TestBackend) async throws {
        try await TestDatabases.withStore(backend, migratedBefore: 26) { store in
            // The app and products as version 25 stores them (today's inserts name later columns).
            let app = (id: "app_old_prices", name: "Old")
            try await store.database.transaction {
                try await $0.query(
                    """
                    INSERT INTO apps (id, name, scheme, redemption_link_policy, restore_behavior, redemption_link_lifetime_seconds,
                        created_at, updated_at)
                    VALUES (\(app.id), 'Old', 'oldprices', 'allow', 'transfer', 86400, \(Self.now), \(Self.now))
                    """)
                try await $0.query(
                    """
                    INSERT INTO products (app_id, id, type, period, price_amount_micros, price_currency, created_at)
                    VALUES (\(app.id), 'monthly', 'subscription', 'P1M', 4990000, 'USD', \(Self.now)),
                        (\(app.id), 'gift', 'consumable', NULL, NULL, NULL, \(Self.now))
                    """)
            }
            try await store.migrate(logger: TestDatabases.logger)
            let billing = try await store.productBilling(appID: app.id, productID: "monthly")
            #expect(billing.prices == [ProductPrice(appID: app.id, productID: "monthly", price: Self.usd("4.99"), isDefault: true)])
            #expect(billing.trialDays == nil)
            #expect(try await store.productBilling(appID: app.id, productID: "gift").prices.isEmpty)
        }
    }

    /// A sandbox trial that ended converts once: normal, the price in its currency, the paid period from the trial's
    /// end, and `RENEWAL` with `is_trial_conversion`; a cancelled trial is left to lapse.
    @Test(arguments: TestDatabases.available)
    func sandboxTrialsConvertOnce(_ backend: TestBackend) async throws {
        try await TestDatabases.withStore(backend) { store in
            let app = try await Self.pricedMonthly(store)
            _ = try await store.setProductPrice(appID: app.id, productID: "monthly", price: Self.eur("4.49"), makeDefault: false, now: Self.now)
            try await store.createWebhookEndpoint(
                WebhookEndpoint(id: "whe_1", appID: app.id, url: "https://example.com/h", authorization: nil, signingSecret: "s", createdAt: Self.now)
            )
            let trialEnd = Self.now.addingTimeInterval(300)
            func trial(_ user: String) async throws -> Purchase {
                try await store.grant(
                    PurchaseGrant(
                        appID: app.id, appUserID: Fixture.user(user), productID: "monthly", store: .rcBilling, isSandbox: true,
                        purchaseDate: Self.now, expiresDate: trialEnd, periodType: .trial, price: Self.eur("0")),
                    idempotency: nil, now: Self.now
                ).purchase
            }
            let kept = try await trial("alice")
            let cancelled = try await trial("bob")
            try await store.database.transaction {
                try await $0.query("UPDATE purchases SET unsubscribe_detected_at = \(Self.now) WHERE id = \(cancelled.id)")
            }
            let paidEnd: @Sendable (Date, String) -> Date = { end, period in (try? SandboxClock.paidPeriodEnd(trialEnd: end, period: period)) ?? end }
            #expect(try await store.convertSandboxTrials(now: trialEnd.addingTimeInterval(-1), paidPeriodEnd: paidEnd) == 0, "not yet")
            #expect(try await store.convertSandboxTrials(now: trialEnd.addingTimeInterval(2), paidPeriodEnd: paidEnd) == 1)
            #expect(try await store.convertSandboxTrials(now: trialEnd.addingTimeInterval(3), paidPeriodEnd: paidEnd) == 0, "once")
            let converted = try await store.purchase(appID: app.id, id: kept.id)
            #expect(converted.periodType == .normal && converted.price == Self.eur("4.49"))
            #expect(converted.expiresDate == trialEnd.addingTimeInterval(300))
            // The metrics read when the trial became paid (its row is `normal` now), so they see the conversion.
            let facts = try await store.subscriptionMetricsFacts(appID: app.id, environment: .sandbox, days: 1, now: trialEnd.addingTimeInterval(3))
            #expect(facts.purchases.filter { $0.trialEndedAt == trialEnd }.count == 1)
            #expect(try await store.purchase(appID: app.id, id: cancelled.id).periodType == .trial)
            let events = try await store.database.read {
                try await $0.query("SELECT body FROM webhook_deliveries WHERE app_id = \(app.id) ORDER BY created_at, id")
            }.map { try $0.string("body") }
            let renewals = events.filter { $0.contains("\"RENEWAL\"") }
            #expect(renewals.count == 1 && renewals.allSatisfy { $0.contains("\"is_trial_conversion\":true") && $0.contains("\"NORMAL\"") })
            #expect(events.filter { $0.contains("\"INITIAL_PURCHASE\"") && $0.contains("\"TRIAL\"") }.count == 2)
        }
    }
}

import Foundation
import RedeemCore
import RedeemStore
import RedeemTestSupport
import Testing

/// The facts subscription metrics read, on both engines: the rows written come back with their dates, prices and
/// product periods; purchases that ended before the window and the other environment's are not read.
@Suite struct SubscriptionMetricsStoreTests {
    static func date(_ text: String) -> Date { ISODate.parse(text)! }
    static let now = date("2026-06-01T12:00:00Z")

    static func buy(
        _ store: SQLStore, _ appID: String, _ user: String, _ product: String, at: String, storeName: Store = .stripe, sandbox: Bool = false,
        price: String? = "9.99"
    ) async throws -> Purchase {
        let grant = PurchaseGrant(
            appID: appID, appUserID: Fixture.user(user), productID: product, store: storeName, isSandbox: sandbox, purchaseDate: date(at),
            price: price.map { try! Price(text: $0, currency: "USD") }, email: nil)
        return try await store.grant(grant, idempotency: nil, now: date(at)).purchase
    }

    @Test(arguments: TestDatabases.available)
    func factsMatchTheRowsWritten(_ backend: TestBackend) async throws {
        try await TestDatabases.withStore(backend) { store in
            let app = try await Fixture.app(store)
            try await Fixture.catalog(store, appID: app.id)
            let alice = try await Self.buy(store, app.id, "alice", "monthly", at: "2026-05-20T10:00:00Z")
            let carol = try await Self.buy(store, app.id, "carol", "monthly", at: "2026-05-25T10:00:00Z")
            // Stripe reports the refund.
            _ = try await store.processStoreEvent(
                source: "stripe", eventID: "evt_refund", type: "charge.refunded", now: Self.date("2026-05-26T08:00:00Z")
            ) {
                try await $0.refund(carol)
            }
            _ = try await Self.buy(store, app.id, "erin", "lifetime", at: "2026-05-28T10:00:00Z", price: "20.00")
            _ = try await Self.buy(store, app.id, "dave", "monthly", at: "2026-03-01T10:00:00Z")  // expired Apr 1: not read
            _ = try await Self.buy(store, app.id, "sam", "monthly", at: "2026-05-22T10:00:00Z", storeName: .external, sandbox: true)

            let production = try await store.subscriptionMetricsFacts(appID: app.id, environment: .production, days: 30, now: Self.now)
            let byStart = production.purchases.sorted { $0.originalPurchaseDate < $1.originalPurchaseDate }
            #expect(byStart.map(\.originalPurchaseDate) == ["2026-05-20T10:00:00Z", "2026-05-25T10:00:00Z", "2026-05-28T10:00:00Z"].map(Self.date))
            #expect(byStart[0].customerID == alice.customerID && byStart[0].store == .stripe && byStart[0].periodType == .normal)
            #expect(byStart[0].price == Price(amountMicros: 9_990_000, currency: "USD") && byStart[0].period == ISO8601Period(months: 1))
            #expect(byStart[0].access == alice.access && byStart[0].access.expiresDate == Self.date("2026-06-20T10:00:00Z"))
            #expect(byStart[1].access.refundedAt == Self.date("2026-05-26T08:00:00Z"))
            #expect(byStart[2].period == nil && byStart[2].access.expiresDate == nil && byStart[2].price?.amountMicros == 20_000_000)
            #expect(!byStart.contains { $0.sandboxClock })
            // alice, carol, erin and sam were first seen in the window; dave in March.
            #expect(production.customers.count == 4)
            #expect(production.customers.filter { $0.environment == .sandbox }.map(\.firstSeen) == [Self.date("2026-05-22T10:00:00Z")])

            let sandbox = try await store.subscriptionMetricsFacts(appID: app.id, environment: .sandbox, days: 30, now: Self.now)
            #expect(sandbox.purchases.map(\.originalPurchaseDate) == [Self.date("2026-05-22T10:00:00Z")])

            let metrics = SubscriptionMetrics.compute(facts: production, environment: .production, days: 30, now: Self.now)
            #expect(metrics.activeSubscriptions == 1 && metrics.mrr == ["USD": 9_990_000] && metrics.refunds == 1 && metrics.newCustomers == 3)
            #expect(metrics.revenue == ["USD": 29_990_000], "9.99 + 9.99 - 9.99 + 20.00")
        }
    }

    /// A cancellation's reason is kept on the purchase while it is set to end (a later one, as Stripe's update after its
    /// own, replaces none), cleared when it renews again, and read with the metrics' facts, which Core counts by reason.
    /// A subscription switched plan in place comes with the plan it had before, until the switch.
    @Test(arguments: TestDatabases.available)
    func aSwitchedPlanComesWithTheEarlierOne(_ backend: TestBackend) async throws {
        try await TestDatabases.withStore(backend) { store in
            let app = try await Fixture.app(store)
            try await Fixture.catalog(store, appID: app.id)
            try await store.createProduct(
                Product(appID: app.id, id: "yearly", type: .subscription, period: "P1Y", displayName: nil, entitlements: ["pro"], createdAt: Self.now)
            )
            let purchase = try await Self.buy(store, app.id, "ivy", "monthly", at: "2026-05-10T10:00:00Z")
            let yearly = try #require(try await store.products(appID: app.id).first { $0.id == "yearly" })
            let switchedAt = Self.date("2026-05-20T10:00:00Z")
            _ = try await store.processStoreEvent(source: "stripe", eventID: "evt_switch", type: "customer.subscription.updated", now: switchedAt) {
                try await $0.changeProduct(
                    purchase, to: yearly, price: try Price(text: "49.99", currency: "USD"), periodEnd: Self.date("2027-05-20T10:00:00Z"))
            }
            let facts = try await store.subscriptionMetricsFacts(appID: app.id, environment: .production, days: 30, now: Self.now)
            let fact = try #require(facts.purchases.first)
            let (yearlyPrice, monthlyPrice) = (try Price(text: "49.99", currency: "USD"), try Price(text: "9.99", currency: "USD"))
            let (year, month) = (try ISO8601Period(parsing: "P1Y"), try ISO8601Period(parsing: "P1M"))
            #expect(fact.price == yearlyPrice && fact.period == year)
            #expect(fact.earlierPlans == [.init(until: switchedAt, price: monthlyPrice, period: month)])
        }
    }

    @Test(arguments: TestDatabases.available)
    func cancellationsComeWithTheirReason(_ backend: TestBackend) async throws {
        try await TestDatabases.withStore(backend) { store in
            let app = try await Fixture.app(store)
            try await Fixture.catalog(store, appID: app.id)
            let alice = try await Self.buy(store, app.id, "alice", "monthly", at: "2026-05-20T10:00:00Z")
            let bob = try await Self.buy(store, app.id, "bob", "monthly", at: "2026-05-21T10:00:00Z")
            let carol = try await Self.buy(store, app.id, "carol", "monthly", at: "2026-05-22T10:00:00Z")
            let dave = try await Self.buy(store, app.id, "dave", "monthly", at: "2026-05-23T10:00:00Z")
            func renewal(_ id: String, _ purchase: Purchase, renews: Bool, _ feedback: CancellationFeedback?) async throws {
                _ = try await store.processStoreEvent(
                    source: "stripe", eventID: id, type: "customer.subscription.updated", now: Self.date("2026-05-27T08:00:00Z")
                ) {
                    let current = try #require(try await $0.purchase(store: .stripe, transactionID: purchase.storeTransactionID))
                    try await $0.setWillRenew(current, willRenew: renews, periodEnd: nil, feedback: feedback)
                }
            }
            try await renewal("evt_1", alice, renews: false, .tooExpensive)
            try await renewal("evt_2", bob, renews: false, nil)
            try await renewal("evt_3", bob, renews: false, .unused)
            try await renewal("evt_4", carol, renews: false, .other)
            try await renewal("evt_5", carol, renews: true, nil)
            try await renewal("evt_6", dave, renews: false, nil)

            let (a, b, c, d) = try await (
                store.purchase(appID: app.id, id: alice.id), store.purchase(appID: app.id, id: bob.id),
                store.purchase(appID: app.id, id: carol.id), store.purchase(appID: app.id, id: dave.id)
            )
            #expect(a.cancellationFeedback == .tooExpensive && a.unsubscribeDetectedAt == Self.date("2026-05-27T08:00:00Z"))
            #expect(b.cancellationFeedback == .unused, "a reason arriving for one already set to end is kept")
            #expect(c.cancellationFeedback == nil && c.unsubscribeDetectedAt == nil, "renewing again clears it")
            #expect(d.cancellationFeedback == nil && d.unsubscribeDetectedAt != nil)

            let facts = try await store.subscriptionMetricsFacts(appID: app.id, environment: .production, days: 30, now: Self.now)
            let byCustomer = Dictionary(uniqueKeysWithValues: facts.purchases.map { ($0.customerID, $0) })
            #expect(byCustomer[alice.customerID]?.cancellationFeedback == .tooExpensive)
            #expect(byCustomer[alice.customerID]?.unsubscribedAt == Self.date("2026-05-27T08:00:00Z"))
            #expect(byCustomer[carol.customerID]?.unsubscribedAt == nil)
            let metrics = SubscriptionMetrics.compute(facts: facts, environment: .production, days: 30, now: Self.now)
            #expect(
                metrics.cancellations == [
                    .init(.buyer(.tooExpensive), count: 1), .init(.buyer(.unused), count: 1), .init(.buyer(nil), count: 1),
                ])

            // Dave's customer erased: his purchase stays for the books, and its cancellation is the erasure's.
            let audit = AuditEntry(at: Self.now, actor: "test", action: "customer.erase", objectType: "customer", objectID: "", appID: app.id)
            #expect(try await store.eraseCustomer(appID: app.id, appUserID: Fixture.user("dave"), now: Self.now, audit: audit))
            let after = try await store.subscriptionMetricsFacts(appID: app.id, environment: .production, days: 30, now: Self.now)
            #expect(after.purchases.filter(\.customerErased).map(\.unsubscribedAt) == [d.unsubscribeDetectedAt])
            #expect(
                SubscriptionMetrics.compute(facts: after, environment: .production, days: 30, now: Self.now).cancellations == [
                    .init(.buyer(.tooExpensive), count: 1), .init(.buyer(.unused), count: 1), .init(.erasure, count: 1),
                ])
        }
    }

    /// Customers erased before version 35, the only customers without any ID, are marked by its migration as of their
    /// creation; a customer with an ID is not.
    @Test(arguments: TestDatabases.available)
    func earlierErasuresAreMarkedByTheMigration(_ backend: TestBackend) async throws {
        try await TestDatabases.withStore(backend, migratedBefore: 35) { store in
            let app = try await Fixture.app(store)
            let (kept, erased) = (Self.date("2026-05-01T10:00:00Z"), Self.date("2026-05-02T10:00:00Z"))
            try await store.database.transaction {
                try await $0.query(
                    """
                    INSERT INTO customers (id, app_id, original_app_user_id, first_seen, last_seen)
                    VALUES ('cus_kept', \(app.id), 'alice', \(kept), \(kept)),
                        ('cus_erased', \(app.id), '$RCAnonymousID:0123456789abcdef0123456789abcdef', \(erased), \(erased))
                    """)
                try await $0.query(
                    "INSERT INTO customer_aliases (app_id, app_user_id, customer_id, created_at) VALUES (\(app.id), 'alice', 'cus_kept', \(kept))")
            }
            try await store.migrate(logger: TestDatabases.logger)
            let rows = try await store.database.read { try await $0.query("SELECT id, erased_at FROM customers ORDER BY id") }
            #expect(try rows.map { try $0.string("id") } == ["cus_erased", "cus_kept"])
            #expect(rows.map { $0.optionalDate("erased_at") } == [erased, nil])
        }
    }
}

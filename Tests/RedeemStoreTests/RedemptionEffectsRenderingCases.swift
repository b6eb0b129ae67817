import Foundation
import RedeemCore
import RedeemTestSupport
import Testing

@testable import RedeemStore

/// One `RedemptionEffects` value, two renderings: applied statement by statement (the transactional path's) and as
/// PostgreSQL's one statement, from the same data, it leaves the same rows; and the usual web-to-app redemption costs
/// at most 3 round trips, counted.
@Suite(.enabled(if: TestDatabases.postgresConfigured, "needs REDEEM_TEST_POSTGRES_URL"))
struct RedemptionEffectsRenderingCases {
    enum Scenario: String, CaseIterable {
        case transferToNew, transferToKnown, anonymousIntoNew, anonymousIntoKnown, anonymousClaimantIntoOwner, newAnonymousJoinsOwner,
            alreadyYours, refused
    }

    /// A web purchase's anonymous buyer with `$email`; an app user as the scenario says; two live endpoints.
    static func setUp(_ store: SQLStore, _ scenario: Scenario) async throws -> (App, String, AppUserID) {
        var app = try await Fixture.app(store)
        try await Fixture.catalog(store, appID: app.id)
        if scenario == .refused {
            app.restoreBehavior = .keepWithOriginal
            try await store.updateApp(app)
        }
        let identifiedOwner = [.transferToNew, .transferToKnown, .refused, .alreadyYours].contains(scenario)
        let buyer = identifiedOwner ? Fixture.user("bob") : AppUserID.anonymous()
        let (_, hash) = try await RedemptionCases.purchaseWithToken(store, appID: app.id, buyer: buyer)
        let claimant: AppUserID =
            switch scenario {
            case .transferToNew, .anonymousIntoNew: Fixture.user("carol")
            case .transferToKnown, .anonymousIntoKnown, .refused: Fixture.user("erin")
            case .anonymousClaimantIntoOwner, .newAnonymousJoinsOwner: AppUserID.anonymous()
            case .alreadyYours: buyer
            }
        if [.transferToKnown, .anonymousIntoKnown, .refused, .anonymousClaimantIntoOwner].contains(scenario) {
            _ = try await store.grant(
                PurchaseGrant(appID: app.id, appUserID: claimant, productID: "coins", purchaseDate: Fixture.now), idempotency: nil,
                now: Fixture.now.addingTimeInterval(-60))
            try await Self.attribute(store, app.id, claimant, "$displayName", "App", at: 5)
            try await Self.attribute(store, app.id, claimant, "$email", "app@example.com", at: 1)
            try await Self.override(store, app.id, claimant, "winback", at: 5)
        }
        try await Self.attribute(store, app.id, buyer, "$email", "web@example.com", at: 2)
        try await Self.override(store, app.id, buyer, "sale", at: 2)
        for id in ["whe_a", "whe_b"] {
            try await store.createWebhookEndpoint(
                WebhookEndpoint(
                    id: id + app.id, appID: app.id, url: "https://example.com/\(id)", authorization: nil, signingSecret: "s", createdAt: Fixture.now))
        }
        return (app, hash, claimant)
    }

    static func attribute(_ store: SQLStore, _ appID: String, _ user: AppUserID, _ key: String, _ value: String, at seconds: Double) async throws {
        let at = Fixture.now.addingTimeInterval(seconds)
        try await store.database.read {
            try await $0.query(
                """
                INSERT INTO subscriber_attributes (customer_id, key, value, updated_at, from_backend)
                SELECT customer_id, \(key), \(value), \(at), 0 FROM customer_aliases WHERE app_id = \(appID) AND app_user_id = \(user.rawValue)
                """)
        }
    }

    /// `user`'s offering override (the offering made if new), chosen `seconds` after `Fixture.now`.
    static func override(_ store: SQLStore, _ appID: String, _ user: AppUserID, _ offering: String, at seconds: Double) async throws {
        try await store.database.read {
            try await $0.query(
                """
                INSERT INTO offerings (app_id, id, description, metadata, is_current, created_at) VALUES (\(appID), \(offering), '', '{}', 0, 0)
                ON CONFLICT DO NOTHING
                """)
            try await $0.query(
                """
                INSERT INTO offering_overrides (customer_id, app_id, offering_id, set_at)
                SELECT customer_id, \(appID), \(offering), \(Fixture.now.addingTimeInterval(seconds)) FROM customer_aliases
                WHERE app_id = \(appID) AND app_user_id = \(user.rawValue)
                """)
        }
    }

    /// Every row of the tables a redemption touches, as text; `info_version` only has to move (each statement moves it).
    static func dump(_ connection: any SQLConnection) async throws -> [String] {
        var lines: [String] = []
        for table in [
            "customers", "customer_aliases", "purchases", "subscriber_attributes", "offer_redemptions", "redemption_tokens",
            "redemption_attempts", "webhook_deliveries", "offering_overrides",
        ] {
            let rows = try await connection.query("SELECT (to_jsonb(t) - 'info_version')::text AS r FROM \(unsafeRaw: table) t ORDER BY 1")
            lines += try rows.map { table + " " + (try $0.string("r")) }
        }
        return lines
    }

    struct RolledBack: Error { let rows: [String] }

    @Test(arguments: Scenario.allCases)
    func bothRenderingsLeaveTheSameRows(_ scenario: Scenario) async throws {
        try await TestDatabases.withStore(.postgres) { store in
            let (app, hash, claimant) = try await Self.setUp(store, scenario)
            let later = Fixture.now.addingTimeInterval(300)
            let write = try await RedemptionFastPathCases.plannedWrite(store, app.id, hash, claimant, now: later)
            #expect(write.effects.claims == (scenario != .refused))
            // Statement by statement, in a transaction rolled back after reading what it left.
            var sequential: [String] = []
            do {
                try await store.database.transaction { connection in
                    try await SQLStore.apply(write, claiming: true, on: connection)
                    throw RolledBack(rows: try await Self.dump(connection))
                }
            } catch let rolledBack as RolledBack {
                sequential = rolledBack.rows
            }
            let rows = try await store.database.read { try await $0.query(SQLStore.oneStatement(write)) }
            let oneStatement = try await store.database.read { try await Self.dump($0) }
            #expect(sequential == oneStatement, "\(scenario)")
            #expect(!sequential.isEmpty)
            if write.effects.claims {
                let snapshot = try #require(try SQLStore.snapshot(appID: app.id, rows: rows))
                let info = try await store.customerInfo(appID: app.id, appUserID: claimant, now: later)
                #expect(
                    CustomerInfo(customer: snapshot.customer, purchases: snapshot.purchases, products: snapshot.products, requestDate: later) == info)
                // The events naming the survivor (`TRANSFER` names none) carry its attributes as they are after the write.
                let stored = try await store.subscriberAttributes(appID: app.id, appUserID: claimant)
                for body in write.deliveries.compactMap({ row -> String? in if case .text(let body) = row[5] { body } else { nil } })
                where body.contains("\"original_app_user_id\"") {
                    for (key, attribute) in stored { #expect(body.contains("\"\(key)\":{\"updated_at_ms\"") && body.contains(attribute.value)) }
                }
                if scenario == .anonymousIntoKnown { #expect(stored["$email"]?.value == "web@example.com") }  // the later write
            }
        }
    }

    /// The usual web-to-app redemption: an anonymous web purchase (with `$email`) redeemed for the first time, by an
    /// anonymous app user the SDK created and by an identified one. The route's rate-limit upsert, the facts read and
    /// the one statement: 3 round trips.
    @Test func anAnonymousPurchasesFirstRedemptionTakesThreeRoundTrips() async throws {
        try await TestDatabases.withStore(.postgres) { store in
            let app = try await Fixture.app(store)
            try await Fixture.catalog(store, appID: app.id)
            let counter = RoundTripCounter(store.database)
            let counted = SQLStore(database: counter)
            for claimant in [AppUserID.anonymous(), Fixture.user("carol")] {
                let buyer = AppUserID.anonymous()
                let (purchase, hash) = try await RedemptionCases.purchaseWithToken(store, appID: app.id, buyer: buyer)
                try await Self.attribute(store, app.id, buyer, "$email", "web@example.com", at: 2)
                _ = try await store.customer(appID: app.id, appUserID: claimant, now: Fixture.now)
                counter.reset()
                _ = try await counted.hit(buckets: ["redeem:ip:test", "redeem:user:test"], window: 60, now: Fixture.now)
                let answer = try await counted.redeemDescribed(appID: app.id, tokenHash: hash, claimant: claimant, now: Fixture.now)
                #expect(counter.count <= 3, "\(claimant)")
                guard case .redeemed(_, .alias?) = answer.outcome else {
                    Issue.record("got \(answer.outcome)")
                    return
                }
                #expect(try await store.subscriberAttributes(appID: app.id, appUserID: claimant)["$email"]?.value == "web@example.com")
                let owner = try await RedemptionCases.owner(store, app.id, purchase)
                #expect(try await store.findCustomer(appID: app.id, appUserID: buyer)?.id == owner)
            }
        }
    }
}

import Foundation
import RedeemCore
import RedeemTestSupport
import Testing

@testable import RedeemStore

/// A custom code's uses are a striped count: exact against its cap however many redeem at once, on both engines and
/// on both of PostgreSQL's paths; never counted once the code is off; and laid out from the old single column.
@Suite struct CustomCodeStripeTests {
    static let now = Fixture.now

    static func stripes(_ store: SQLStore, _ codeID: String) async throws -> [Int] {
        try await store.database.read {
            try await $0.query("SELECT used FROM offer_custom_code_stripes WHERE code_id = \(codeID) ORDER BY stripe").map { Int(try $0.int("used")) }
        }
    }

    /// An app with an offer and its custom code `text` good for `cap` uses.
    static func appWithCode(_ store: SQLStore, _ text: String, cap: Int) async throws -> (App, CustomOfferCode) {
        let app = try await OfferCases.setUp(store)
        let offer = try await OfferCases.makeOffer(store, appID: app.id)
        return (app, try await OfferCases.makeCustom(store, offer, code: text, cap: cap))
    }

    @Test(arguments: TestDatabases.available)
    func theCapIsExactWhenFortyRedeemAtOnce(_ backend: TestBackend) async throws {
        try await TestDatabases.withStore(backend) { store in
            let (app, code) = try await Self.appWithCode(store, "LAUNCH", cap: 25)
            // Half ask for Customer Info, which on PostgreSQL takes the one-statement path first.
            let results = try await withThrowingTaskGroup(of: Result<OfferCodeRedemption, OfferRedemptionFailure>.self) { group in
                for n in 0..<40 {
                    group.addTask {
                        var request = OfferCodeRedemptionRequest(
                            appID: app.id, code: "launch", claimant: Fixture.user("racer-\(n)"), channel: .sdk, isSandbox: true, now: Self.now)
                        request.includeCustomerInfo = n.isMultiple(of: 2)
                        return try await store.redeemOfferCode(request)
                    }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(results.filter(\.isSuccess).count == 25)
            #expect(results.compactMap(OfferCases.failure) == Array(repeating: .exhausted, count: 15))
            #expect(try await store.customCodes(appID: app.id).map(\.redemptionCount) == [25])
            #expect(try await store.offerRedemptions(appID: app.id).count == 25)
            let used = try await Self.stripes(store, code.id)
            #expect(used.count == StripedCount.stripes)
            #expect(used.enumerated().allSatisfy { $0.element == StripedCount.budget(limit: 25, stripe: $0.offset) })
        }
    }

    @Test(arguments: TestDatabases.available)
    func aClaimThatFoundTheCodeActiveCountsNothingOnceItIsOff(_ backend: TestBackend) async throws {
        try await TestDatabases.withStore(backend) { store in
            let (app, code) = try await Self.appWithCode(store, "SWITCH", cap: 5)
            let found = try #require(try await store.findOfferCode(appID: app.id, code: "switch"))
            _ = try await store.setCustomCodeActive(appID: app.id, id: code.id, active: false)
            await #expect(throws: SQLStore.OfferRefused.self) {
                try await store.database.transaction { try await SQLStore.claim(found, by: Fixture.user("late"), now: Self.now, on: $0) }
            }
            #expect(try await Self.stripes(store, code.id).reduce(0, +) == 0)
            _ = try await store.setCustomCodeActive(appID: app.id, id: code.id, active: true)
            try await store.database.transaction { try await SQLStore.claim(found, by: Fixture.user("late"), now: Self.now, on: $0) }
            #expect(try await store.customCodes(appID: app.id).map(\.redemptionCount) == [1])
        }
    }

    /// Codes counted in the old column, under and over their caps, come out as `StripedCount.layout` lays them out.
    @Test(arguments: TestDatabases.available)
    func theMigrationLaysOutWhatWasCounted(_ backend: TestBackend) async throws {
        let (url, cleanup) = try await TestDatabases.makeDatabase(backend, migrated: false)
        let store = try await SQLStore.open(url: url, connectionWait: TestDatabases.connectionWait, logger: TestDatabases.logger)
        do {
            let before = Array(Migration.all.prefix { $0.version < 21 })
            try await MigrationRunner(database: store.database, migrations: before).apply(logger: TestDatabases.logger)
            let app = try await Fixture.app(store)
            // The product as version 20 stores it (today's insert names later columns).
            try await store.database.transaction {
                try await $0.query(
                    "INSERT INTO products (app_id, id, type, period, created_at) VALUES (\(app.id), 'monthly', 'subscription', 'P1M', \(Self.now))")
            }
            let offer = try await OfferCases.makeOffer(store, appID: app.id)
            let counts: [(cap: Int, used: Int)] = [(0, 0), (1, 1), (5, 3), (16, 16), (40, 3), (40, 37), (1_000_000, 123_457), (10, 14)]
            for (n, count) in counts.enumerated() {
                try await store.database.transaction {
                    try await $0.query(
                        """
                        INSERT INTO offer_custom_codes (id, app_id, offer_id, code, max_redemptions, redemption_count, active, created_at)
                        VALUES (\("cc_\(n)"), \(app.id), \(offer.id), \("CODE\(n)"), \(count.cap), \(count.used), 1, \(Self.now))
                        """)
                }
            }
            try await store.migrate(logger: TestDatabases.logger)
            for (n, count) in counts.enumerated() {
                #expect(try await Self.stripes(store, "cc_\(n)") == StripedCount.layout(total: count.used, limit: count.cap), "\(count)")
            }
            #expect(try await store.customCodes(appID: app.id).map(\.redemptionCount) == counts.map(\.used))
        } catch {
            await store.close()
            try? await cleanup()
            throw error
        }
        await store.close()
        try await cleanup()
    }
}

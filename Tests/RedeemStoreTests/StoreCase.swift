import Foundation
import RedeemCore
import RedeemStore
import RedeemTestSupport
import Testing

/// One behaviour every backend must show; run by `SQLiteConformance` and `PostgresConformance`.
struct StoreCase: Sendable, CustomTestStringConvertible {
    let name: String
    let body: @Sendable (SQLStore) async throws -> Void

    init(_ name: String, _ body: @escaping @Sendable (SQLStore) async throws -> Void) {
        self.name = name
        self.body = body
    }

    var testDescription: String { name }

    static var all: [StoreCase] {
        AppCases.all + CatalogCases.all + CustomerCases.all + PurchaseCases.all + RedemptionCases.all + DescribedRedemptionCases.all
            + RedemptionRuleCases.all + GracePeriodCases.all + OfferCases.all + CodeBatchCases.all + MigrationCases.all + DataMigrationCases.all
    }
}

@Suite struct SQLiteConformance {
    @Test(arguments: StoreCase.all)
    func conforms(_ storeCase: StoreCase) async throws {
        try await TestDatabases.withStore(.sqlite) { try await storeCase.body($0) }
    }
}

@Suite(.enabled(if: TestDatabases.postgresConfigured, "set REDEEM_TEST_POSTGRES_URL (scripts/test.sh does) to run on PostgreSQL"))
struct PostgresConformance {
    @Test(arguments: StoreCase.all)
    func conforms(_ storeCase: StoreCase) async throws {
        try await TestDatabases.withStore(.postgres) { try await storeCase.body($0) }
    }
}

/// Shared fixtures for the cases.
enum Fixture {
    static let now = ISODate.parse("2026-06-01T00:00:00Z")!

    static func app(_ store: SQLStore, name: String = "Test App") async throws -> App {
        var changes = AppChanges()
        changes.name = name
        let app = try changes.makeApp(now: now)
        try await store.createApp(app, keys: [])
        return app
    }

    static func catalog(_ store: SQLStore, appID: String) async throws {
        try await store.createProduct(
            Product(appID: appID, id: "monthly", type: .subscription, period: "P1M", displayName: "Monthly", entitlements: ["pro"], createdAt: now))
        try await store.createProduct(
            Product(
                appID: appID, id: "lifetime", type: .nonConsumable, period: nil, displayName: nil, entitlements: ["pro", "extra"], createdAt: now))
        try await store.createProduct(
            Product(appID: appID, id: "coins", type: .consumable, period: nil, displayName: nil, entitlements: [], createdAt: now))
    }

    static func user(_ id: String) -> AppUserID { try! AppUserID(validating: id) }
}

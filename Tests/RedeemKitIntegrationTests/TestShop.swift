import Foundation
import RedeemCore
import RedeemServer
import RedeemTestSupport
import Testing

/// A real Redeem server's state on a fresh SQLite database: its dependencies and one app selling
/// `monthly` (a subscription; a sandbox month lasts 5 minutes) and `lifetime`, both unlocking `pro`.
///
/// Serve it over HTTP with `serveLive` (a free port) or `serve(port:)` (a given port).
struct TestShop: Sendable {
    /// The host of the server's public URL, so of its https redemption links.
    static let publicHost = "pay.example.com"

    let deps: ServerDependencies
    let appID: String
    /// The app's custom URL scheme (`rdm-…`).
    let scheme: String
    /// The app's public sandbox key, what RedeemKit sends.
    let publicKey: String

    static func with<T: Sendable>(
        _ backend: TestBackend, clock: any RedeemCore.RedeemClock = RedeemCore.SystemClock(),
        mail: MailSettings? = nil,
        _ body: (TestShop) async throws -> T
    ) async throws -> T {
        try await TestDatabases.withStore(backend) { store in
            let deps = try await ServerDependencies(
                store: store, clock: clock, publicURL: URL(string: "https://\(publicHost)")!, mail: mail,
                rateLimits: .generous, logger: TestDatabases.logger
            )
            var changes = AppChanges()
            changes.name = "Integration App"
            let created = try await deps.admin.acting(as: "test").createApp(changes)
            for product in [
                ProductInput(
                    id: "monthly", type: "subscription", period: "P1M", displayName: "Pro Monthly", entitlements: ["pro"],
                    price: try PriceInput(amount: "4.99", currency: "USD")),
                ProductInput(
                    id: "lifetime", type: "non_consumable", displayName: "Pro Lifetime", entitlements: ["pro"],
                    price: try PriceInput(amount: "19.99", currency: "USD")),
            ] {
                _ = try await deps.admin.acting(as: "test").createProduct(appID: created.app.id, product)
            }
            let shop = TestShop(
                deps: deps, appID: created.app.id, scheme: created.app.scheme,
                publicKey: try #require(created.plaintext(.publicSandbox))
            )
            return try await body(shop)
        }
    }
}

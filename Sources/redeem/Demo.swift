import ArgumentParser
import Foundation
import Hummingbird
import Logging
import RedeemCore
import RedeemServer
import RedeemStore

/// Sets up a ready demo app (once), prints fresh keys for it, and serves.
struct Demo: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Set up a demo app with products, print its keys, and run the server.")

    static let appName = "Redeem Demo"
    static let customer = "demo-user"

    @OptionGroup var options: ServerOptions
    @Flag(help: "Set up and print the keys, but do not start the server.")
    var setupOnly = false

    func run() async throws {
        let configuration = try options.configuration()
        let summary = try await options.database.withAdmin(creating: true) { admin in try await Self.setUp(admin) }
        let base = configuration.publicURL.absoluteString.trimmingCharacters(in: CharacterSet(charactersIn: "/"))
        print(
            """
            Redeem demo — app "\(summary.app.name)" (\(summary.app.id)), scheme \(summary.app.scheme)
              database:          \(configuration.databaseURL)
              public sandbox:    \(summary.publicKey)
              secret:            \(summary.secretKey)
              admin:             \(summary.adminKey)

            Buy in the browser (sandbox checkout; the success page shows the redemption link and QR code):
              \(base)/sandbox/p/\(summary.app.id)/pro_monthly

            Try it:
              curl -s \(base)/health
              curl -s -H 'Authorization: Bearer \(summary.publicKey)' \(base)/v1/subscribers/\(Self.customer)
              curl -s -H 'Authorization: Bearer \(summary.adminKey)' \(base)/admin/v1/apps
            API reference: \(base)/openapi.json
            """)
        fflush(nil)
        guard !setupOnly else { return }
        let app = try await buildApplication(configuration)
        try await app.runService()
    }

    struct Summary {
        let app: App
        let publicKey: String
        let secretKey: String
        let adminKey: String
    }

    /// Creates the demo app and catalog on first run, then new keys every run (keys are stored hashed).
    static func setUp(_ admin: AdminService) async throws -> Summary {
        let app: App
        if let existing = try await admin.store.apps().first(where: { $0.name == appName }) {
            app = existing
        } else {
            var changes = AppChanges()
            changes.name = appName
            changes.redemptionLinkPolicy = RedemptionLinkPolicy.enabled.rawValue
            changes.supportEmail = "support@example.com"
            app = try await admin.createApp(changes).app
            _ = try await admin.createProduct(
                appID: app.id,
                ProductInput(
                    id: "pro_monthly", type: "subscription", period: "P1M", displayName: "Pro Monthly", entitlements: ["pro"],
                    price: PriceInput(amount: "4.99", currency: "USD")))
            _ = try await admin.createProduct(
                appID: app.id,
                ProductInput(
                    id: "pro_lifetime", type: "non_consumable", displayName: "Pro Lifetime", entitlements: ["pro"],
                    price: PriceInput(amount: "49.99", currency: "USD")))
            _ = try await admin.createProduct(
                appID: app.id,
                ProductInput(
                    id: "coins_100", type: "consumable", displayName: "100 Coins", price: PriceInput(amount: "0.99", currency: "USD")))
            let grant = PurchaseGrant(
                appID: app.id, appUserID: try AppUserID(validating: customer), productID: "pro_monthly", store: .rcBilling,
                isSandbox: true, purchaseDate: admin.clock.now(), price: Price(amountMicros: 4_990_000, currency: "USD"),
                email: "buyer@example.com"
            )
            _ = try await admin.store.grant(grant, idempotency: nil, now: admin.clock.now())
        }
        return Summary(
            app: app,
            publicKey: try await admin.createKey(appID: app.id, kind: APIKeyKind.publicSandbox.rawValue).plaintext,
            secretKey: try await admin.createKey(appID: app.id, kind: APIKeyKind.secret.rawValue).plaintext,
            adminKey: try await admin.createKey(appID: nil, kind: APIKeyKind.admin.rawValue).plaintext
        )
    }
}

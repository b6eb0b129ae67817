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

    /// Found by this ID on every run, whatever it has been renamed to.
    static let appID = "app_demo"
    static let appName = "Redeem Demo"
    static let customer = "demo-user"
    /// The label of the keys each run creates; the next run revokes them.
    static let keyLabel = "redeem demo"

    @OptionGroup var options: ServerOptions
    @Flag(help: "Set up and print the keys, but do not start the server.")
    var setupOnly = false
    @Flag(
        help:
            "Listen on all interfaces and use this machine's LAN address as the public URL, so a phone on the same network can open the links and QR codes."
    )
    var lan = false

    func run() async throws {
        var configuration = try options.configuration()
        if lan {
            guard let address = LANAddress.first() else {
                throw ConfigurationError(setting: "--lan", reason: "this machine has no LAN (non-loopback IPv4) address")
            }
            configuration.host = "0.0.0.0"
            if Settings.reader(flags: options.flags).text(.publicURL) == nil {
                configuration.publicURL = URL(string: "http://\(address):\(configuration.port)")!
            }
        }
        let summary = try await options.database.withAdmin(creating: true) { admin in try await Self.setUp(admin) }
        let password = try await options.database.withStore { try await Self.setUpOperator(OperatorService(store: $0)) }
        let base = configuration.publicURL.absoluteString.trimmingCharacters(in: CharacterSet(charactersIn: "/"))
        print(
            """
            Redeem demo — app "\(summary.app.name)" (\(summary.app.id)), scheme \(summary.app.scheme)
              database:          \(configuration.databaseURL)
              public sandbox:    \(summary.publicKey)
              secret:            \(summary.secretKey)
              admin:             \(summary.adminKey)
            \(summary.revoked > 0 ? "  (the \(summary.revoked) keys of the previous demo run are revoked)\n" : "")
            Buy in the browser (sandbox checkout; the success page shows the redemption link and QR code):
              \(base)/sandbox/p/\(summary.app.id)/pro_monthly
            \(lan ? "  (open it on a phone on this network; --lan listens on all interfaces)\n" : "")
            Try it:
              curl -s \(base)/health
              curl -s -H 'Authorization: Bearer \(summary.publicKey)' \(base)/v1/subscribers/\(Self.customer)
              curl -s -H 'Authorization: Bearer \(summary.adminKey)' \(base)/admin/v1/apps
            Console (customer support): \(base)/console
              sign in as \(Self.operatorEmail) with password \(password)  (a new one each run)
            API reference: \(base)/openapi.json
            """)
        fflush(nil)
        guard !setupOnly else { return }
        let app = try await buildApplication(configuration)
        try await app.runService()
    }

    static let operatorEmail = "owner@example.com"

    /// The demo's owner operator, with a new random password each run (stored only as its bcrypt hash).
    static func setUpOperator(_ operators: OperatorService) async throws -> String {
        let password = SecretToken.generate(byteCount: 12)
        if try await operators.list().contains(where: { $0.email == operatorEmail }) {
            try await operators.resetPassword(email: operatorEmail, password: password, actor: "redeem demo")
        } else {
            _ = try await operators.create(email: operatorEmail, role: .owner, password: password, actor: "redeem demo")
        }
        return password
    }

    struct Summary {
        let app: App
        let publicKey: String
        let secretKey: String
        let adminKey: String
        /// Keys of earlier runs revoked by this one.
        let revoked: Int
    }

    /// The demo app as a buyer should first see a product: an icon (served by Redeem), store links and a support address.
    static var settings: AppChanges {
        var changes = AppChanges()
        changes.name = appName
        changes.redemptionLinkPolicy = RedemptionLinkPolicy.enabled.rawValue
        changes.supportEmail = "support@example.com"
        changes.iconURL = "/assets/demo-icon.svg"
        // Placeholders that open real store pages, so the badges work; replace them with your app's.
        changes.appStoreURL = "https://apps.apple.com/app/id375380948"
        changes.playStoreURL = "https://play.google.com/store/apps/details?id=com.android.chrome"
        return changes
    }

    /// Creates the demo app and catalog on first run; every run revokes the previous run's keys and makes new ones
    /// (keys are stored hashed, so they cannot be shown again).
    static func setUp(_ admin: AdminService) async throws -> Summary {
        let app: App
        if let existing = try? await admin.app(id: appID) {
            app = existing
        } else {
            app = try await admin.createApp(settings, id: appID).app
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
                isSandbox: true, purchaseDate: admin.clock.now(), price: try Price(text: "4.99", currency: "USD"),
                email: "buyer@example.com"
            )
            _ = try await admin.recordPurchase(grant, detail: "pro_monthly for the demo customer")
        }
        let previous = try await admin.keys(appID: nil).filter { $0.label == keyLabel && $0.revokedAt == nil }
        for key in previous { try await admin.revokeKey(id: key.id, appID: nil) }
        return Summary(
            app: app,
            publicKey: try await admin.createKey(appID: app.id, kind: APIKeyKind.publicSandbox.rawValue, label: keyLabel).plaintext,
            secretKey: try await admin.createKey(appID: app.id, kind: APIKeyKind.secret.rawValue, label: keyLabel).plaintext,
            adminKey: try await admin.createKey(appID: nil, kind: APIKeyKind.admin.rawValue, label: keyLabel).plaintext,
            revoked: previous.count
        )
    }
}

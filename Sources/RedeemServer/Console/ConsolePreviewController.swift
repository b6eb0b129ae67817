import Foundation
import Hummingbird
import RedeemCore

/// `/console/apps/{app_id}/preview/{success|link|checkout}`: the buyer's success, link and sandbox checkout pages as the
/// app's settings would make them, rendered by the same code as the real pages, with a sample purchase and a link that
/// redeems nothing. The settings form passes what is typed (not yet saved) in the query; a value that would be refused
/// is left out. The checkout takes `scheme=light|dark`, so the branding's two schemes show side by side.
struct ConsolePreviewController {
    let service: ConsoleService
    let admin: AdminService
    let checkoutPages: CheckoutPages
    let linkPages: LinkPageController
    let publicURL: URL

    /// Stands in for a token: no token has this form, so the sample link opens the "not valid" page.
    static let sampleToken = "preview"

    func addRoutes(to router: RouterGroup<ConsoleContext>) {
        router.get("/console/apps/{app_id}/preview/success", use: success)
        router.get("/console/apps/{app_id}/preview/link", use: link)
        router.get("/console/apps/{app_id}/preview/checkout", use: checkout)
    }

    @Sendable func success(_ request: Request, context: ConsoleContext) async throws -> Response {
        let app = try await previewApp(request, context)
        let now = service.clock.now()
        let product = try await admin.products(appID: app.id).first { $0.price != nil } ?? Self.sampleProduct(app: app, now: now)
        let purchase = Purchase(
            id: "pur_preview", appID: app.id, customerID: "preview", productID: product.id, store: .rcBilling, isSandbox: true,
            purchaseDate: now, originalPurchaseDate: now, expiresDate: nil, storeTransactionID: "preview", price: product.price,
            email: "buyer@example.com", createdAt: now)
        let redemption = RedemptionLink(
            token: Self.sampleToken, scheme: app.scheme, publicURL: publicURL,
            expiresAt: now.addingTimeInterval(Double(app.redemptionLinkLifetimeSeconds)))
        return try checkoutPages.successPage(
            link: CheckoutLink(app: app, product: product, buyer: nil), purchase: purchase, showing: .live(redemption), now: now,
            framing: .framedBySelf)
    }

    @Sendable func link(_ request: Request, context: ConsoleContext) async throws -> Response {
        let app = try await previewApp(request, context)
        return try linkPages.render(
            status: .ok, state: .valid, app: app, token: Self.sampleToken, flash: false,
            expiresIn: TimeLeft.words(seconds: app.redemptionLinkLifetimeSeconds), framing: .framedBySelf)
    }

    /// The sandbox checkout's form in the app's branding; its form goes nowhere (it has no checkout behind it).
    @Sendable func checkout(_ request: Request, context: ConsoleContext) async throws -> Response {
        let app = try await previewApp(request, context)
        let product = try await admin.products(appID: app.id).first { $0.price != nil } ?? Self.sampleProduct(app: app, now: service.clock.now())
        let page = SandboxCheckoutPage(
            productName: product.displayName ?? product.id, price: BuyerFormat.english.product(product), action: "#", hidden: [],
            codeAction: "#", email: "buyer@example.com")
        let scheme = request.uri.queryParameters["scheme"].flatMap { ColorScheme(rawValue: String($0)) }
        return checkoutPages.page("sandbox-checkout", page, app: app, status: .ok, framing: .framedBySelf, scheme: scheme)
    }

    /// The stored app with each typed value that would be accepted.
    func previewApp(_ request: Request, _ context: ConsoleContext) async throws -> App {
        var app = try context.currentApp
        let query = request.uri.queryParameters
        let now = service.clock.now()
        let fields: [(String, WritableKeyPath<AppChanges, String?>)] = [
            ("name", \.name), ("icon_url", \.iconURL), ("app_store_url", \.appStoreURL), ("play_store_url", \.playStoreURL),
            ("support_email", \.supportEmail), ("terms_url", \.termsURL), ("privacy_url", \.privacyURL),
        ]
        for (name, path) in fields {
            guard let raw = query[name[...]].map(String.init) else { continue }
            var changes = AppChanges()
            changes[keyPath: path] = raw.removingPercentEncoding ?? raw
            try? changes.apply(to: &app, now: now)
        }
        // The branding as a whole: a colour is judged with the others (contrast), so a refused set leaves the saved one.
        var branding = AppChanges()
        let brandFields: [(String, WritableKeyPath<AppChanges, String?>)] = [
            ("brand_logo_url", \.brandLogoURL), ("brand_accent", \.brandAccent), ("brand_background", \.brandBackground),
            ("brand_foreground", \.brandForeground), ("brand_accent_dark", \.brandAccentDark),
            ("brand_background_dark", \.brandBackgroundDark), ("brand_foreground_dark", \.brandForegroundDark),
        ]
        for (name, path) in brandFields {
            guard let raw = query[name[...]].map(String.init) else { continue }
            branding[keyPath: path] = raw.removingPercentEncoding ?? raw
        }
        try? branding.apply(to: &app, now: now)
        if let minutes = query["redemption_link_lifetime_minutes"].flatMap({ Int($0) }) {
            var changes = AppChanges()
            changes.redemptionLinkLifetimeSeconds = minutes * 60
            try? changes.apply(to: &app, now: now)
        }
        return app
    }

    /// For an app without a priced product yet.
    static func sampleProduct(app: App, now: Date) -> Product {
        Product(
            appID: app.id, id: "pro_monthly", type: .subscription, period: "P1M", displayName: "Pro (sample)", entitlements: ["pro"],
            price: Price(amountMicros: 4_990_000, currency: "USD"), createdAt: now)
    }
}

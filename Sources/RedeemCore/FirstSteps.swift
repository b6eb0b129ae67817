/// What a new app still needs before it sells, as a checklist ticked from what is really configured: the app's settings
/// plus the counts and server settings a store and the server read (`FirstStepsFacts`). Decided here, shown by the console.
public struct FirstStepsFacts: Hashable, Sendable {
    public var app: App
    public var products: Int
    /// Products with a price: only those have purchase links.
    public var pricedProducts: Int
    public var webhookEndpoints: Int
    /// Whether the server has an SMTP server for receipts and links.
    public var mailConfigured: Bool
    /// Whether the server has Stripe keys; without them only sandbox links complete a purchase.
    public var stripeConfigured: Bool

    public init(app: App, products: Int, pricedProducts: Int, webhookEndpoints: Int, mailConfigured: Bool, stripeConfigured: Bool) {
        self.app = app
        self.products = products
        self.pricedProducts = pricedProducts
        self.webhookEndpoints = webhookEndpoints
        self.mailConfigured = mailConfigured
        self.stripeConfigured = stripeConfigured
    }
}

public struct FirstStep: Hashable, Sendable {
    public enum Kind: String, CaseIterable, Sendable {
        case product
        case purchaseLink = "purchase_link"
        case linkPolicy = "link_policy"
        case appLinks = "app_links"
        case email, stripe, webhook
    }

    /// Where the step is done: the console page's place, which the console turns into a URL.
    public enum Place: String, Sendable {
        case products, settings, emails, webhooks
    }

    public let kind: Kind
    public let done: Bool
    public let title: String
    /// What is configured, or what is missing and why it matters.
    public let detail: String
    public let place: Place
}

extension AppSetupCheck {
    /// Whether HTTPS links open the app: Apple's team and bundle ID, or Android's package with its certificate
    /// fingerprints (without them assetlinks.json is not served).
    public static func hasAppLinks(_ app: App) -> Bool {
        (app.iosTeamID != nil && app.iosBundleID != nil) || (app.androidPackageName != nil && !app.androidCertFingerprints.isEmpty)
    }

    /// The first steps in order, each ticked from the facts.
    public static func firstSteps(_ facts: FirstStepsFacts) -> [FirstStep] {
        let app = facts.app
        let policy = app.linkPolicyChosenAt != nil
        return [
            FirstStep(
                kind: .product, done: facts.products > 0, title: "Add a product",
                detail: facts.products > 0 ? "\(facts.products) product\(facts.products == 1 ? "" : "s")." : "Nothing to sell yet.",
                place: .products),
            FirstStep(
                kind: .purchaseLink, done: facts.pricedProducts > 0, title: "Give a product a price for its purchase link",
                detail: facts.pricedProducts > 0
                    ? "Purchase links are ready on the products page." : "A product has purchase links once it has a price.",
                place: .products),
            FirstStep(
                kind: .linkPolicy, done: policy, title: "Choose the redemption link policy",
                detail: policy
                    ? "Redemption links: \(app.redemptionLinkPolicy.rawValue.replacingOccurrences(of: "_", with: " "))."
                    : "Decide whether buyers get a link that opens the app (on by default until you choose).",
                place: .settings),
            FirstStep(
                kind: .appLinks, done: hasAppLinks(app), title: "Set the app's URL scheme and universal or app links",
                detail: hasAppLinks(app)
                    ? "Links open the app through \(app.scheme):// and HTTPS."
                    : "The scheme is \(app.scheme)://; add the iOS team and bundle ID, or the Android package and certificate "
                        + "fingerprints, so HTTPS links open the app.",
                place: .settings),
            FirstStep(
                kind: .email, done: facts.mailConfigured, title: "Configure e-mail",
                detail: facts.mailConfigured
                    ? "Receipts and links are e-mailed."
                    : "No SMTP server (--smtp-url / REDEEM_SMTP_URL): no receipts or links are e-mailed.",
                place: .emails),
            FirstStep(
                kind: .stripe, done: facts.stripeConfigured, title: "Add Stripe keys",
                detail: facts.stripeConfigured
                    ? "Stripe Checkout takes payments."
                    : "Sandbox only: without Stripe keys (REDEEM_STRIPE_SECRET_KEY) only sandbox links complete a purchase; "
                        + "production links sell nothing.",
                place: .settings),
            FirstStep(
                kind: .webhook, done: facts.webhookEndpoints > 0, title: "Add a webhook endpoint",
                detail: facts.webhookEndpoints > 0 ? "Your server hears of purchases." : "Your server hears nothing of purchases yet.",
                place: .webhooks),
        ]
    }
}

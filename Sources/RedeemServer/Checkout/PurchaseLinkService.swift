import Foundation
import RedeemCore
import RedeemStore

/// The purchase links' use cases: what a link names, the paid checkout (its Stripe session and its funnel record),
/// Stripe's return, the success page reopened by its link, and the sandbox checkout's start.
struct PurchaseLinkService: Sendable {
    let store: any CheckoutStore
    let checkout: CheckoutService
    let stripe: StripeSessions?
    let links: RedemptionLinkIssuer
    let clock: any RedeemClock
    let publicURL: URL

    /// Whether production links can take payments here (Stripe is configured).
    var sellsPaid: Bool { stripe != nil }

    /// The app, product and buyer a link names; 404 for unknown ones, 403 when the anonymous form is not allowed.
    /// `checkingBuyer` false: Stripe's return, whose buyer was checked when the checkout began.
    /// The price is chosen from `currency` (`?currency=`; one the product lacks throws `CurrencyUnavailable`), the
    /// browser's `acceptLanguage` regions, else the default, and set as the link's product's `price`.
    func link(
        appID: String, productID: String, buyer rawUser: String?, sandbox: Bool, format: BuyerFormat, checkingBuyer: Bool = true,
        currency: String? = nil, acceptLanguage: String? = nil
    ) async throws -> CheckoutLink {
        let app = try await store.app(id: appID)
        var product = try await store.product(appID: app.id, id: productID)
        let buyer = try rawUser.flatMap { $0.isEmpty ? nil : try AppUserID.parse($0) }
        if checkingBuyer { try checkout.ensureBuyerAllowed(app: app, buyer: buyer, sandbox: sandbox) }
        let billing = try await store.productBilling(appID: app.id, productID: product.id)
        let pricing = try CheckoutPricing.choose(app: app, product: product, billing: billing, requested: currency, acceptLanguage: acceptLanguage)
        if let pricing { product.price = pricing.chosen.price }
        return CheckoutLink(app: app, product: product, buyer: buyer, format: format, pricing: pricing)
    }

    /// A Stripe Checkout Session for the link (`app` with the link's own settings), counted in the funnel; its URL.
    func startPaid(
        link: CheckoutLink, app: App, email: String?, params: [String: String], successURL: String, cancelURL: String
    ) async throws -> String {
        guard let stripe else { throw CheckoutError.paidCheckoutUnavailable(hint: "use a sandbox link") }
        try await checkout.ensureNotOwned(product: link.product, buyer: link.buyer, at: clock.now())
        let trialDays = try await checkout.trialDays(product: link.product, offered: link.pricing?.trialDays, buyer: link.buyer, email: email)
        // The Stripe Price made when the price was set; without one (set before Stripe was configured, or through the
        // catalog's `price`), `price_data` inline as before.
        let stripePrice = link.pricing?.chosen.stripePriceID
        let url = try await stripe.createSession(
            app: app, product: link.product, buyer: link.buyer, email: email, customParams: params, successURL: successURL, cancelURL: cancelURL,
            stripePriceID: stripePrice, trialDays: trialDays)
        try await store.recordCheckoutStart(appID: link.app.id, productID: link.product.id, sandbox: false, now: clock.now())
        return url
    }

    /// Where Stripe's return stands.
    enum PaidReturn {
        /// The webhook has not recorded the purchase yet.
        case pending
        /// `shownBefore`: this return was opened before and got its link then; none is minted again.
        case completed(CheckoutService.Completed, shownBefore: Bool)
    }

    /// Stripe's return for checkout `session`: pending until the webhook has recorded the purchase, then completed with
    /// the return's one link.
    func paidReturn(app: App, session: String) async throws -> PaidReturn {
        guard let purchase = try await store.purchase(appID: app.id, checkoutReference: session) else { return .pending }
        let once = try await links.issueOnce(for: purchase, occasion: "checkout_return:" + SecretToken.hash(session), now: clock.now())
        let owner = try await store.originalAppUserID(customerID: purchase.customerID)
        let buyer = (try? AppUserID(validating: owner ?? "")) ?? AppUserID.anonymous()
        let link: RedemptionLink? = if case .issued(let link) = once { link } else { nil }
        let shownBefore = if case .issuedBefore = once { true } else { false }
        return .completed(.init(purchase: purchase, link: link, buyer: buyer), shownBefore: shownBefore)
    }

    /// The success page reopened by the link it shows: the purchase and the link's state, used once the purchase was
    /// redeemed through any of its links (the receipt e-mail carries another). Consumes nothing.
    func reopened(token: String, format: BuyerFormat) async throws -> (link: CheckoutLink, purchase: Purchase, shown: CheckoutPages.LinkShown) {
        guard RedemptionLink.isWellFormed(token), let state = try await store.redemptionTokenState(tokenHash: SecretToken.hash(token)) else {
            throw APIError.notFound("This page’s address is incomplete. Open the link from your receipt e-mail, or sign in to your account.")
                .onPage("error.detail.incomplete_address")
        }
        let app = try await store.app(id: state.appID)
        let purchase = try await store.purchase(appID: app.id, id: state.purchaseID)
        let product = try await store.product(appID: app.id, id: purchase.productID)
        let now = clock.now()
        let redeemedElsewhere =
            state.consumedAt == nil && state.expiresAt > now
            ? try await store.redemptionLinks(appID: app.id, purchaseID: purchase.id).contains { $0.redeemedAt != nil } : false
        let shown: CheckoutPages.LinkShown =
            if state.consumedAt != nil || redeemedElsewhere {
                .used
            } else if state.expiresAt <= now {
                .expired
            } else {
                .live(RedemptionLink(token: token, scheme: app.scheme, publicURL: publicURL, expiresAt: state.expiresAt))
            }
        return (CheckoutLink(app: app, product: product, buyer: nil, format: format), purchase, shown)
    }

    /// The sandbox checkout's ID: a checkout started through the JSON API keeps its own (and was counted then), so its
    /// status shows the purchase; otherwise a new one, counted now.
    func startSandbox(link: CheckoutLink, given: String?) async throws -> String {
        // Said before the buyer fills in the form, as `startPaid` says it before Stripe.
        try await checkout.ensureNotOwned(product: link.product, buyer: link.buyer, at: clock.now())
        if let given, let started = try await store.webCheckout(appID: link.app.id, id: given), started.isSandbox {
            try await store.advanceWebCheckout(id: started.id, to: .inProgress, now: clock.now())
            return started.id
        }
        try await store.recordCheckoutStart(appID: link.app.id, productID: link.product.id, sandbox: true, now: clock.now())
        return SecretToken.generate(byteCount: 16)
    }
}

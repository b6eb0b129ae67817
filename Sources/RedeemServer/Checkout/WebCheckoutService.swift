import Foundation
import RedeemCore
import RedeemStore

/// The JSON purchase API's use cases: start a checkout (the sandbox page, or a Stripe Checkout Session) and report
/// its state, with a fresh single-use redemption link once it has succeeded.
struct WebCheckoutService: Sendable {
    let store: any CheckoutStore
    let clock: any RedeemClock
    let publicURL: URL
    let stripe: StripeSessions?
    let links: RedemptionLinkIssuer
    /// Who may buy: the rules the purchase links apply too.
    let checkout: CheckoutService

    struct Start: Sendable {
        let productID: String
        let appUserID: String?
        let email: String?
        let metadata: [String: String]
        /// The buyer's language tag, as a browser names it.
        var language: String? = nil
        /// The request's `Accept-Language`: the buyer's when their browser calls; read when `language` names none
        /// Redeem speaks.
        var acceptLanguage: String? = nil
    }

    struct State: Sendable {
        let checkout: WebCheckout
        var checkoutURL: String?
        var purchaseID: String?
        var link: RedemptionLink?
    }

    func start(_ input: Start, appID: String, sandbox: Bool) async throws -> State {
        let app = try await store.app(id: appID)
        let product = try await store.product(appID: appID, id: input.productID)
        let buyer = try input.appUserID.map(AppUserID.parse)
        try checkout.ensureBuyerAllowed(app: app, buyer: buyer, sandbox: sandbox)
        if let email = input.email, !Formats.isEmail(email) { throw ValidationError(field: "email", reason: "must be an e-mail address") }
        if let tag = input.language, !AcceptLanguage.isTag(tag) {
            throw ValidationError(field: "language", reason: "must be a language tag such as de or pt-BR")
        }
        // The pages the buyer is sent to speak it (`?lang=`, which they remember), and so does the purchase it makes:
        // named here, and the receipt does not depend on whether Stripe's webhook or the buyer's return comes first.
        let languages = BuyerLanguages.bundled
        let language = (languages.named(input.language) ?? languages.spoken(acceptLanguage: input.acceptLanguage))?.language
        let lang = language.map { [URLQueryItem(name: "lang", value: $0)] } ?? []
        let now = clock.now()
        // Refused before anything starts, as a purchase link is: in production the buyer would otherwise pay Stripe
        // for what they hold, and in the sandbox fill in a form the payment then refuses.
        try await checkout.ensureNotOwned(product: product, buyer: buyer, at: now)
        var started = WebCheckout(
            id: "chk_" + SecretToken.generate(byteCount: 16), appID: appID, productID: product.id, appUserID: buyer?.rawValue,
            email: input.email, isSandbox: sandbox, status: .started, createdAt: now, updatedAt: now
        )
        let base = publicURL.absoluteString.trimmingCharacters(in: CharacterSet(charactersIn: "/"))
        if sandbox {
            var components = URLComponents(string: "\(base)/sandbox/p/\(app.id)/\(product.id)")!
            components.queryItems =
                [URLQueryItem(name: "checkout_id", value: started.id)]
                + (buyer.map { [URLQueryItem(name: "app_user_id", value: $0.rawValue)] } ?? [])
                + (input.email.map { [URLQueryItem(name: "email", value: $0)] } ?? [])
                + input.metadata.sorted { $0.key < $1.key }.map { URLQueryItem(name: $0.key, value: $0.value) } + lang
            try await store.createWebCheckout(started)
            return State(checkout: started, checkoutURL: components.string!)
        }
        guard let stripe else { throw CheckoutError.paidCheckoutUnavailable(hint: "use a sandbox key") }
        var metadata = input.metadata
        metadata["redeem_checkout_id"] = started.id
        if let language { metadata["redeem_language"] = language }
        try await store.createWebCheckout(started)
        let url = try await stripe.createSession(
            app: app, product: product, buyer: buyer, email: input.email, customParams: metadata,
            successURL: "\(base)/checkout/\(app.id)/\(product.id)/success?session_id={CHECKOUT_SESSION_ID}&checkout_id=\(started.id)"
                + (language.map { "&lang=\($0)" } ?? ""),
            cancelURL: "\(base)/p/\(app.id)/\(product.id)"
        )
        try await store.advanceWebCheckout(id: started.id, to: .inProgress, now: now)
        started.status = .inProgress
        return State(checkout: started, checkoutURL: url)
    }

    /// A succeeded checkout issues a new link on every call: each one is single-use.
    func state(appID: String, id: String) async throws -> State {
        guard var checkout = try await store.webCheckout(appID: appID, id: id) else { throw StoreError.notFound("checkout '\(id)'") }
        guard let purchase = try await store.purchase(appID: appID, checkoutReference: checkout.id) else { return State(checkout: checkout) }
        let now = clock.now()
        if checkout.status != .succeeded {
            try await store.advanceWebCheckout(id: checkout.id, to: .succeeded, now: now)
            checkout.status = .succeeded
        }
        return State(checkout: checkout, purchaseID: purchase.id, link: try await links.issue(for: purchase, now: now))
    }
}

import Foundation
import Hummingbird
import RedeemCore
import RedeemQR
import RedeemStore

/// Web purchase links and the built-in sandbox checkout.
///
/// `/p/{app_id}/{product_id}` is the production link, `/sandbox/p/{app_id}/{product_id}` the sandbox one; either takes the
/// buyer's app user ID as a last path segment or `?app_user_id=`. `?email=` prefills and locks the address; any other
/// query parameter is kept with the purchase and passed on.
struct CheckoutPageController {
    let service: PurchaseLinkService
    let checkout: CheckoutService
    let clock: any RedeemClock
    let pages: CheckoutPages
    let publicURL: URL

    func addRoutes(to router: Router<AppRequestContext>) {
        for path in ["/sandbox/p/{app_id}/{product_id}", "/sandbox/p/{app_id}/{product_id}/{app_user_id}"] {
            router.get(RouterPath(path), use: sandboxPage)
            router.post(RouterPath(path), use: sandboxPay)
        }
        for path in ["/p/{app_id}/{product_id}", "/p/{app_id}/{product_id}/{app_user_id}"] {
            router.get(RouterPath(path), use: productionPage)
        }
        router.get("/checkout/{app_id}/{product_id}/success", use: paidReturn)
        router.get("/checkout/done/{token}", use: done)
    }

    /// The app, product and buyer a link names; 404 for unknown ones, 403 when the anonymous form is not allowed.
    func resolve(_ request: Request, context: AppRequestContext, sandbox: Bool, fields: [String: String] = [:]) async throws -> CheckoutLink {
        let rawUser =
            context.parameters.get("app_user_id").map { $0.removingPercentEncoding ?? $0 }
            ?? fields["app_user_id"] ?? request.uri.queryParameters["app_user_id"].map(String.init)
        return try await service.link(
            appID: try context.parameters.decoded("app_id"), productID: try context.parameters.decoded("product_id"), buyer: rawUser,
            sandbox: sandbox, format: BuyerFormat(acceptLanguage: request.headers[.acceptLanguage]),
            currency: fields["currency"] ?? request.uri.queryParameters["currency"].map(String.init),
            acceptLanguage: request.headers[.acceptLanguage])
    }

    /// A link's page, or the product's currencies when `?currency=` named one it lacks (422, never a server error).
    func pricedPage(_ request: Request, _ body: () async throws -> Response) async throws -> Response {
        do {
            return try await body()
        } catch let refused as CurrencyUnavailable {
            let format = BuyerFormat(acceptLanguage: request.headers[.acceptLanguage])
            let query = request.uri.queryParameters.map { (String($0.key), String($0.value)) }.sorted { $0.0 < $1.0 }
            let page = CurrencyChoicePage(
                productName: refused.product.displayName ?? refused.product.id, requested: refused.requested,
                choices: CheckoutPricing.links(refused.available, path: request.uri.path, query: query, product: refused.product, format: format))
            return pages.page("checkout-currency", page, app: refused.app, status: .unprocessableContent)
        }
    }

    /// Production links go to Stripe Checkout; the webhook records the purchase, and Stripe sends the buyer back to `paidReturn`.
    @Sendable func productionPage(_ request: Request, context: AppRequestContext) async throws -> Response {
        try await pricedPage(request) { try await productionCheckout(request, context: context) }
    }

    func productionCheckout(_ request: Request, context: AppRequestContext) async throws -> Response {
        let link = try await resolve(request, context: context, sandbox: false)
        // The link's own settings are checked first, so a bad one is refused wherever the link leads.
        let overrides = Self.overrideFields(request)
        var app = try Self.overriding(link.app, with: overrides, now: clock.now())
        switch request.uri.queryParameters["allow_promotion_codes"] {
        case nil, "false": break
        // A link may offer Stripe promotion codes where the app does not.
        case "true": app.allowPromotionCodes = true
        default: throw ValidationError(field: "allow_promotion_codes", reason: "must be true or false")
        }
        if let redirect = Self.offerCodeRedirect(request, link: link, sandbox: false) { return redirect }
        guard service.sellsPaid else { return pages.notForSale(link: link) }
        var params: [String: String] = [:]
        for (name, value) in request.uri.queryParameters where !Self.reserved.contains(String(name)) { params[String(name)] = String(value) }
        let base = publicURL.absoluteString.trimmingCharacters(in: CharacterSet(charactersIn: "/"))
        let overrideQuery = overrides.sorted { $0.key < $1.key }.map { "&\($0.key)=\(CheckoutPages.encode($0.value))" }.joined()
        let url = try await service.startPaid(
            link: link, app: app, email: request.uri.queryParameters["email"].map(String.init), params: params,
            successURL: "\(base)/checkout/\(link.app.id)/\(link.product.id)/success?session_id={CHECKOUT_SESSION_ID}\(overrideQuery)",
            cancelURL: base + request.uri.path)
        var response = Response(status: .seeOther)
        response.headers[.location] = url
        response.headers[.cacheControl] = "no-store"
        return response
    }

    /// Stripe's return: the success step once the webhook has recorded the purchase, a self-refreshing page until then.
    @Sendable func paidReturn(_ request: Request, context: AppRequestContext) async throws -> Response {
        var link = try await service.link(
            appID: try context.parameters.decoded("app_id"), productID: try context.parameters.decoded("product_id"), buyer: nil,
            sandbox: false, format: BuyerFormat(acceptLanguage: request.headers[.acceptLanguage]), checkingBuyer: false)
        let app = try Self.overriding(link.app, with: Self.overrideFields(request), now: clock.now())
        link = CheckoutLink(app: app, product: link.product, buyer: nil, format: link.format)
        guard let session = request.uri.queryParameters["checkout_id"] ?? request.uri.queryParameters["session_id"],
            (8...255).contains(session.count)
        else {
            // Stripe always adds the session: without one this is not a return from checkout, and waiting would not end.
            let page = MessagePage(title: BuyerTexts.current["checkout.no_session_title"], text: BuyerTexts.current["checkout.no_session_text"])
            return pages.page("message", page, app: app, status: .badRequest)
        }
        switch try await service.paidReturn(app: app, session: String(session)) {
        case .pending: return pages.page("checkout-pending", CheckoutPendingPage(), app: app, status: .ok)
        case .completed(let completed, shownBefore: true) where app.afterPurchase == .hosted:
            return try pages.successPage(
                link: link, purchase: completed.purchase, showing: .shownBefore, now: clock.now(),
                manageURL: PortalLinks.home(publicURL: publicURL, appID: app.id))
        case .completed(let completed, _): return try pages.afterPurchase(link: link, completed: completed, sandbox: completed.purchase.isSandbox)
        }
    }

    /// The success page, reopened by the link it shows (the redirect after a checkout, a reload, the buyer coming back).
    /// Opening it consumes nothing; once the link is used or expired it says so and points to the customer portal.
    @Sendable func done(_ request: Request, context: AppRequestContext) async throws -> Response {
        let token = try context.parameters.require("token")
        let (link, purchase, shown) = try await service.reopened(token: token, format: BuyerFormat(acceptLanguage: request.headers[.acceptLanguage]))
        let app = link.app
        let now = clock.now()
        return try pages.successPage(
            link: link, purchase: purchase, showing: shown, now: now, manageURL: PortalLinks.home(publicURL: publicURL, appID: app.id))
    }

    @Sendable func sandboxPage(_ request: Request, context: AppRequestContext) async throws -> Response {
        try await pricedPage(request) { try await sandboxCheckout(request, context: context) }
    }

    func sandboxCheckout(_ request: Request, context: AppRequestContext) async throws -> Response {
        let link = try await resolve(request, context: context, sandbox: true)
        let overrides = Self.overrideFields(request)
        _ = try Self.overriding(link.app, with: overrides, now: clock.now())  // refuse a bad override before the buyer pays
        if let redirect = Self.offerCodeRedirect(request, link: link, sandbox: true) { return redirect }
        let checkoutID = try await service.startSandbox(link: link, given: request.uri.queryParameters["checkout_id"].map(String.init))
        var hidden = [HiddenField(name: "checkout_id", value: checkoutID)]
        for (name, value) in overrides { hidden.append(HiddenField(name: name, value: value)) }
        if let buyer = link.buyer, context.parameters.get("app_user_id") == nil {
            hidden.append(HiddenField(name: "app_user_id", value: buyer.rawValue))
        }
        for (name, value) in request.uri.queryParameters where !Self.reserved.contains(String(name)) {
            hidden.append(HiddenField(name: "param." + String(name), value: String(value)))
        }
        // The chosen currency rides along, so the payment charges the price the page showed.
        if let chosen = link.pricing?.chosen { hidden.append(HiddenField(name: "currency", value: chosen.currency)) }
        let email = request.uri.queryParameters["email"].map(String.init)
        return sandboxForm(link: link, request: request, hidden: hidden, email: email, emailLocked: email != nil, status: .ok)
    }

    @Sendable func sandboxPay(_ request: Request, context: AppRequestContext) async throws -> Response {
        try await pricedPage(request) { try await sandboxPayment(request, context: context) }
    }

    func sandboxPayment(_ request: Request, context: AppRequestContext) async throws -> Response {
        let fields = try await FormBody.parse(request)
        let link = try await resolve(request, context: context, sandbox: true, fields: fields)
        guard let checkoutID = fields["checkout_id"], (16...64).contains(checkoutID.count) else {
            throw APIError.badRequest("Missing or malformed checkout_id; open the purchase link again.", field: "checkout_id")
                .onPage("error.detail.reload")
        }
        let email = (fields["email"] ?? "").trimmingCharacters(in: .whitespaces)
        let accepted = LegalLinks.ticked(fields)
        // The same form again, with what was typed: a typo is not a dead end. The box is the form's own, not carried.
        let hidden = fields.filter { $0.key != "email" && $0.key != LegalLinks.acceptField }.sorted { $0.key < $1.key }.map {
            HiddenField(name: $0.key, value: $0.value)
        }
        guard Formats.isEmail(email) else {
            return sandboxForm(
                link: link, request: request, hidden: hidden, email: String(email.prefix(254)), emailLocked: false,
                status: .unprocessableContent, error: CheckoutPages.emailRefused, termsAccepted: accepted)
        }
        guard link.app.consentGiven(ticked: accepted) else {
            return sandboxForm(
                link: link, request: request, hidden: hidden, email: email, emailLocked: false, status: .unprocessableContent,
                error: BuyerTexts.current["legal.accept_required"], termsRefused: true)
        }
        var params: [String: String] = [:]
        for (name, value) in fields where name.hasPrefix("param.") { params[String(name.dropFirst(6))] = value }
        let app = try Self.overriding(link.app, with: fields, now: clock.now())
        let trialDays = try await checkout.trialDays(product: link.product, offered: link.pricing?.trialDays, buyer: link.buyer, email: email)
        let completed = try await checkout.complete(
            app: link.app, product: link.product, buyer: link.buyer, email: email, sandbox: true, store: .rcBilling,
            storeTransactionID: nil, customParams: params, idempotencyKey: checkoutID, trialDays: trialDays,
            termsConsent: TermsConsent.given(app: link.app, ticked: accepted, at: clock.now())
        )
        return try pages.afterPurchase(
            link: CheckoutLink(app: app, product: link.product, buyer: link.buyer, format: link.format), completed: completed, sandbox: true)
    }
}

import Foundation
import Hummingbird
import RedeemCore
import RedeemStore

/// `/redeem?ctx=offercodes&id=<app>&code=<CODE>`, Apple's redemption URL shape, and its `/sandbox/redeem` twin.
/// Showing the page never redeems; the claim is a POST. Free offers become a purchase with a redemption link at once;
/// paid ones go through checkout (the built-in one in sandbox).
struct OfferRedeemPageController {
    let service: OfferCodeService
    let pages: CheckoutPages
    let stripe: StripeSessions?

    func addRoutes(to router: Router<AppRequestContext>) {
        router.get("/redeem") { try await self.show($0, $1, sandbox: false) }
        router.post("/redeem") { try await self.claim($0, $1, sandbox: false) }
        router.get("/sandbox/redeem") { try await self.show($0, $1, sandbox: true) }
        router.post("/sandbox/redeem") { try await self.claim($0, $1, sandbox: true) }
        router.post("/sandbox/redeem/pay", use: pay)
    }

    func show(_ request: Request, _ context: AppRequestContext, sandbox: Bool) async throws -> Response {
        let query = request.uri.queryParameters
        guard query["ctx"] == "offercodes" else { throw APIError.badRequest("This page redeems offer codes: ctx must be offercodes.", field: "ctx") }
        guard let appID = query["id"].map(String.init), !appID.isEmpty else { throw APIError.badRequest("Missing the app ID.", field: "id") }
        let app = try await service.app(id: appID)
        let buyer = try query["app_user_id"].flatMap { $0.isEmpty ? nil : try AppUserID.parse(String($0)) }
        let back = await backLink(app: app, productID: query["product"].map(String.init), buyer: buyer, sandbox: sandbox)
        var hidden = [HiddenField(name: "id", value: app.id)]
        if let buyer { hidden.append(HiddenField(name: "app_user_id", value: buyer.rawValue)) }
        if let back { hidden.append(HiddenField(name: "product", value: back.productID)) }
        var page = OfferRedeemPage(sandbox: sandbox)
        guard let code = query["code"].map(String.init), !code.trimmingCharacters(in: .whitespaces).isEmpty else {
            page.askCode = true
            page.hidden = hidden
            page.goBack(to: back)
            return self.page(app: app, status: .ok, page)
        }
        try await service.countPageView(ip: context.remoteIP)
        let found: FoundOfferCode
        switch try await service.lookUp(appID: app.id, code: code) {
        case .failure(let failure):
            return codeRefused(app: app, sandbox: sandbox, failure: failure, code: code, hidden: hidden, back: back)
        case .success(let value): found = value
        }
        page.describe(found, code: code, format: BuyerFormat(acceptLanguage: request.headers[.acceptLanguage]))
        // A paid offer needs Stripe in production: said before the buyer types anything, in the app's name.
        if found.offer.isPaid, !sandbox, stripe == nil {
            page.error = Self.notPayable(app)
            return self.page(app: app, status: .serviceUnavailable, page)
        }
        page.hidden =
            hidden + [
                HiddenField(name: "ctx", value: "offercodes"), HiddenField(name: "code", value: code),
                HiddenField(name: "claim_id", value: SecretToken.generate(byteCount: 16)),
            ]
        page.showForm = true
        if let back {
            page.goBack(to: back)
            // A code for another product than the one being bought: said, and the buyer chooses; never switched silently.
            if back.productID != found.product.id {
                page.mismatch =
                    "This code is for \(found.product.displayName ?? found.product.id), not \(back.name), which you were buying. "
                    + "Claim it for \(found.product.displayName ?? found.product.id) below, or go back to \(back.name) without a code."
            }
        }
        return self.page(app: app, status: .ok, page)
    }

    /// The claim's page again, the offer described and the form kept with what was typed, saying why it was refused.
    func refused(
        _ claim: Claim, found: FoundOfferCode, request: Request, sandbox: Bool, status: HTTPResponse.Status, error: String,
        emailRefused: Bool = false
    ) -> Response {
        var page = OfferRedeemPage(sandbox: sandbox)
        page.describe(found, code: claim.code, format: BuyerFormat(acceptLanguage: request.headers[.acceptLanguage]))
        page.hidden = claim.hiddenFields
        page.showForm = true
        page.email = claim.email
        page.error = error
        page.emailRefused = emailRefused
        return self.page(app: claim.app, status: status, page)
    }

    /// The form's POST: free offers are granted here; paid ones continue to checkout.
    func claim(_ request: Request, _ context: AppRequestContext, sandbox: Bool) async throws -> Response {
        let claim = try await Claim.parse(request, service: service)
        try await service.countClaim(ip: context.remoteIP, appID: claim.app.id, claimant: claim.claimant)
        if let done = try await alreadyClaimed(claim, sandbox: sandbox) { return done }
        let found: FoundOfferCode
        switch try await service.lookUpClaim(appID: claim.app.id, code: claim.code) {
        case .failure(let failure):
            let hidden = claim.hiddenFields.filter { $0.name == "id" || $0.name == "app_user_id" }
            return codeRefused(app: claim.app, sandbox: sandbox, failure: failure, code: claim.code, hidden: hidden, back: nil)
        case .success(let value): found = value
        }
        guard claim.emailIsValid else {
            return refused(
                claim, found: found, request: request, sandbox: sandbox, status: .unprocessableContent,
                error: CheckoutPages.emailRefused, emailRefused: true)
        }
        guard found.offer.isPaid else { return try await grant(claim, found: found, request: request, sandbox: sandbox, payment: nil) }
        // Decided as the redemption will decide it, before anyone pays for what they cannot have.
        if let failure = try await service.claimRefusal(
            appID: claim.app.id, code: claim.code, claimant: claim.claimant, email: claim.email, sandbox: sandbox)
        {
            return refused(claim, found: found, request: request, sandbox: sandbox, status: failure.pageStatus, error: failure.webMessage)
        }
        guard sandbox else { return try await stripeCheckout(claim, found: found) }
        let checkout = SandboxCheckoutPage(
            productName: found.product.displayName ?? found.product.id, price: OfferSummary.text(found.offer, product: found.product),
            action: "/sandbox/redeem/pay", hidden: claim.hiddenFields + [HiddenField(name: "email", value: claim.email)], email: claim.email,
            emailLocked: true)
        return pages.page("sandbox-checkout", checkout, app: claim.app, status: .ok)
    }

    /// Production: Stripe Checkout for the offer's price; the webhook redeems the code when the payment succeeds.
    func stripeCheckout(_ claim: Claim, found: FoundOfferCode) async throws -> Response {
        guard let stripe else {
            return page(app: claim.app, status: .serviceUnavailable, error: Self.notPayable(claim.app), sandbox: false)
        }
        let base = service.publicURL.absoluteString.trimmingCharacters(in: CharacterSet(charactersIn: "/"))
        let code = OfferCode.normalize(claim.code) ?? OfferCode.normalizeCustom(claim.code) ?? claim.code
        let url = try await stripe.createOfferSession(
            app: claim.app, product: found.product, offer: found.offer, code: code, claimant: claim.claimant, email: claim.email,
            successURL: "\(base)/checkout/\(claim.app.id)/\(found.product.id)/success?session_id={CHECKOUT_SESSION_ID}",
            cancelURL: OfferCodeLinks.redeemPageBase(publicURL: service.publicURL, appID: claim.app.id) + code
        )
        var response = Response(status: .seeOther)
        response.headers[.location] = url
        response.headers[.cacheControl] = "no-store"
        return response
    }

    /// The sandbox checkout of a paid offer: no money moves; the purchase carries the offer's price.
    @Sendable func pay(_ request: Request, context: AppRequestContext) async throws -> Response {
        let claim = try await Claim.parse(request, service: service)
        // The address was checked on the page before; a form without a valid one was not made by it.
        guard claim.emailIsValid else { throw ValidationError(field: "email", reason: "must be an e-mail address") }
        try await service.countPayment(ip: context.remoteIP)
        if let done = try await alreadyClaimed(claim, sandbox: true) { return done }
        guard let (found, price) = try await service.paidOffer(appID: claim.app.id, code: claim.code) else {
            return page(app: claim.app, status: .notFound, error: OfferRedemptionFailure.invalid.message, sandbox: true)
        }
        return try await grant(claim, found: found, request: request, sandbox: true, payment: .init(price: price))
    }

    /// A repeated submit of a claim that already succeeded: its success step again.
    func alreadyClaimed(_ claim: Claim, sandbox: Bool) async throws -> Response? {
        guard let purchase = try await service.earlierClaim(appID: claim.app.id, claimID: claim.claimID) else { return nil }
        let product = try await service.product(appID: claim.app.id, id: purchase.productID)
        return try await success(claim, purchase: purchase, product: product, sandbox: sandbox)
    }

    func success(_ claim: Claim, purchase: Purchase, product: Product, sandbox: Bool) async throws -> Response {
        let link = try await service.newLink(for: purchase)
        return try pages.afterPurchase(
            link: CheckoutLink(app: claim.app, product: product, buyer: claim.buyer),
            completed: CheckoutService.Completed(purchase: purchase, link: link, buyer: claim.claimant), sandbox: sandbox
        )
    }

    /// Redeems for the claim's buyer and shows the success step; a repeated submit shows the first result.
    func grant(
        _ claim: Claim, found: FoundOfferCode, request: Request, sandbox: Bool, payment: OfferCodeRedemptionRequest.Payment?
    ) async throws -> Response {
        let result = try await service.claimOnWeb(
            appID: claim.app.id, code: claim.code, claimID: claim.claimID, claimant: claim.claimant, email: claim.email, sandbox: sandbox,
            payment: payment
        )
        switch result {
        case .success(let purchase): return try await success(claim, purchase: purchase, product: found.product, sandbox: sandbox)
        case .failure(let failure):
            return refused(claim, found: found, request: request, sandbox: sandbox, status: failure.pageStatus, error: failure.webMessage)
        }
    }

    func page(app: App, status: HTTPResponse.Status, _ model: OfferRedeemPage) -> Response {
        pages.page("offer-redeem", model, app: app, status: status)
    }

    /// The page with only why it cannot go on.
    func page(app: App, status: HTTPResponse.Status, error: String, sandbox: Bool) -> Response {
        var page = OfferRedeemPage(sandbox: sandbox)
        page.error = error
        return self.page(app: app, status: status, page)
    }
}

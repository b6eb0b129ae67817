import Foundation
import Hummingbird
import RedeemCore
import RedeemStore

/// `/redeem?ctx=offercodes&id=<app>&code=<CODE>`, Apple's redemption URL shape, and its `/sandbox/redeem` twin.
/// Showing the page never redeems; the claim is a POST. Free offers become a purchase with a redemption link at once;
/// paid ones go through checkout (the built-in one in sandbox).
struct OfferRedeemPageController {
    let service: OfferCodeService
    let flow: OfferClaimFlow
    let pages: CheckoutPages

    func addRoutes(to router: Router<AppRequestContext>) {
        router.get("/redeem") { try await self.show($0, $1, sandbox: false) }
        router.post("/redeem") { try await self.claim($0, $1, sandbox: false) }
        router.get("/sandbox/redeem") { try await self.show($0, $1, sandbox: true) }
        router.post("/sandbox/redeem") { try await self.claim($0, $1, sandbox: true) }
        router.post("/sandbox/redeem/pay", use: pay)
    }

    func show(_ request: Request, _ context: AppRequestContext, sandbox: Bool) async throws -> Response {
        let query = request.uri.queryParameters
        guard query["ctx"] == "offercodes" else {
            throw APIError.badRequest("This page redeems offer codes: ctx must be offercodes.", field: "ctx").onPage("error.detail.reopen_offer")
        }
        guard let appID = query["id"].map(String.init), !appID.isEmpty else {
            throw APIError.badRequest("Missing the app ID.", field: "id").onPage("error.detail.reopen_offer")
        }
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
        if found.offer.isPaid, !sandbox, flow.stripe == nil {
            page.error = Self.notPayable(app)
            return self.page(app: app, status: .serviceUnavailable, page)
        }
        page.hidden =
            hidden + [
                HiddenField(name: "ctx", value: "offercodes"), HiddenField(name: "code", value: code),
                HiddenField(name: "claim_id", value: FormID.make()),
            ]
        page.showForm = true
        if let back {
            page.goBack(to: back)
            // A code for another product than the one being bought: said, and the buyer chooses; never switched silently.
            if back.productID != found.product.id {
                page.mismatch = BuyerTexts.current.format(
                    "offer.mismatch", ["productName": found.product.displayName ?? found.product.id, "backName": back.name])
            }
        }
        return self.page(app: app, status: .ok, page)
    }

    /// The claim's page again, the offer described and the form kept with what was typed, saying why it was refused.
    func refused(
        _ claim: Claim, found: FoundOfferCode, request: Request, sandbox: Bool, status: HTTPResponse.Status, error: String,
        emailRefused: Bool = false, termsRefused: Bool = false
    ) -> Response {
        var page = OfferRedeemPage(sandbox: sandbox)
        page.describe(found, code: claim.code, format: BuyerFormat(acceptLanguage: request.headers[.acceptLanguage]))
        page.hidden = claim.hiddenFields
        page.showForm = true
        page.email = claim.email
        page.error = error
        page.emailRefused = emailRefused
        page.termsAccepted = claim.acceptedTerms
        page.termsRefused = termsRefused
        return self.page(app: claim.app, status: status, page)
    }

    /// The form's POST: the claim's next step, decided by the flow, as a page.
    func claim(_ request: Request, _ context: AppRequestContext, sandbox: Bool) async throws -> Response {
        let claim = try await Claim.parse(request, service: service)
        return try render(try await flow.claim(claim, ip: context.remoteIP, sandbox: sandbox), claim: claim, request: request, sandbox: sandbox)
    }

    /// The sandbox checkout of a paid offer.
    @Sendable func pay(_ request: Request, context: AppRequestContext) async throws -> Response {
        let claim = try await Claim.parse(request, service: service)
        return try render(try await flow.pay(claim, ip: context.remoteIP), claim: claim, request: request, sandbox: true)
    }

    func render(_ step: OfferClaimFlow.Step, claim: Claim, request: Request, sandbox: Bool) throws -> Response {
        switch step {
        case .codeRefused(let failure):
            let hidden = claim.hiddenFields.filter { $0.name == "id" || $0.name == "app_user_id" }
            return codeRefused(app: claim.app, sandbox: sandbox, failure: failure, code: claim.code, hidden: hidden, back: nil)
        case .emailRefused(let found):
            return refused(
                claim, found: found, request: request, sandbox: sandbox, status: .unprocessableContent, error: CheckoutPages.emailRefused,
                emailRefused: true)
        case .termsRefused(let found):
            return refused(
                claim, found: found, request: request, sandbox: sandbox, status: .unprocessableContent,
                error: BuyerTexts.current["legal.accept_required"], termsRefused: true)
        case .refused(let found, let failure):
            return refused(claim, found: found, request: request, sandbox: sandbox, status: failure.pageStatus, error: failure.webMessage)
        case .granted(let purchase, let product, let link):
            return try pages.afterPurchase(
                link: CheckoutLink(app: claim.app, product: product, buyer: claim.buyer),
                completed: CheckoutService.Completed(purchase: purchase, link: link, buyer: claim.claimant), sandbox: sandbox)
        case .stripe(let url):
            return CheckoutPages.redirect(to: url)
        case .sandboxPayment(let found):
            var checkout = SandboxCheckoutPage(
                productName: found.product.displayName ?? found.product.id,
                price: OfferSummary.text(found.offer, product: found.product, format: BuyerFormat(acceptLanguage: request.headers[.acceptLanguage])),
                action: "/sandbox/redeem/pay", hidden: claim.hiddenFields + [HiddenField(name: "email", value: claim.email)],
                email: claim.email, emailLocked: true)
            // Agreed on the offer's page: the box shows ticked, and is sent with the payment.
            checkout.termsAccepted = claim.acceptedTerms
            return pages.page("sandbox-checkout", checkout, app: claim.app, status: .ok)
        case .notPayable:
            return page(app: claim.app, status: .serviceUnavailable, error: Self.notPayable(claim.app), sandbox: false)
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

import Foundation
import Hummingbird
import RedeemCore
import RedeemQR

/// `/account/{app_id}`: the signed-in buyer's purchases and what they can do with them, in HTML only. The session, the
/// app and every POST's form token are checked by `PortalSessionMiddleware`; without a session the home page is the
/// sign-in page (`PortalSignInController`).
struct PortalController {
    let service: PortalService
    let pages: PortalPages

    func addRoutes(to router: Router<AppRequestContext>) {
        let home = router.group().add(
            middleware: PortalSessionMiddleware(service: service) { [pages] _, app in pages.signInPage(app, status: .ok) }
        ).group(context: PortalContext.self)
        home.get("/account/{app_id}", use: self.home)
        let actions = router.group().add(
            middleware: PortalSessionMiddleware(service: service) { _, app in PortalPages.redirect("/account/\(app.id)") }
        ).group(context: PortalContext.self)
        actions.post("/account/{app_id}/sign-out", use: signOut)
        actions.post("/account/{app_id}/purchases/{purchase_id}/link", use: newLink)
        actions.post("/account/{app_id}/purchases/{purchase_id}/cancel", use: cancel)
        actions.post("/account/{app_id}/purchases/{purchase_id}/resume", use: resume)
        actions.post("/account/{app_id}/purchases/{purchase_id}/billing", use: billing)
        actions.post("/account/{app_id}/purchases/{purchase_id}/plan", use: changePlan)
    }

    @Sendable func home(_ request: Request, context: PortalContext) async throws -> Response {
        let app = context.app
        let now = service.clock.now()
        let products = Dictionary(try await service.products(appID: app.id).map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        let linksAllowed = { (purchase: Purchase) in app.redemptionLinkPolicy.allowsLinks(sandbox: purchase.isSandbox) }
        let format = BuyerFormat(acceptLanguage: request.headers[.acceptLanguage])
        var purchases: [PortalPurchaseRow] = []
        for purchase in try await service.purchases(context.session) {
            let actions = PortalRules.actions(purchase, linksAllowed: linksAllowed(purchase), now: now)
            // A Stripe subscription switches through Stripe: only offered where Stripe is configured.
            let switchable = actions.changePlan && (purchase.store != .stripe || service.stripe != nil)
            let plans = switchable ? try await service.planOptions(purchase) : []
            purchases.append(
                PortalPresenter.purchase(
                    purchase, product: products[purchase.productID], actions: actions, plans: plans, now: now, format: format,
                    scheduled: purchase.scheduledPlan.flatMap { products[$0.productID] }))
        }
        let notice = request.uri.queryParameters["notice"].flatMap { PortalNotice(rawValue: String($0)) }
        let page = PortalHomePage(
            email: context.session.email, csrf: context.session.csrf, purchases: purchases, none: purchases.isEmpty, notice: notice?.text,
            noticeWarns: notice?.warns ?? false)
        return pages.page("portal-home", app, page, status: .ok)
    }

    @Sendable func signOut(_ request: Request, context: PortalContext) async throws -> Response {
        try await service.signOut(context.session)
        var response = PortalPages.redirect("/account/\(context.app.id)")
        response.setCookie(pages.cookie(PortalCookies.session, "", maxAge: 0))
        return response
    }

    /// A fresh link for one of the buyer's purchases, shown with its QR code and e-mailed.
    @Sendable func newLink(_ request: Request, context: PortalContext) async throws -> Response {
        let app = context.app
        let sent = try await service.newLink(context.session, purchaseID: try context.parameters.decoded("purchase_id"))
        let product = try await service.products(appID: app.id).first { $0.id == sent.purchase.productID }
        let page = PortalLinkPage(
            productName: product?.displayName ?? sent.purchase.productID, emailed: sent.emailed, email: context.session.email,
            customSchemeURL: sent.link.customSchemeURL, httpsURL: sent.link.httpsURL,
            qrSVG: try QRCode(encoding: sent.link.httpsURL).svg(label: "QR code of your link"),
            expiresIn: TimeLeft.words(until: sent.link.expiresAt, from: service.clock.now()),
            androidIntentURL: LinkPageController.androidIntentURL(app: app, token: sent.link.token))
        return pages.page("portal-link", app, page, status: .ok)
    }

    @Sendable func cancel(_ request: Request, context: PortalContext) async throws -> Response {
        let feedback: CancellationFeedback?
        do {
            feedback = try CancellationFeedback.parse(context.form["feedback"])
        } catch {
            return PortalPages.redirect("/account/\(context.app.id)?notice=\(PortalNotice.reasonRefused.rawValue)")
        }
        let done = try await service.cancel(context.session, purchaseID: try context.parameters.decoded("purchase_id"), feedback: feedback)
        return PortalPages.redirect("/account/\(context.app.id)?notice=\((done.pending ? PortalNotice.cancelRequested : .cancelled).rawValue)")
    }

    @Sendable func resume(_ request: Request, context: PortalContext) async throws -> Response {
        let done = try await service.resume(context.session, purchaseID: try context.parameters.decoded("purchase_id"))
        return PortalPages.redirect("/account/\(context.app.id)?notice=\((done.pending ? PortalNotice.resumeRequested : .resumed).rawValue)")
    }

    /// Another plan of the subscription's group, chosen on its card. One not offered changes nothing and says so.
    @Sendable func changePlan(_ request: Request, context: PortalContext) async throws -> Response {
        let home = "/account/\(context.app.id)"
        let done: SupportService.Outcome
        do {
            done = try await service.changePlan(
                context.session, purchaseID: try context.parameters.decoded("purchase_id"), to: context.form["product"] ?? "")
        } catch is ValidationError {
            return PortalPages.redirect(home + "?notice=\(PortalNotice.planRefused.rawValue)")
        }
        return PortalPages.redirect(home + "?notice=\(done.planResult.rawValue)")
    }

    /// Off to Stripe's Billing Portal, which links back here.
    @Sendable func billing(_ request: Request, context: PortalContext) async throws -> Response {
        PortalPages.redirect(try await service.billingPortalURL(context.session, purchaseID: try context.parameters.decoded("purchase_id")))
    }
}

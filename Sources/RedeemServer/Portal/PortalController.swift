import Foundation
import Hummingbird
import RedeemCore
import RedeemQR
import RedeemStore

/// `/account/{app_id}`: the buyer's portal, in HTML only. Before sign-in, forms carry a token tied to a cookie set with
/// them; after, a token derived from the session. Opening an e-mailed sign-in link shows a button; only pressing it
/// (a POST) uses the link, so a mail scanner that follows links signs no one in.
struct PortalController {
    let service: PortalService
    let templates: Templates
    let secureCookies: Bool

    static let sessionCookie = "redeem_portal"
    static let formCookie = "redeem_portal_form"

    func addRoutes(to router: Router<AppRequestContext>) {
        router.get("/account/{app_id}", use: home)
        router.post("/account/{app_id}/sign-in", use: requestSignIn)
        router.get("/account/{app_id}/sign-in/{token}", use: confirmSignIn)
        router.post("/account/{app_id}/sign-in/{token}", use: signIn)
        router.post("/account/{app_id}/sign-out", use: signOut)
        router.post("/account/{app_id}/purchases/{purchase_id}/link", use: newLink)
        router.post("/account/{app_id}/purchases/{purchase_id}/cancel", use: cancel)
        router.post("/account/{app_id}/purchases/{purchase_id}/resume", use: resume)
        router.post("/account/{app_id}/purchases/{purchase_id}/billing", use: billing)
    }

    // MARK: Signing in

    @Sendable func home(_ request: Request, context: AppRequestContext) async throws -> Response {
        let appID = try context.parameters.decoded("app_id")
        let app = try await service.store.app(id: appID)
        guard let session = try await session(request, appID: appID) else { return signInPage(app, [:], status: .ok) }
        let now = service.clock.now()
        let products = Dictionary(try await service.store.products(appID: appID).map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        let linksAllowed = { (purchase: Purchase) in app.redemptionLinkPolicy.allowsLinks(sandbox: purchase.isSandbox) }
        let format = BuyerFormat(acceptLanguage: request.headers[.acceptLanguage])
        let purchases = try await service.purchases(session).map {
            PortalPresenter.purchase(
                $0, product: products[$0.productID], actions: PortalRules.actions($0, linksAllowed: linksAllowed($0), now: now), now: now,
                format: format)
        }
        var values: [String: Any] = ["email": session.email, "csrf": session.csrf, "purchases": purchases, "none": purchases.isEmpty]
        if let notice = request.uri.queryParameters["notice"].flatMap({ PortalNotice(rawValue: String($0)) }) { values["notice"] = notice.text }
        return page("portal-home", app, values, status: .ok)
    }

    /// Sends a sign-in link if the address has purchases; the answer is the same either way.
    @Sendable func requestSignIn(_ request: Request, context: AppRequestContext) async throws -> Response {
        let appID = try context.parameters.decoded("app_id")
        let app = try await service.store.app(id: appID)
        let form = try await FormBody.parse(request, limit: 8 * 1024)
        try requireFormCookie(request, form)
        // Without e-mail no link can go out: the page says so rather than "check your inbox".
        guard service.mailOn else { return signInPage(app, [:], status: .serviceUnavailable) }
        let email = form["email"] ?? ""
        do {
            try await service.requestSignIn(appID: appID, email: email, ip: context.remoteIP)
        } catch is ValidationError {
            return signInPage(
                app, ["email": email, "error": "Enter the e-mail address you used at checkout, like name@example.com."], status: .unprocessableContent
            )
        } catch let limited as RateLimited {
            var response = signInPage(app, ["email": email, "error": "Too many tries. Wait a minute, then try again."], status: .tooManyRequests)
            response.headers[.retryAfter] = APIError.from(limited)?.headers[.retryAfter]
            return response
        }
        return signInPage(app, ["sent": true, "email": email], status: .ok)
    }

    @Sendable func confirmSignIn(_ request: Request, context: AppRequestContext) async throws -> Response {
        let appID = try context.parameters.decoded("app_id")
        let app = try await service.store.app(id: appID)
        let token = try context.parameters.require("token")
        guard try await service.signInLinkIsLive(appID: appID, token: token) else { return signInPage(app, ["expired": true], status: .gone) }
        return signInPage(app, ["confirm": true, "action": "/account/\(appID)/sign-in/\(token)"], status: .ok)
    }

    @Sendable func signIn(_ request: Request, context: AppRequestContext) async throws -> Response {
        let appID = try context.parameters.decoded("app_id")
        let app = try await service.store.app(id: appID)
        try requireFormCookie(request, try await FormBody.parse(request, limit: 8 * 1024))
        guard let token = try await service.signIn(appID: appID, token: try context.parameters.require("token"), ip: context.remoteIP) else {
            return signInPage(app, ["expired": true], status: .gone)
        }
        var response = Self.redirect("/account/\(appID)")
        response.setCookie(cookie(Self.sessionCookie, token, maxAge: Int(PortalRules.sessionLifetime)))
        response.setCookie(cookie(Self.formCookie, "", maxAge: 0))
        return response
    }

    @Sendable func signOut(_ request: Request, context: AppRequestContext) async throws -> Response {
        let appID = try context.parameters.decoded("app_id")
        if let session = try await session(request, appID: appID) {
            try requireForm(try await FormBody.parse(request, limit: 8 * 1024), session)
            try await service.signOut(session)
        }
        var response = Self.redirect("/account/\(appID)")
        response.setCookie(cookie(Self.sessionCookie, "", maxAge: 0))
        return response
    }

    // MARK: Purchases

    /// A fresh link for one of the buyer's purchases, shown with its QR code and e-mailed.
    @Sendable func newLink(_ request: Request, context: AppRequestContext) async throws -> Response {
        try await act(request, context) { session, purchaseID, app in
            let sent = try await service.newLink(session, purchaseID: purchaseID)
            let product = try await service.store.products(appID: app.id).first { $0.id == sent.purchase.productID }
            var values: [String: Any] = [
                "productName": product?.displayName ?? sent.purchase.productID, "emailed": sent.emailed, "email": session.email,
                "customSchemeURL": sent.link.customSchemeURL, "httpsURL": sent.link.httpsURL,
                "qrSVG": try QRCode(encoding: sent.link.httpsURL).svg(label: "QR code of your link"),
                "expiresIn": TimeLeft.words(until: sent.link.expiresAt, from: service.clock.now()), "keepLink": true,
            ]
            values["androidIntentURL"] = LinkPageController.androidIntentURL(app: app, token: sent.link.token)
            values["appStoreURL"] = app.appStoreURL
            values["playStoreURL"] = app.playStoreURL
            return page("portal-link", app, values.compactMapValues { $0 }, status: .ok)
        }
    }

    @Sendable func cancel(_ request: Request, context: AppRequestContext) async throws -> Response {
        try await act(request, context) { session, purchaseID, app in
            let done = try await service.cancel(session, purchaseID: purchaseID)
            return Self.redirect("/account/\(app.id)?notice=\((done.pending ? PortalNotice.cancelRequested : .cancelled).rawValue)")
        }
    }

    @Sendable func resume(_ request: Request, context: AppRequestContext) async throws -> Response {
        try await act(request, context) { session, purchaseID, app in
            let done = try await service.resume(session, purchaseID: purchaseID)
            return Self.redirect("/account/\(app.id)?notice=\((done.pending ? PortalNotice.resumeRequested : .resumed).rawValue)")
        }
    }

    /// Off to Stripe's Billing Portal, which links back here.
    @Sendable func billing(_ request: Request, context: AppRequestContext) async throws -> Response {
        try await act(request, context) { session, purchaseID, _ in
            Self.redirect(try await service.billingPortalURL(session, purchaseID: purchaseID))
        }
    }

    /// A signed-in buyer's action on one of their purchases: the session and its form token, then `body`. Without a
    /// session, back to sign-in.
    func act(
        _ request: Request, _ context: AppRequestContext, _ body: (PortalService.Session, String, App) async throws -> Response
    ) async throws -> Response {
        let appID = try context.parameters.decoded("app_id")
        let app = try await service.store.app(id: appID)
        guard let session = try await session(request, appID: appID) else { return Self.redirect("/account/\(appID)") }
        try requireForm(try await FormBody.parse(request, limit: 8 * 1024), session)
        return try await body(session, try context.parameters.decoded("purchase_id"), app)
    }

    // MARK: Sessions, forms and pages

    func session(_ request: Request, appID: String) async throws -> PortalService.Session? {
        guard let token = request.cookies[Self.sessionCookie]?.value, !token.isEmpty else { return nil }
        return try await service.session(appID: appID, token: token)
    }

    func requireForm(_ form: [String: String], _ session: PortalService.Session) throws {
        guard let field = form["csrf"], SecretToken.constantTimeEquals(field, session.csrf) else {
            throw APIError.forbidden("The page has expired; go back, reload it and try again.")
        }
    }

    func requireFormCookie(_ request: Request, _ form: [String: String]) throws {
        guard let cookie = request.cookies[Self.formCookie]?.value, let field = form["csrf"], SecretToken.constantTimeEquals(cookie, field) else {
            throw APIError.forbidden("The page has expired; go back, reload it and try again.")
        }
    }

    /// A page before sign-in, with a fresh form token in a cookie.
    func signInPage(_ app: App, _ values: [String: Any], status: HTTPResponse.Status) -> Response {
        let token = SecretToken.generate(byteCount: 16)
        var context = values
        context["formToken"] = token
        if !service.mailOn { context["mailOff"] = true }
        var response = page("portal-sign-in", app, context, status: status)
        response.setCookie(cookie(Self.formCookie, token, maxAge: 3600))
        return response
    }

    func page(_ template: String, _ app: App, _ values: [String: Any], status: HTTPResponse.Status) -> Response {
        let nonce = SecretToken.generate(byteCount: 16)
        var context = values
        context["appName"] = app.name
        context["appID"] = app.id
        context["cspNonce"] = nonce
        context["iconURL"] = app.iconURL
        context["supportEmail"] = app.supportEmail
        return HTMLPage.response(templates.render(template, context.compactMapValues { $0 }), status: status, nonce: nonce)
    }

    func cookie(_ name: String, _ value: String, maxAge: Int) -> Cookie {
        Cookie(name: name, value: value, maxAge: maxAge, path: "/account", secure: secureCookies, httpOnly: true, sameSite: .strict)
    }

    static func redirect(_ location: String) -> Response {
        Response(status: .seeOther, headers: [.location: location, .cacheControl: "no-store"])
    }
}

/// What the portal says after an action; only these fixed texts, so a link cannot put words on the page.
enum PortalNotice: String {
    case cancelled
    case cancelRequested = "cancel-requested"
    case resumed
    case resumeRequested = "resume-requested"

    var text: String {
        switch self {
        case .cancelled: "Cancelled. You keep your subscription until the end of the period; it won’t renew."
        case .cancelRequested: "Cancelled. It can take a minute to show here; you keep your subscription until the end of the period."
        case .resumed: "Resumed. Your subscription renews as before."
        case .resumeRequested: "Resumed. It can take a minute to show here; your subscription renews as before."
        }
    }
}

/// A purchase as the portal shows it: name, price and state in words.
enum PortalPresenter {
    static func purchase(_ purchase: Purchase, product: Product?, actions: PortalRules.Actions, now: Date, format: BuyerFormat) -> [String: Any] {
        let day = format.day
        // What this purchase cost (an offer's claim is free or its own price), in the product's words when it is that.
        let price =
            if let paid = purchase.price {
                paid == product?.price ? product.map(format.product) ?? format.price(paid) : format.price(paid)
            } else {
                purchase.offer != nil ? "Free" : product.map(format.product) ?? ""
            }
        let access = purchase.access
        let (state, stateClass): (String, String) =
            if let refunded = purchase.refundedAt {
                ("Refunded \(day(refunded))", "ended")
            } else if let expires = purchase.expiresDate {
                if !access.isActive(at: now) {
                    ("Ended \(day(expires))", "ended")
                } else if access.isInGracePeriod(at: now), let grace = purchase.gracePeriodExpiresDate {
                    ("Payment failed; yours until \(day(grace)) while it is retried", "ending")
                } else if purchase.unsubscribeDetectedAt != nil || !PortalRules.renews(purchase) {
                    ("Ends \(day(expires)); won’t renew", "ending")
                } else {
                    ("Renews \(day(expires))", "active")
                }
            } else {
                ("Yours to keep", "active")
            }
        var values: [String: Any] = [
            "id": purchase.id, "name": product?.displayName ?? purchase.productID, "price": price, "state": state, "stateClass": stateClass,
            "bought": day(purchase.purchaseDate), "newLink": actions.newLink, "cancel": actions.cancel, "resume": actions.resume,
            "billing": actions.billing,
        ]
        if let expires = purchase.expiresDate { values["endsOn"] = day(expires) }
        if purchase.isSandbox {
            values["testNote"] =
                SandboxClock.runs(purchase)
                ? "A test purchase: no money moved, and it renews every few minutes while the app is tested."
                : "A test purchase: no money moved."
        }
        return values
    }
}

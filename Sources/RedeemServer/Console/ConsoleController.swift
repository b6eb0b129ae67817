import Foundation
import Hummingbird
import RedeemCore
import RedeemQR
import RedeemStore

/// `/console`: the operator console's pages. Every page but sign-in needs a session; every form carries a token tied to
/// the session (or, on the sign-in form, to a cookie set with it), and a POST without the right one is refused.
struct ConsoleController {
    let service: ConsoleService
    let templates: Templates
    /// Cookies are `Secure` whenever the public URL is https.
    let secureCookies: Bool

    static let sessionCookie = "redeem_console"
    static let signInCookie = "redeem_console_form"

    func addRoutes(to router: Router<AppRequestContext>) {
        router.get("/console", use: home)
        router.get("/console/sign-in", use: signInForm)
        router.post("/console/sign-in", use: signIn)
        router.post("/console/sign-out", use: signOut)
        router.get("/console/apps/{app_id}", use: search)
        router.get("/console/apps/{app_id}/customers/{customer_id}", use: customer)
        router.post("/console/apps/{app_id}/purchases/{purchase_id}/link", use: newLink)
        router.post("/console/apps/{app_id}/purchases/{purchase_id}/refund", use: refund)
        router.post("/console/apps/{app_id}/purchases/{purchase_id}/cancel", use: cancel)
        router.post("/console/apps/{app_id}/purchases/{purchase_id}/revoke", use: revoke)
        router.post("/console/apps/{app_id}/purchases/{purchase_id}/transfer", use: transfer)
        router.post("/console/apps/{app_id}/customers/{customer_id}/grants", use: grant)
        router.post("/console/apps/{app_id}/emails/{email_id}/retry", use: retryEmail)
        router.get("/console/apps/{app_id}/audit", use: audit)
    }

    // MARK: Signing in and out

    @Sendable func home(_ request: Request, context: AppRequestContext) async throws -> Response {
        guard try await session(request) != nil else { return Self.redirect("/console/sign-in") }
        guard let first = try await service.store.apps().first else {
            return try await page("console-search", status: .ok, request: request, ["noApps": true])
        }
        return Self.redirect("/console/apps/\(first.id)")
    }

    @Sendable func signInForm(_ request: Request, context: AppRequestContext) async throws -> Response {
        if try await session(request) != nil { return Self.redirect("/console") }
        return signInPage(error: nil, email: "", status: .ok)
    }

    @Sendable func signIn(_ request: Request, context: AppRequestContext) async throws -> Response {
        let form = try await FormBody.parse(request, limit: 8 * 1024)
        guard let cookie = request.cookies[Self.signInCookie]?.value, let field = form["csrf"],
            SecretToken.constantTimeEquals(cookie, field)
        else { throw APIError.forbidden("The form has expired; reload the page and sign in again.") }
        let email = form["email"] ?? ""
        do {
            let token = try await service.signIn(email: email, password: form["password"] ?? "", ip: context.remoteIP)
            var response = Self.redirect("/console")
            response.setCookie(sessionCookie(token))
            response.setCookie(expired(Self.signInCookie))
            return response
        } catch is SignInRefused {
            return signInPage(error: "The e-mail or password is wrong.", email: email, status: .unauthorized)
        } catch let limited as RateLimited {
            var response = signInPage(error: "Too many attempts. Wait a minute, then try again.", email: email, status: .tooManyRequests)
            response.headers[.retryAfter] = APIError.from(limited)?.headers[.retryAfter]
            return response
        }
    }

    @Sendable func signOut(_ request: Request, context: AppRequestContext) async throws -> Response {
        let form = try await FormBody.parse(request, limit: 8 * 1024)
        if let session = try await session(request) {
            try requireForm(form, session)
            try await service.signOut(session)
        }
        var response = Self.redirect("/console/sign-in")
        response.setCookie(expired(Self.sessionCookie))
        return response
    }

    // MARK: Support views

    @Sendable func search(_ request: Request, context: AppRequestContext) async throws -> Response {
        guard let session = try await session(request) else { return Self.redirect("/console/sign-in") }
        let appID = try context.parameters.decoded("app_id")
        let app = try await service.store.app(id: appID)
        let query = request.uri.queryParameters["q"].map { String($0).removingPercentEncoding ?? String($0) } ?? ""
        let pageNumber = max(1, request.uri.queryParameters["page"].flatMap { Int($0) } ?? 1)
        let (matches, more) = query.isEmpty ? ([], false) : try await service.support.search(appID: appID, query: query, page: pageNumber)
        var values: [String: Any] = [
            "query": query, "searched": !query.isEmpty, "results": matches.map { ConsolePresenter.match($0, appID: appID) },
            "noResults": !query.isEmpty && matches.isEmpty,
        ]
        if pageNumber > 1 { values["previous"] = ConsolePresenter.searchURL(appID: appID, query: query, page: pageNumber - 1) }
        if more { values["next"] = ConsolePresenter.searchURL(appID: appID, query: query, page: pageNumber + 1) }
        return try await page("console-search", status: .ok, request: request, session: session, app: app, values)
    }

    @Sendable func customer(_ request: Request, context: AppRequestContext) async throws -> Response {
        guard let session = try await session(request) else { return Self.redirect("/console/sign-in") }
        let appID = try context.parameters.decoded("app_id")
        let app = try await service.store.app(id: appID)
        let view = try await service.customer(appID: appID, id: try context.parameters.decoded("customer_id"))
        let now = service.clock.now()
        var values = ConsolePresenter.customer(view, now: now)
        if let notice = request.uri.queryParameters["notice"].flatMap({ ConsoleNotice(rawValue: String($0)) }) { values["notice"] = notice.text }
        return try await page("console-customer", status: .ok, request: request, session: session, app: app, values)
    }

    /// Issues a new link for a purchase, e-mails it, and shows it once with its QR code. Any role may.
    @Sendable func newLink(_ request: Request, context: AppRequestContext) async throws -> Response {
        guard let session = try await session(request) else { return Self.redirect("/console/sign-in") }
        let form = try await FormBody.parse(request, limit: 8 * 1024)
        try requireForm(form, session)
        let appID = try context.parameters.decoded("app_id")
        let app = try await service.store.app(id: appID)
        try service.require(.sendLink, session, "send links")
        let sent = try await service.support.sendNewLink(
            appID: appID, purchaseID: try context.parameters.decoded("purchase_id"), actor: session.actor)
        let back = form["customer_id"].map { ConsolePresenter.customerURL(appID: appID, customerID: $0) } ?? "/console/apps/\(appID)"
        var values: [String: Any] = [
            "purchaseID": sent.purchase.id, "httpsURL": sent.link.httpsURL, "schemeURL": sent.link.customSchemeURL,
            "expires": ConsolePresenter.date(sent.link.expiresAt), "emailed": sent.emailed, "back": back,
            "qrSVG": try QRCode(encoding: sent.link.httpsURL).svg(label: "QR code of the new link"),
        ]
        if let email = sent.purchase.email { values["email"] = email }
        return try await page("console-new-link", status: .ok, request: request, session: session, app: app, values)
    }

    /// Refunds a purchase (owners), once the form's box confirming it is ticked: a sandbox one at once, a Stripe one
    /// through Stripe. Then back to the customer, saying which.
    @Sendable func refund(_ request: Request, context: AppRequestContext) async throws -> Response {
        try await act(request, context, .refund, "refund purchases", confirm: "refund") { form, appID, session in
            let done = try await service.support.refund(appID: appID, purchaseID: try context.parameters.decoded("purchase_id"), actor: session.actor)
            return (done.purchase.customerID, done.pending ? .refundRequested : .refunded)
        }
    }

    /// Stops a subscription renewing at the end of its period (owners).
    @Sendable func cancel(_ request: Request, context: AppRequestContext) async throws -> Response {
        try await act(request, context, .cancel, "cancel subscriptions", confirm: "cancellation") { form, appID, session in
            let done = try await service.support.cancelAtPeriodEnd(
                appID: appID, purchaseID: try context.parameters.decoded("purchase_id"), actor: session.actor)
            return (done.purchase.customerID, done.pending ? .cancelRequested : .cancelled)
        }
    }

    /// Ends a granted entitlement now (owners).
    @Sendable func revoke(_ request: Request, context: AppRequestContext) async throws -> Response {
        try await act(request, context, .revoke, "revoke grants", confirm: "revocation") { form, appID, session in
            let purchase = try await service.support.revokeGrant(
                appID: appID, purchaseID: try context.parameters.decoded("purchase_id"), actor: session.actor)
            return (purchase.customerID, .revoked)
        }
    }

    /// Moves a purchase to another app user ID (owners); the page then shows the purchase's new owner.
    @Sendable func transfer(_ request: Request, context: AppRequestContext) async throws -> Response {
        try await act(request, context, .transfer, "transfer purchases", confirm: "transfer") { form, appID, session in
            let purchase = try await service.support.transfer(
                appID: appID, purchaseID: try context.parameters.decoded("purchase_id"), to: form["app_user_id"] ?? "",
                actor: session.actor)
            return (purchase.customerID, .transferred)
        }
    }

    /// Grants an entitlement for a preset duration or until a date (any role).
    @Sendable func grant(_ request: Request, context: AppRequestContext) async throws -> Response {
        try await act(request, context, .grant, "grant entitlements", confirm: nil) { form, appID, session in
            let customer = try await service.store.customer(appID: appID, id: try context.parameters.decoded("customer_id"))
            let choice = form["duration"] ?? ""
            var duration: PromotionalDuration? = nil
            var until: Date? = nil
            if choice == "until" {
                // A date field: the grant ends at the start of that day, UTC.
                guard let date = ISODate.parse((form["until"] ?? "") + "T00:00:00Z") else {
                    throw APIError.badRequest("Give the end date as YYYY-MM-DD.", field: "until")
                }
                until = date
            } else {
                guard let preset = PromotionalDuration(rawValue: choice) else { throw APIError.badRequest("Choose a duration.", field: "duration") }
                duration = preset
            }
            _ = try await service.support.grant(
                appID: appID, appUserID: customer.originalAppUserID, entitlementID: form["entitlement_id"] ?? "", duration: duration,
                until: until, actor: session.actor)
            return (customer.id, .granted)
        }
    }

    /// Sends a failed or retrying e-mail again now (any role).
    @Sendable func retryEmail(_ request: Request, context: AppRequestContext) async throws -> Response {
        try await act(request, context, .resendEmail, "re-send e-mails", confirm: nil) { form, appID, session in
            let email = try await service.support.retryEmail(appID: appID, emailID: try context.parameters.decoded("email_id"), actor: session.actor)
            let purchase = try await service.store.purchase(appID: appID, id: email.purchaseID)
            return (purchase.customerID, .emailRetried)
        }
    }

    /// One console action: a session, the form's token, the role, the confirming box when `confirm` names one; then
    /// `body`, and back to the customer page with a notice of what happened.
    func act(
        _ request: Request, _ context: AppRequestContext, _ action: OperatorAction, _ what: String, confirm: String?,
        _ body: ([String: String], String, ConsoleSession) async throws -> (customerID: String, notice: ConsoleNotice)
    ) async throws -> Response {
        guard let session = try await session(request) else { return Self.redirect("/console/sign-in") }
        let form = try await FormBody.parse(request, limit: 8 * 1024)
        try requireForm(form, session)
        try service.require(action, session, what)
        if let confirm, form["confirm"] != "yes" { throw APIError.badRequest("Tick the box to confirm the \(confirm).", field: "confirm") }
        let appID = try context.parameters.decoded("app_id")
        let (customerID, notice) = try await body(form, appID, session)
        return Self.redirect(ConsolePresenter.customerURL(appID: appID, customerID: customerID) + "?notice=" + notice.rawValue)
    }

    /// The audit log of the app's objects and of the instance (operators), newest first. Owners only.
    @Sendable func audit(_ request: Request, context: AppRequestContext) async throws -> Response {
        guard let session = try await session(request) else { return Self.redirect("/console/sign-in") }
        guard session.operator.role.may(.changeSettings) else { throw APIError.forbidden("Only an owner may read the audit log.") }
        let appID = try context.parameters.decoded("app_id")
        let app = try await service.store.app(id: appID)
        let entries = try await service.store.auditLog(appID: appID, includingInstance: true, limit: 200)
        let rows = entries.map {
            [
                "at": ConsolePresenter.date($0.at), "actor": $0.actor, "action": $0.action, "object": "\($0.objectType) \($0.objectID)",
                "detail": $0.detail ?? "",
            ]
        }
        return try await page("console-audit", status: .ok, request: request, session: session, app: app, ["entries": rows])
    }

    // MARK: Sessions, forms and pages

    func session(_ request: Request) async throws -> ConsoleSession? {
        guard let token = request.cookies[Self.sessionCookie]?.value else { return nil }
        return try await service.session(token: token)
    }

    func requireForm(_ form: [String: String], _ session: ConsoleSession) throws {
        guard let field = form["csrf"], SecretToken.constantTimeEquals(field, session.csrf) else {
            throw APIError.forbidden("The form has expired; reload the page and try again.")
        }
    }

    func sessionCookie(_ token: String) -> Cookie {
        Cookie(name: Self.sessionCookie, value: token, path: "/console", secure: secureCookies, httpOnly: true, sameSite: .strict)
    }

    func expired(_ name: String) -> Cookie {
        Cookie(name: name, value: "", maxAge: 0, path: "/console", secure: secureCookies, httpOnly: true, sameSite: .strict)
    }

    func signInPage(error: String?, email: String, status: HTTPResponse.Status) -> Response {
        let nonce = SecretToken.generate(byteCount: 16)
        let formToken = SecretToken.generate(byteCount: 16)
        var values: [String: Any] = ["appName": "Redeem console", "cspNonce": nonce, "csrf": formToken, "email": email]
        if let error { values["error"] = error }
        var response = HTMLPage.response(templates.render("console-sign-in", values), status: status, nonce: nonce)
        response.setCookie(
            Cookie(name: Self.signInCookie, value: formToken, path: "/console", secure: secureCookies, httpOnly: true, sameSite: .strict))
        return response
    }

    func page(
        _ template: String, status: HTTPResponse.Status, request: Request, session: ConsoleSession? = nil, app: App? = nil,
        _ values: [String: Any]
    ) async throws -> Response {
        let nonce = SecretToken.generate(byteCount: 16)
        var context = values
        context["appName"] = "Redeem console"
        context["cspNonce"] = nonce
        if let session {
            context["csrf"] = session.csrf
            context["operatorEmail"] = session.operator.email
            context["role"] = session.operator.role.rawValue
            for action in OperatorAction.allCases { context["may_\(action.rawValue)"] = session.operator.role.may(action) }
        }
        if let app {
            context["app"] = ["id": app.id, "name": app.name]
            context["apps"] = try await service.store.apps().map { ["id": $0.id, "name": $0.name, "selected": $0.id == app.id] }
        }
        return HTMLPage.response(templates.render(template, context), status: status, nonce: nonce)
    }

    static func redirect(_ location: String) -> Response {
        Response(status: .seeOther, headers: [.location: location, .cacheControl: "no-store"])
    }
}

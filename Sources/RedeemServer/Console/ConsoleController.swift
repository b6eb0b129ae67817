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

    func addRoutes(to parent: Router<AppRequestContext>) {
        let router = parent.group().add(middleware: ConsoleRedirectMiddleware())
        router.get("/console", use: home)
        router.get("/console/sign-in", use: signInForm)
        router.post("/console/sign-in", use: signIn)
        router.get("/console/sign-in/code", use: codeForm)
        router.post("/console/sign-in/code", use: code)
        router.post("/console/sign-out", use: signOut)
        router.get("/console/account", use: account)
        router.post("/console/account/two-factor/start", use: startTwoFactor)
        router.post("/console/account/two-factor/confirm", use: confirmTwoFactor)
        router.post("/console/account/two-factor/disable", use: disableTwoFactor)
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
        guard let session = try await session(request) else { return Self.redirect("/console/sign-in") }
        guard let first = try await service.store.apps().first else {
            return try await page("console-search", status: .ok, request: request, session: session, ["noApps": true])
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
            let signedIn = try await service.signIn(email: email, password: form["password"] ?? "", ip: context.remoteIP)
            var response = Self.redirect(signedIn.awaitingCode ? "/console/sign-in/code" : "/console")
            response.setCookie(sessionCookie(signedIn.token))
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

    /// The second step for operators with an authenticator app.
    @Sendable func codeForm(_ request: Request, context: AppRequestContext) async throws -> Response {
        guard let session = try await anySession(request) else { return Self.redirect("/console/sign-in") }
        guard session.awaitingCode else { return Self.redirect("/console") }
        return try await page("console-code", status: .ok, request: request, session: session, [:])
    }

    @Sendable func code(_ request: Request, context: AppRequestContext) async throws -> Response {
        guard let session = try await anySession(request), session.awaitingCode else { return Self.redirect("/console/sign-in") }
        let form = try await FormBody.parse(request, limit: 8 * 1024)
        try requireForm(form, session)
        do {
            try await service.verifyCode(session, code: form["code"] ?? "", ip: context.remoteIP)
            return Self.redirect("/console")
        } catch is SignInRefused {
            return try await page(
                "console-code", status: .unauthorized, request: request, session: session, ["error": "That code is wrong or was already used."])
        } catch let limited as RateLimited {
            var response = try await page(
                "console-code", status: .tooManyRequests, request: request, session: session,
                ["error": "Too many attempts. Wait a minute, then try again."])
            response.headers[.retryAfter] = APIError.from(limited)?.headers[.retryAfter]
            return response
        }
    }

    // MARK: Two-factor sign-in

    /// The operator's own page: two-factor sign-in, on or off.
    @Sendable func account(_ request: Request, context: AppRequestContext) async throws -> Response {
        guard let session = try await session(request, enrolling: true) else { return Self.redirect("/console/sign-in") }
        return try await accountPage(session, request: request, status: .ok, [:])
    }

    /// Shows a new secret as a QR code and as text, with the field for the first code.
    @Sendable func startTwoFactor(_ request: Request, context: AppRequestContext) async throws -> Response {
        guard let session = try await session(request, enrolling: true) else { return Self.redirect("/console/sign-in") }
        try requireForm(try await FormBody.parse(request, limit: 8 * 1024), session)
        let secret = try await service.startEnrolment(session)
        return try await accountPage(session, request: request, status: .ok, try setupValues(secret: secret, email: session.operator.email))
    }

    @Sendable func confirmTwoFactor(_ request: Request, context: AppRequestContext) async throws -> Response {
        guard let session = try await session(request, enrolling: true) else { return Self.redirect("/console/sign-in") }
        let form = try await FormBody.parse(request, limit: 8 * 1024)
        try requireForm(form, session)
        do {
            try await service.confirmEnrolment(session, code: form["code"] ?? "", ip: context.remoteIP)
            return Self.redirect("/console/account")
        } catch is SignInRefused {
            var values = try setupValues(secret: session.totpSecret ?? "", email: session.operator.email)
            values["error"] = "That code does not match. Check the time on your phone and try the newest code."
            return try await accountPage(session, request: request, status: .unauthorized, values)
        }
    }

    @Sendable func disableTwoFactor(_ request: Request, context: AppRequestContext) async throws -> Response {
        guard let session = try await session(request, enrolling: true) else { return Self.redirect("/console/sign-in") }
        let form = try await FormBody.parse(request, limit: 8 * 1024)
        try requireForm(form, session)
        do {
            try await service.disableTwoFactor(session, code: form["code"] ?? "", ip: context.remoteIP)
            return Self.redirect("/console/account")
        } catch is SignInRefused {
            return try await accountPage(session, request: request, status: .unauthorized, ["error": "That code does not match."])
        }
    }

    func setupValues(secret: String, email: String) throws -> [String: Any] {
        let url = TwoFactor.authenticatorURL(secret: secret, email: email)
        return [
            "settingUp": true, "typedKey": TwoFactor.typedKey(secret: secret, email: email),
            "qrSVG": try QRCode(encoding: url).svg(label: "QR code to scan with an authenticator app"),
        ]
    }

    func accountPage(_ session: ConsoleSession, request: Request, status: HTTPResponse.Status, _ extra: [String: Any]) async throws -> Response {
        var values = extra
        values["twoFactorOn"] = session.operator.twoFactorEnabledAt != nil
        values["enabledAt"] = session.operator.twoFactorEnabledAt.map(ConsolePresenter.date)
        values["mustEnrol"] = session.mustEnrol
        values["mayTurnOff"] = !(service.ownersNeedTwoFactor && session.operator.role == .owner)
        return try await page("console-account", status: status, request: request, session: session, values)
    }

    @Sendable func signOut(_ request: Request, context: AppRequestContext) async throws -> Response {
        let form = try await FormBody.parse(request, limit: 8 * 1024)
        if let session = try await anySession(request) {
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
        if let notice = notice(request) { values["notice"] = notice }
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
            return Self.customerNotice(appID, done.purchase.customerID, done.pending ? .refundRequested : .refunded)
        }
    }

    /// Stops a subscription renewing at the end of its period (owners).
    @Sendable func cancel(_ request: Request, context: AppRequestContext) async throws -> Response {
        try await act(request, context, .cancel, "cancel subscriptions", confirm: "cancellation") { form, appID, session in
            let done = try await service.support.cancelAtPeriodEnd(
                appID: appID, purchaseID: try context.parameters.decoded("purchase_id"), actor: session.actor)
            return Self.customerNotice(appID, done.purchase.customerID, done.pending ? .cancelRequested : .cancelled)
        }
    }

    /// Ends a granted entitlement now (owners).
    @Sendable func revoke(_ request: Request, context: AppRequestContext) async throws -> Response {
        try await act(request, context, .revoke, "revoke grants", confirm: "revocation") { form, appID, session in
            let purchase = try await service.support.revokeGrant(
                appID: appID, purchaseID: try context.parameters.decoded("purchase_id"), actor: session.actor)
            return Self.customerNotice(appID, purchase.customerID, .revoked)
        }
    }

    /// Moves a purchase to another app user ID (owners); the page then shows the purchase's new owner.
    @Sendable func transfer(_ request: Request, context: AppRequestContext) async throws -> Response {
        try await act(request, context, .transfer, "transfer purchases", confirm: "transfer") { form, appID, session in
            let purchase = try await service.support.transfer(
                appID: appID, purchaseID: try context.parameters.decoded("purchase_id"), to: form["app_user_id"] ?? "",
                actor: session.actor)
            return Self.customerNotice(appID, purchase.customerID, .transferred)
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
            return Self.customerNotice(appID, customer.id, .granted)
        }
    }

    /// Sends a failed or retrying e-mail again now (any role).
    @Sendable func retryEmail(_ request: Request, context: AppRequestContext) async throws -> Response {
        try await act(request, context, .resendEmail, "re-send e-mails", confirm: nil) { form, appID, session in
            let email = try await service.support.retryEmail(appID: appID, emailID: try context.parameters.decoded("email_id"), actor: session.actor)
            if form["back"] == "outbox" { return Self.noticeURL("/console/apps/\(appID)/emails", .emailRetried) }
            let purchase = try await service.store.purchase(appID: appID, id: email.purchaseID)
            return Self.customerNotice(appID, purchase.customerID, .emailRetried)
        }
    }

    /// One console action: a session, the form's token, the role, the confirming box when `confirm` names one; then
    /// `body`, and a redirect to where it says (a page with a notice of what happened).
    func act(
        _ request: Request, _ context: AppRequestContext, _ action: OperatorAction, _ what: String, confirm: String?,
        _ body: ([String: String], String, ConsoleSession) async throws -> String
    ) async throws -> Response {
        guard let session = try await session(request) else { return Self.redirect("/console/sign-in") }
        let form = try await FormBody.parse(request, limit: 8 * 1024)
        try requireForm(form, session)
        try service.require(action, session, what)
        if let confirm, form["confirm"] != "yes" { throw APIError.badRequest("Tick the box to confirm the \(confirm).", field: "confirm") }
        let appID = try context.parameters.decoded("app_id")
        let location = try await body(form, appID, session)
        return Self.redirect(location)
    }

    /// An owner's write from a form on the app's page `page` (`products`, `offers`): on success a redirect back with
    /// the notice `body` returns; a refused value or a conflict comes back on the page (`render`, given the form as
    /// typed so it can show it again), naming what is wrong (`describe`).
    func ownerWrite(
        _ request: Request, _ context: AppRequestContext, _ what: String, page: String, limit: Int = 8 * 1024,
        describe: (ValidationError) -> String = ConsoleController.describe,
        render: (String, String, HTTPResponse.Status, ConsoleSession, [String: String]) async throws -> Response,
        body: ([String: String], String, ConsoleSession) async throws -> ConsoleNotice
    ) async throws -> Response {
        guard let session = try await session(request) else { return Self.redirect("/console/sign-in") }
        let form = try await FormBody.parse(request, limit: limit)
        try requireForm(form, session)
        try service.require(.changeSettings, session, what)
        let appID = try context.parameters.decoded("app_id")
        do {
            let notice = try await body(form, appID, session)
            return Self.redirect(Self.noticeURL("/console/apps/\(appID)/\(page)", notice))
        } catch let error as ValidationError {
            return try await render(appID, describe(error), .unprocessableContent, session, form)
        } catch let error as StoreError where error.isConflict {
            return try await render(appID, error.description + ".", .conflict, session, form)
        }
    }

    /// A refusal as the console words it by default: the field, then the reason.
    static func describe(_ error: ValidationError) -> String { "\(error.field.replacingOccurrences(of: "_", with: " ")) \(error.reason)." }

    /// The fixed text of the notice a redirect named, if any.
    func notice(_ request: Request) -> String? {
        request.uri.queryParameters["notice"].flatMap { ConsoleNotice(rawValue: String($0)) }?.text
    }

    /// A page of the app's console with a notice of what just happened.
    static func noticeURL(_ path: String, _ notice: ConsoleNotice) -> String { path + "?notice=" + notice.rawValue }

    static func customerNotice(_ appID: String, _ customerID: String, _ notice: ConsoleNotice) -> String {
        noticeURL(ConsolePresenter.customerURL(appID: appID, customerID: customerID), notice)
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

    /// The signed-in operator's session, or nil. A session still waiting for its code is sent to the code step, and an
    /// owner who must enrol to enrolment (unless `enrolling`).
    func session(_ request: Request, enrolling: Bool = false) async throws -> ConsoleSession? {
        guard let session = try await anySession(request) else { return nil }
        if session.awaitingCode { throw ConsoleRedirect(location: "/console/sign-in/code") }
        if session.mustEnrol && !enrolling { throw ConsoleRedirect(location: "/console/account") }
        return session
    }

    /// Any live session, the ones waiting for their code included.
    func anySession(_ request: Request) async throws -> ConsoleSession? {
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
        framing: HTMLPage.Framing = .none, _ values: [String: Any]
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
        return HTMLPage.response(templates.render(template, context), status: status, nonce: nonce, framing: framing)
    }

    /// Secrets a write made (a key, a signing secret, a new app's keys), on this answer only (`no-store`).
    func secretPage(_ secret: ConsoleSecret, request: Request, session: ConsoleSession, app: App) async throws -> Response {
        let values = secret.values.enumerated().map { index, pair in
            ["label": pair.label, "value": pair.value, "id": index == 0 ? "secret" : "secret-\(index + 1)"]
        }
        var response = try await page(
            "console-secret", status: .created, request: request, session: session, app: app,
            ["title": secret.title, "what": secret.what, "secrets": values, "hint": secret.hint, "back": secret.back])
        response.headers[.cacheControl] = "no-store"
        return response
    }

    static func redirect(_ location: String) -> Response {
        Response(status: .seeOther, headers: [.location: location, .cacheControl: "no-store"])
    }
}

/// Secrets made by a write, shown once.
struct ConsoleSecret {
    let title: String
    let what: String
    let values: [(label: String, value: String)]
    let hint: String
    let back: String
}

/// Where a console request must go instead of the page it asked for (the code step, or enrolment).
struct ConsoleRedirect: Error {
    let location: String
}

/// Answers `ConsoleRedirect` with a 303 to its location.
struct ConsoleRedirectMiddleware: RouterMiddleware {
    func handle(
        _ request: Request, context: AppRequestContext, next: (Request, AppRequestContext) async throws -> Response
    ) async throws -> Response {
        do {
            return try await next(request, context)
        } catch let redirect as ConsoleRedirect {
            return ConsoleController.redirect(redirect.location)
        }
    }
}

import Hummingbird
import RedeemCore

/// What `PortalSessionMiddleware` found for a signed-in portal request, carried on the parent context to the child.
struct PortalRequest: Sendable {
    let app: App
    let session: PortalService.Session
    let form: [String: String]
}

/// A request to the buyer portal's signed-in pages: the app the path names, the buyer's session (never optional here),
/// and a POST's form with its CSRF token already checked.
struct PortalContext: ChildRequestContext {
    var coreContext: CoreRequestContextStorage
    let app: App
    let session: PortalService.Session
    /// A POST's fields (empty on GET), its `csrf` already checked.
    let form: [String: String]
    let remoteIP: String?

    init(context: AppRequestContext) throws {
        // The middleware answers every request without a session before the context is made.
        guard let portal = context.portal else { throw APIError.forbidden("Sign in first.") }
        self.coreContext = context.coreContext
        self.app = portal.app
        self.session = portal.session
        self.form = portal.form
        self.remoteIP = context.remoteIP
    }
}

/// The gate of the portal's signed-in pages: the app (404 when unknown), the buyer's session for it, and the CSRF token
/// of every POST. Without a session, the home page shows sign-in and the actions go back to it.
struct PortalSessionMiddleware: RouterMiddleware {
    typealias Context = AppRequestContext
    let service: PortalService
    /// What a request without a session gets: the sign-in page (home), else a redirect to it.
    let signedOut: @Sendable (Request, App) -> Response

    func handle(_ request: Request, context: AppRequestContext, next: (Request, AppRequestContext) async throws -> Response) async throws -> Response
    {
        let app = try await service.app(id: try context.parameters.decoded("app_id"))
        guard let token = request.cookies[PortalCookies.session]?.value, !token.isEmpty,
            let session = try await service.session(appID: app.id, token: token)
        else { return signedOut(request, app) }
        var form: [String: String] = [:]
        if request.method == .post {
            form = try await FormBody.parse(request, limit: 8 * 1024)
            try FormBody.requireToken(form, session.csrf, expired: BuyerTexts.current["form.expired"])
        }
        var context = context
        context.portal = PortalRequest(app: app, session: session, form: form)
        return try await next(request, context)
    }
}

/// The portal's cookies: the session, and the signed-out forms' token.
enum PortalCookies {
    static let session = "redeem_portal"
    static let form = "redeem_portal_form"
}

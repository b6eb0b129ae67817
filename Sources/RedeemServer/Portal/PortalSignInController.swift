import Foundation
import Hummingbird
import RedeemCore

/// Signing in to the portal: the address form, then the e-mailed link. Opening the link shows a button; only pressing
/// it (a POST) uses the link, so a mail scanner that follows links signs no one in. These pages come before a session,
/// so their forms carry a token tied to a cookie set with them.
struct PortalSignInController {
    let service: PortalService
    let pages: PortalPages

    func addRoutes(to router: Router<AppRequestContext>) {
        router.post("/account/{app_id}/sign-in", use: requestSignIn)
        router.get("/account/{app_id}/sign-in/{token}", use: confirmSignIn)
        router.post("/account/{app_id}/sign-in/{token}", use: signIn)
    }

    /// Sends a sign-in link if the address has purchases; the answer is the same either way.
    @Sendable func requestSignIn(_ request: Request, context: AppRequestContext) async throws -> Response {
        let app = try await service.app(id: try context.parameters.decoded("app_id"))
        let form = try await FormBody.parse(request, limit: 8 * 1024)
        let email = form["email"] ?? ""
        guard Self.carriesItsToken(request, form) else {
            let again = PortalSignInPage(email: email, notice: BuyerTexts.current["signin.stale_form"])
            return pages.signInPage(app, again, status: .forbidden)
        }
        // Without e-mail no link can go out: the page says so rather than "check your inbox".
        guard service.mailOn else { return pages.signInPage(app, status: .serviceUnavailable) }
        do {
            try await service.requestSignIn(appID: app.id, email: email, ip: context.remoteIP)
        } catch is ValidationError {
            return pages.signInPage(
                app, PortalSignInPage(email: email, error: BuyerTexts.current["form.checkout_email_refused"]),
                status: .unprocessableContent
            )
        } catch let limited as RateLimited {
            var response = pages.signInPage(
                app, PortalSignInPage(email: email, error: BuyerTexts.current["form.too_many"]), status: .tooManyRequests)
            response.headers[.retryAfter] = APIError.from(limited)?.headers[.retryAfter]
            return response
        }
        return pages.signInPage(app, PortalSignInPage(email: email, sent: true), status: .ok)
    }

    @Sendable func confirmSignIn(_ request: Request, context: AppRequestContext) async throws -> Response {
        let app = try await service.app(id: try context.parameters.decoded("app_id"))
        let token = try context.parameters.require("token")
        guard try await service.signInLinkIsLive(appID: app.id, token: token) else {
            return pages.signInPage(app, PortalSignInPage(expired: true), status: .gone)
        }
        return pages.signInPage(app, PortalSignInPage(confirm: true, action: "/account/\(app.id)/sign-in/\(token)"), status: .ok)
    }

    @Sendable func signIn(_ request: Request, context: AppRequestContext) async throws -> Response {
        let app = try await service.app(id: try context.parameters.decoded("app_id"))
        guard Self.carriesItsToken(request, try await FormBody.parse(request, limit: 8 * 1024)) else {
            let again = PortalSignInPage(
                notice: BuyerTexts.current["signin.stale_confirm"], confirm: true, action: request.uri.path)
            return pages.signInPage(app, again, status: .forbidden)
        }
        guard let token = try await service.signIn(appID: app.id, token: try context.parameters.require("token"), ip: context.remoteIP) else {
            return pages.signInPage(app, PortalSignInPage(expired: true), status: .gone)
        }
        var response = PortalPages.redirect("/account/\(app.id)")
        response.setCookie(pages.cookie(PortalCookies.session, token, maxAge: Int(PortalRules.sessionLifetime)))
        response.setCookie(pages.cookie(PortalCookies.form, "", maxAge: 0))
        return response
    }

    /// The form's token matches the cookie set with its page (CSRF). When it does not (the page outlived its cookie's
    /// hour, or the browser kept none), nothing is done and the same form comes back with a fresh token and what was
    /// typed: a buyer's page, never a dead end; a forged request gets a page it cannot read.
    static func carriesItsToken(_ request: Request, _ form: [String: String]) -> Bool {
        FormBody.carriesToken(form, request.cookies[PortalCookies.form]?.value)
    }
}

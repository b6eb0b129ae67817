import Foundation
import Hummingbird
import RedeemCore

/// The portal's renderer: every page in the app's name, icon and support address, with the CSP nonce; the signed-out
/// pages with a fresh form token in a cookie.
struct PortalPages: Sendable {
    let templates: Templates
    /// Whether e-mail is on: without it no sign-in link can go out, and the sign-in page says so.
    let mailOn: Bool
    /// Cookies are `Secure` whenever the public URL is https.
    let secureCookies: Bool

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

    /// A page before sign-in, with a fresh form token in a cookie.
    func signInPage(_ app: App, _ values: [String: Any], status: HTTPResponse.Status) -> Response {
        let token = SecretToken.generate(byteCount: 16)
        var context = values
        context["formToken"] = token
        if !mailOn { context["mailOff"] = true }
        var response = page("portal-sign-in", app, context, status: status)
        response.setCookie(cookie(PortalCookies.form, token, maxAge: 3600))
        return response
    }

    func cookie(_ name: String, _ value: String, maxAge: Int) -> Cookie {
        Cookie(name: name, value: value, maxAge: maxAge, path: "/account", secure: secureCookies, httpOnly: true, sameSite: .strict)
    }

    static func redirect(_ location: String) -> Response {
        Response(status: .seeOther, headers: [.location: location, .cacheControl: "no-store"])
    }
}

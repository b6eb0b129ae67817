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

    /// A page in the app's name, icon and support address.
    func page(_ template: String, _ app: App, _ model: some PageModel, status: HTTPResponse.Status, cookies: [Cookie] = []) -> Response {
        PageRenderer(templates: templates).response(template, model, layout: Branding(app), status: status, cookies: cookies)
    }

    /// A page before sign-in, with a fresh form token in a cookie.
    func signInPage(_ app: App, _ state: PortalSignInPage = PortalSignInPage(), status: HTTPResponse.Status) -> Response {
        var model = state
        model.formToken = SecretToken.generate(byteCount: 16)
        model.mailOff = !mailOn
        return page("portal-sign-in", app, model, status: status, cookies: [cookie(PortalCookies.form, model.formToken, maxAge: 3600)])
    }

    func cookie(_ name: String, _ value: String, maxAge: Int) -> Cookie {
        Cookie(name: name, value: value, maxAge: maxAge, path: "/account", secure: secureCookies, httpOnly: true, sameSite: .strict)
    }

    static func redirect(_ location: String) -> Response {
        Response(status: .seeOther, headers: [.location: location, .cacheControl: "no-store"])
    }
}

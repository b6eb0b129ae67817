import Hummingbird
import RedeemCore

/// The one page renderer: a template over its typed model and its layout's, with a fresh CSP nonce, the hosted pages'
/// headers, and any cookies the page sets. Console, portal, checkout, offer, link and error pages all render here.
struct PageRenderer: Sendable {
    let templates: Templates

    func response(
        _ template: String, _ model: some PageModel, layout: some PageModel, status: HTTPResponse.Status = .ok,
        framing: HTMLPage.Framing = .none, cookies: [Cookie] = []
    ) -> Response {
        let nonce = SecretToken.generate(byteCount: 16)
        let html = templates.render(template, LayeredValues(layers: [model, layout, PageNonce(cspNonce: nonce), LanguageMenu.current]))
        var response = HTMLPage.response(html, status: status, nonce: nonce, framing: framing)
        for cookie in cookies { response.setCookie(cookie) }
        return response
    }
}

/// The layout of a page in an app's name: its name, icon or logo, colours, support address and store pages; Redeem's
/// name and colours when the app is unknown.
struct Branding: PageModel {
    let appName: String
    let appID: String?
    let iconURL: String?
    /// The checkout branding's logo (https), shown in place of the icon.
    let logoURL: String?
    /// The checkout branding's colours (layout-head reads `theme`); nil keeps the pages' own.
    let theme: BuyerTheme?
    let supportEmail: String?
    let appStoreURL: String?
    let playStoreURL: String?
    /// The terms of use and privacy policy: linked from the foot, and named beside pay buttons (`legal-consent`).
    let legal: LegalLinks?

    /// `scheme`: the console's preview of one colour scheme.
    init(_ app: App?, scheme: ColorScheme? = nil) {
        appName = app?.name ?? "Redeem"
        appID = app?.id
        iconURL = app?.iconURL
        logoURL = app?.brandLogoURL
        theme = app.flatMap { BuyerTheme($0.branding, forcing: scheme) }
        supportEmail = app?.supportEmail
        appStoreURL = app?.appStoreURL
        playStoreURL = app?.playStoreURL
        legal = LegalLinks(app)
    }

    /// A page with no app behind it (the console, the landing page).
    init(name: String) {
        appName = name
        appID = nil
        iconURL = nil
        logoURL = nil
        theme = nil
        supportEmail = nil
        appStoreURL = nil
        playStoreURL = nil
        legal = nil
    }
}

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
        let html = templates.render(template, LayeredValues(layers: [model, layout, PageNonce(cspNonce: nonce)]))
        var response = HTMLPage.response(html, status: status, nonce: nonce, framing: framing)
        for cookie in cookies { response.setCookie(cookie) }
        return response
    }
}

/// The layout of a page in an app's name: its name, icon, support address and store pages; Redeem's name when the
/// app is unknown.
struct Branding: PageModel {
    let appName: String
    let appID: String?
    let iconURL: String?
    let supportEmail: String?
    let appStoreURL: String?
    let playStoreURL: String?

    init(_ app: App?) {
        appName = app?.name ?? "Redeem"
        appID = app?.id
        iconURL = app?.iconURL
        supportEmail = app?.supportEmail
        appStoreURL = app?.appStoreURL
        playStoreURL = app?.playStoreURL
    }

    /// A page with no app behind it (the console, the landing page).
    init(name: String) {
        appName = name
        appID = nil
        iconURL = nil
        supportEmail = nil
        appStoreURL = nil
        playStoreURL = nil
    }
}

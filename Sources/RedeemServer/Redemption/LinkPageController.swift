import Foundation
import Hummingbird
import RedeemCore
import RedeemQR
import RedeemStore

/// `GET /r/{token}`: the HTTPS redemption link opened in a browser (no app, or a computer), rendered from
/// `LinkPageService`'s state of the token.
struct LinkPageController {
    let service: LinkPageService
    let templates: Templates
    let publicURL: URL

    static var flash: String { BuyerTexts.current["link.resent"] }

    func addRoutes(to router: Router<AppRequestContext>) {
        router.get("/r/{token}", use: page)
        router.post("/r/{token}/resend", use: resend)
    }

    @Sendable func page(_ request: Request, context: AppRequestContext) async throws -> Response {
        let token = try context.parameters.require("token")
        let sent = request.uri.queryParameters["sent"] != nil
        switch try await service.state(token: token) {
        case .invalid: return try render(status: .notFound, state: .invalid, app: nil, token: token, flash: false)
        case .used(let app): return try render(status: .gone, state: .used, app: app, token: token, flash: sent)
        case .expired(let app): return try render(status: .gone, state: .expired, app: app, token: token, flash: sent)
        case .valid(let app, let expiresAt):
            // The time left, not the lifetime: the page may be opened long after the link was sent.
            let left = TimeLeft.words(until: expiresAt, from: service.clock.now())
            return try render(status: .ok, state: .valid, app: app, token: token, flash: sent, expiresIn: left)
        }
    }

    /// The page's "Send me a new link" form. The answer never tells whether the address matched.
    @Sendable func resend(_ request: Request, context: AppRequestContext) async throws -> Response {
        let token = try context.parameters.require("token")
        let email = try await FormBody.parse(request, limit: 16 * 1024)["email"]
        try await service.sendNewLink(token: token, email: email, ip: context.remoteIP)
        var response = Response(status: .seeOther)
        // Without e-mail nothing was sent, and the page must not say otherwise.
        response.headers[.location] = service.sendsNewLinks ? "/r/\(token)?sent=1" : "/r/\(token)"
        response.headers[.cacheControl] = "no-store"
        return response
    }

    func render(
        status: HTTPResponse.Status, state: LinkPageModel.State, app: App?, token: String, flash: Bool, expiresIn: String? = nil,
        framing: HTMLPage.Framing = .none
    ) throws -> Response {
        var page = LinkPageModel(state)
        if flash { page.messageFlash = Self.flash }
        // An unknown token names no app: the page says only that the link is not valid.
        if let app {
            page.expiresIn = expiresIn
            if state == .valid {
                // Only the link's URLs are shown.
                let link = RedemptionLink(token: token, scheme: app.scheme, publicURL: publicURL, expiresAt: .distantFuture)
                page.customSchemeURL = link.customSchemeURL
                page.httpsURL = link.httpsURL
                page.qrSVG = try QRCode(encoding: link.httpsURL).svg(label: "QR code of this link")
                page.androidIntentURL = Self.androidIntentURL(app: app, token: token)
            } else if service.sendsNewLinks {
                page.resendAction = "/r/\(token)/resend"
            }
        }
        return PageRenderer(templates: templates).response("redeem-link", page, layout: Branding(app), status: status, framing: framing)
    }

    /// Android opens the app through an intent, falling back to the Play Store when it is missing.
    static func androidIntentURL(app: App, token: String) -> String? {
        guard let package = app.androidPackageName else { return nil }
        var url = "intent://redeem_web_purchase?redemption_token=\(token)#Intent;scheme=\(app.scheme);package=\(package);"
        if let play = app.playStoreURL, let encoded = play.addingPercentEncoding(withAllowedCharacters: .alphanumerics) {
            url += "S.browser_fallback_url=\(encoded);"
        }
        return url + "end"
    }
}

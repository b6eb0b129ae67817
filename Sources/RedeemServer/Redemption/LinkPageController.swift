import Foundation
import Hummingbird
import RedeemCore
import RedeemQR
import RedeemStore

/// `GET /r/{token}`: the HTTPS redemption link opened in a browser (no app, or a computer).
/// Viewing never consumes the token: mail scanners open every link. Only the app's POST redeems.
struct LinkPageController {
    let store: any LinkPageStore
    let clock: any RedeemClock
    let templates: Templates
    let publicURL: URL
    let limiter: RateLimiter
    let emailQueue: EmailQueue

    static let flash = "If that address matches this purchase, we’ve sent a new link to it. It can take a few minutes to arrive."

    func addRoutes(to router: Router<AppRequestContext>) {
        router.get("/r/{token}", use: page)
        router.post("/r/{token}/resend", use: resend)
    }

    @Sendable func page(_ request: Request, context: AppRequestContext) async throws -> Response {
        let token = try context.parameters.require("token")
        let sent = request.uri.queryParameters["sent"] != nil
        guard RedemptionLink.isWellFormed(token), let state = try await store.redemptionTokenState(tokenHash: SecretToken.hash(token)) else {
            return try await render(status: .notFound, state: "isInvalid", app: nil, token: token, flash: false)
        }
        let app = try await store.app(id: state.appID)
        if state.consumedAt != nil { return try await render(status: .gone, state: "isUsed", app: app, token: token, flash: sent) }
        if state.expiresAt <= clock.now() { return try await render(status: .gone, state: "isExpired", app: app, token: token, flash: sent) }
        return try await render(status: .ok, state: "isValid", app: app, token: token, flash: sent)
    }

    /// The page's "Send me a new link" form. The answer never tells whether the address matched.
    @Sendable func resend(_ request: Request, context: AppRequestContext) async throws -> Response {
        let token = try context.parameters.require("token")
        try await limiter.newLink(ip: context.remoteIP)
        let email = try await FormBody.parse(request, limit: 16 * 1024)["email"]?.trimmingCharacters(in: .whitespaces).lowercased()
        if RedemptionLink.isWellFormed(token), let email, Formats.isEmail(email),
            let state = try await store.redemptionTokenState(tokenHash: SecretToken.hash(token))
        {
            try await limiter.newLink(appID: state.appID, email: email)
            let purchase = try await store.purchase(appID: state.appID, id: state.purchaseID)
            if purchase.email?.lowercased() == email { _ = try await emailQueue.queueNewLink(for: purchase) }
        }
        var response = Response(status: .seeOther)
        response.headers[.location] = "/r/\(token)?sent=1"
        response.headers[.cacheControl] = "no-store"
        return response
    }

    func render(status: HTTPResponse.Status, state: String, app: App?, token: String, flash: Bool) async throws -> Response {
        let link = RedemptionLink(token: token, scheme: app?.scheme ?? "", publicURL: publicURL, expiresAt: clock.now())
        let nonce = SecretToken.generate(byteCount: 16)
        var context: [String: Any] = [state: true, "appName": app?.name ?? "Redeem", "cspNonce": nonce]
        if let app {
            context["iconURL"] = app.iconURL
            context["appStoreURL"] = app.appStoreURL
            context["playStoreURL"] = app.playStoreURL
            context["supportEmail"] = app.supportEmail
            context["expiresInMinutes"] = app.redemptionLinkLifetimeSeconds / 60
            if state == "isValid" {
                context["customSchemeURL"] = link.customSchemeURL
                context["httpsURL"] = link.httpsURL
                context["qrSVG"] = try QRCode(encoding: link.httpsURL).svg(label: "QR code of this link")
                context["androidIntentURL"] = Self.androidIntentURL(app: app, token: token)
            } else {
                context["resendAction"] = "/r/\(token)/resend"
            }
        }
        if flash { context["messageFlash"] = Self.flash }
        return HTMLPage.response(templates.render("redeem-link", context.compactMapValues { $0 }), status: status, nonce: nonce)
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

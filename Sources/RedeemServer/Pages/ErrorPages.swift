import Hummingbird
import RedeemCore

/// Errors on the pages a buyer opens (purchase links, checkout returns, redemption links, the offer-code page) as a
/// page in the same style, never a JSON body. The status stays the API's, so scripts and caches read it alike.
struct ErrorPages: Sendable {
    let templates: Templates

    /// The buyer-facing routes: everything outside the JSON API, the webhooks and the service files.
    static func isPage(_ path: String) -> Bool {
        ["/p/", "/sandbox/", "/checkout/", "/r/", "/redeem", "/console", "/account/"].contains { path.hasPrefix($0) }
    }

    func response(for error: APIError) -> Response {
        let nonce = SecretToken.generate(byteCount: 16)
        let context: [String: Any] = [
            "title": Self.title(for: error.status.code), "text": Self.advice(for: error.status.code), "detail": error.message,
            "appName": "Redeem", "cspNonce": nonce,
        ]
        var response = HTMLPage.response(templates.render("message", context), status: error.status, nonce: nonce)
        for field in error.headers { response.headers[field.name] = field.value }
        return response
    }

    static func advice(for status: Int) -> String {
        switch status {
        case 404, 410, 400, 405, 413, 415, 422: "Check that the whole link was copied, or ask the app’s support for a new one."
        case 429: "Wait a minute, then try again."
        case 503: "Please try again in a little while."
        default: "Please try again; if it keeps happening, contact the app’s support."
        }
    }

    static func title(for status: Int) -> String {
        switch status {
        case 404, 410: "This link doesn’t lead anywhere"
        case 409: "That’s already done"
        case 429: "Too many tries"
        case 400, 405, 413, 415, 422: "Something in this link isn’t right"
        case 403: "This isn’t available to you"
        case 503: "Not available right now"
        default: "Something went wrong on our side"
        }
    }
}

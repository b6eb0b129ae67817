import Hummingbird
import RedeemCore

/// Errors on the pages a buyer opens (purchase links, checkout returns, redemption links, the offer-code page) as a
/// page in the same style, never a JSON body. The status stays the API's, so scripts and caches read it alike.
struct ErrorPages: Sendable {
    let templates: Templates
    /// The app a page's address names, for its name, icon and support address on the error page; nil when unknown.
    var app: @Sendable (String) async -> App? = { _ in nil }

    /// The buyer-facing routes: everything outside the JSON API, the webhooks and the service files.
    static func isPage(_ path: String) -> Bool {
        ["/p/", "/sandbox/", "/checkout/", "/r/", "/redeem", "/console", "/account/"].contains { path.hasPrefix($0) }
    }

    /// The app ID a buyer page's address carries: `/p/{app}/…`, `/sandbox/p/{app}/…`, `/checkout/{app}/…`,
    /// `/account/{app}…`, or `?id=` on the offer-code pages.
    static func appID(path: String, query: (String) -> String?) -> String? {
        let parts = path.split(separator: "/").map(String.init)
        switch parts.first {
        case "p", "account": return parts.count > 1 ? parts[1] : nil
        case "checkout": return parts.count > 2 && parts[1] != "done" ? parts[1] : nil
        case "sandbox" where parts.count > 2 && parts[1] == "p": return parts[2]
        case "redeem", "sandbox": return query("id")
        default: return nil
        }
    }

    /// The error as a page, in the app's name and with its support address when the address names a known app, so
    /// the buyer has someone to write to.
    func response(for error: APIError, request: Request) async -> Response {
        // Not while the database is away (503): the page must come back at once.
        guard error.status.code != 503,
            let appID = Self.appID(path: request.uri.path, query: { request.uri.queryParameters[Substring($0)].map(String.init) })
        else { return response(for: error) }
        return response(for: error, app: await app(appID))
    }

    func response(for error: APIError, app: App? = nil) -> Response {
        let words = error.page
        let page = MessagePage(
            title: words?.title ?? Self.title(for: error.status.code), reason: words?.reason,
            text: words?.advice ?? Self.advice(for: error.status.code), detail: Self.detail(of: error))
        var response = PageRenderer(templates: templates).response("message", page, layout: Branding(app), status: error.status)
        for field in error.headers { response.headers[field.name] = field.value }
        return response
    }

    /// The small type: the API's message, the precise reason for whoever the buyer reports it to; none when the error
    /// has words for buyers (said first, as the page's reason), or when it says no more than the title (a method a
    /// browser never sends, an unknown path).
    static func detail(of error: APIError) -> String? {
        if error.page != nil { return nil }
        if error.status == .methodNotAllowed || error.message == error.status.reasonPhrase { return nil }
        return error.message
    }

    static func advice(for status: Int) -> String {
        switch status {
        case 404, 410, 400, 405, 413, 415, 422: BuyerTexts.current["error.advice.link"]
        case 429: BuyerTexts.current["form.too_many"]
        case 503: BuyerTexts.current["error.advice.later"]
        default: BuyerTexts.current["error.advice.again"]
        }
    }

    static func title(for status: Int) -> String {
        switch status {
        case 404, 410: BuyerTexts.current["error.title.not_found"]
        case 409: BuyerTexts.current["error.title.done"]
        case 429: BuyerTexts.current["error.title.too_many"]
        case 400, 405, 413, 415, 422: BuyerTexts.current["error.title.bad_link"]
        case 403: BuyerTexts.current["error.title.forbidden"]
        case 503: BuyerTexts.current["error.title.unavailable"]
        default: BuyerTexts.current["error.title.failed"]
        }
    }
}

/// How a buyer page words an error, in the language of the request that made it.
struct PageWords: Sendable {
    /// Why, said first under the title; nil for nothing beyond the title and advice.
    var reason: String?
    /// Over the status's title and advice, where they would mislead (trying again after buying).
    var title: String?
    var advice: String?
}

extension APIError {
    /// This error as a buyer page words it: the text `reason` of the request's language, filled with `values` (nil for
    /// nothing beyond the title and advice), and the texts `title` and `advice` over the status's. The API's `message`
    /// is unchanged.
    func onPage(_ reason: String?, _ values: [String: String] = [:], title: String? = nil, advice: String? = nil) -> APIError {
        let texts = BuyerTexts.current
        var error = self
        error.page = PageWords(reason: reason.map { texts.format($0, values) }, title: title.map { texts[$0] }, advice: advice.map { texts[$0] })
        return error
    }
}

/// The `message` page: a title, why in the buyer's words when there is a why they can act on, a sentence, and the
/// precise reason in small type when there is one.
struct MessagePage: PageModel {
    let title: String
    var reason: String? = nil
    let text: String
    var detail: String? = nil
}

import HTTPTypes
import Hummingbird

/// Lets a web page on another origin call the `/v1` API with an app's key, as RevenueCat's API lets its Web SDK: a
/// web app starting `/v1/web_checkouts` from the buyer's browser with its public key, or reading CustomerInfo. Any
/// origin, since a key (a header the page sets) is what authorises, never a cookie; the buyer pages, the console, the
/// admin API and the `/v1` routes that take only a secret key (which belong on servers) stay same-origin, and so does
/// the Customer Center's support form: it sends e-mail, only the native SDKs send it, and a page on any origin could
/// otherwise make its visitors' browsers send tickets.
struct BrowserAccessMiddleware<Context: RequestContext>: RouterMiddleware {
    let cors = CORSMiddleware<Context>(
        allowOrigin: .all,
        // What a page's `fetch` sends beyond the CORS-safelisted headers: the key, JSON, and the headers RevenueCat's
        // SDKs set, which Redeem reads (`X-Platform`, `X-Preferred-Locales`, `X-Client-Bundle-ID`) or ignores.
        allowHeaders: [.accept, .authorization, .contentType, .acceptLanguage]
            + [
                "X-Platform", "X-Platform-Flavor", "X-Platform-Flavor-Version", "X-Platform-Version", "X-Version", "X-Client-Version",
                "X-Client-Build-Version", "X-Client-Bundle-ID", "X-Preferred-Locales", "X-Is-Sandbox", "X-Observer-Mode-Enabled",
                "X-Storefront", "X-Retry-Count", "Idempotency-Key",
            ].compactMap { HTTPField.Name($0) },
        // DELETE is a secret key's (`…/offerings/override`, a customer's deletion).
        allowMethods: [.get, .post, .options],
        maxAge: .minutes(10))
    /// The answer's headers a page may read besides the safelisted ones. On the answer itself, where browsers look for
    /// them (Hummingbird's middleware puts its `exposedHeaders` on the preflight only).
    static var exposed: String { "X-RevenueCat-Request-Time, Retry-After" }

    /// `/v1`, but for the server API's routes and the support form.
    static func answersOtherOrigins(_ path: String) -> Bool {
        guard path.hasPrefix("/v1/"), path != "/v1/purchases", path != "/v1/customercenter/support/create-ticket" else { return false }
        // RevenueCat's REST API v1 for backends: promotional grants and offering overrides.
        return !(path.hasSuffix("/promotional") || path.hasSuffix("/revoke_promotionals") || path.hasSuffix("/override"))
    }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard Self.answersOtherOrigins(request.uri.path) else { return try await next(request, context) }
        var response = try await cors.handle(request, context: context, next: next)
        if request.headers[.origin] != nil, request.method != .options { response.headers[.accessControlExposeHeaders] = Self.exposed }
        return response
    }
}

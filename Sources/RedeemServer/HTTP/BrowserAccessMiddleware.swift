import HTTPTypes
import Hummingbird

/// Lets a web page on another origin call the `/v1` API with an app's key, as RevenueCat's API lets its Web SDK: a
/// web app starting `/v1/web_checkouts` from the buyer's browser with its public key, or reading CustomerInfo. Any
/// origin, since a key (a header the page sets) is what authorises, never a cookie; the buyer pages, the console and
/// the admin API (secret keys, which belong on servers) stay same-origin.
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
        allowMethods: [.get, .post, .delete, .options],
        maxAge: .minutes(10))
    /// The answer's headers a page may read besides the safelisted ones. On the answer itself, where browsers look for
    /// them (Hummingbird's middleware puts its `exposedHeaders` on the preflight only).
    static var exposed: String { "X-RevenueCat-Request-Time, Retry-After" }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard request.uri.path.hasPrefix("/v1/") else { return try await next(request, context) }
        var response = try await cors.handle(request, context: context, next: next)
        if request.headers[.origin] != nil, request.method != .options { response.headers[.accessControlExposeHeaders] = Self.exposed }
        return response
    }
}

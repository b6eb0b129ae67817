import Hummingbird

extension BuyerTexts {
    /// The language of the buyer page being served, chosen from its request; nil outside one (the API, the console,
    /// webhooks, workers). A task-local, because it is chosen once per request and read deep in services (their
    /// refusals, the language a purchase and its e-mails keep) and by the renderer, as `RequestScope` is.
    @TaskLocal static var requested: BuyerTexts?

    /// The words of the buyer page being served; English outside one.
    static var current: BuyerTexts { requested ?? BuyerLanguages.bundled.english }
}

/// Chooses a buyer page's language for the rest of the request: the link's `?lang=` (remembered in a cookie for the
/// pages that follow, the checkout's form and its success page among them), else that cookie, else `Accept-Language`.
/// Only buyer pages pay for it: the API, the console and the webhooks keep English.
struct BuyerLanguageMiddleware<Context: RequestContext>: RouterMiddleware {
    static var cookie: String { "redeem_lang" }

    let languages: BuyerLanguages
    /// The cookie's `Secure` flag: set when the public URL is https.
    let secureCookies: Bool

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let path = request.uri.path
        guard ErrorPages.isPage(path), !path.hasPrefix("/console") else { return try await next(request, context) }
        let named = languages.named(request.uri.queryParameters["lang"].map(String.init))
        let texts =
            named ?? languages.named(request.cookies[Self.cookie]?.value) ?? languages.choose(acceptLanguage: request.headers[.acceptLanguage])
        // A page fetched with GET offers the other languages, by its own query.
        let query = request.method == .get ? request.uri.query ?? "" : nil
        var response = try await BuyerTexts.$requested.withValue(texts) {
            try await LanguageMenu.$query.withValue(query) { try await next(request, context) }
        }
        if let named {
            response.setCookie(
                Cookie(
                    name: Self.cookie, value: named.language, maxAge: 30 * 86_400, path: "/", secure: secureCookies, httpOnly: true, sameSite: .lax))
        }
        return response
    }
}

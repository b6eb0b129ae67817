import Hummingbird

extension BuyerTexts {
    /// The language of the buyer page being served, chosen from its request; nil outside one (the API, the console,
    /// webhooks, workers). A task-local, because it is chosen once per request and read deep in services (their
    /// refusals, the language a purchase and its e-mails keep) and by the renderer, as `RequestScope` is.
    @TaskLocal static var requested: BuyerTexts?

    /// The words of the buyer page being served; English outside one.
    static var current: BuyerTexts { requested ?? BuyerLanguages.bundled.english }
}

/// Chooses a buyer page's language from `Accept-Language` for the rest of the request. Only buyer pages pay for it:
/// the API, the console and the webhooks keep English.
struct BuyerLanguageMiddleware<Context: RequestContext>: RouterMiddleware {
    let languages: BuyerLanguages

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let path = request.uri.path
        guard ErrorPages.isPage(path), !path.hasPrefix("/console") else { return try await next(request, context) }
        return try await BuyerTexts.$requested.withValue(languages.choose(acceptLanguage: request.headers[.acceptLanguage])) {
            try await next(request, context)
        }
    }
}

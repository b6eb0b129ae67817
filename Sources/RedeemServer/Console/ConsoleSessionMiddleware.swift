import Hummingbird
import RedeemCore

/// The one gate of the console's signed-in pages. It finds the operator's session (or sends them to sign in), sends a
/// session waiting for its authenticator code to the code step and an owner who must enrol to enrolment, checks the
/// CSRF token of every POST, loads the navigation's apps once, and answers any refusal inside as a console page.
struct ConsoleSessionMiddleware: RouterMiddleware {
    typealias Context = AppRequestContext
    let service: ConsoleService
    let pages: ConsolePages
    /// The account pages, where an owner who must turn on two-factor sign-in does so.
    var enrolling = false
    /// The largest console form (an offering with its metadata).
    static let formLimit = 64 * 1024

    func handle(_ request: Request, context: AppRequestContext, next: (Request, AppRequestContext) async throws -> Response) async throws -> Response
    {
        guard let token = request.cookies[ConsoleCookies.session]?.value, let session = try await service.session(token: token) else {
            return ConsolePages.redirect("/console/sign-in")
        }
        if session.awaitingCode { return ConsolePages.redirect("/console/sign-in/code") }
        if session.mustEnrol && !enrolling { return ConsolePages.redirect("/console/account") }
        let apps = try await service.apps()
        var app: App? = nil
        do {
            if context.parameters.get("app_id") != nil {
                let id = try context.parameters.decoded("app_id")
                guard let found = apps.first(where: { $0.id == id }) else { throw APIError.notFound("There is no app '\(id)'.") }
                app = found
            }
            var form: [String: String] = [:]
            if request.method == .post {
                form = try await FormBody.parse(request, limit: Self.formLimit)
                try FormBody.requireToken(form, session.csrf, expired: "The form has expired; go back, reload the page and try again.")
            }
            var context = context
            context.console = ConsoleRequest(session: session, form: form, apps: apps, app: app, path: request.uri.path)
            return try await next(request, context)
        } catch {
            // Outages and the unexpected stay with the server's error handling; the rest is the operator's to read.
            guard let refusal = APIError.from(error), refusal.status.code < 500 else { throw error }
            return pages.failure(refusal, request: request, session: session, apps: apps, app: app)
        }
    }
}

/// The console's cookies: the session, and the sign-in form's token.
enum ConsoleCookies {
    static let session = "redeem_console"
    static let signInForm = "redeem_console_form"
}

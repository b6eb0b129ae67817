import Hummingbird
import RedeemStore

/// The Hummingbird context of the request a generated handler is serving. Generated handlers see only the operation's
/// input, so the key `AuthMiddleware` resolved and the client's address travel in a task-local.
enum RequestScope {
    @TaskLocal static var context: AppRequestContext?
}

/// Sets `RequestScope.context` for the rest of the request.
struct RequestScopeMiddleware: RouterMiddleware {
    func handle(
        _ request: Request, context: AppRequestContext, next: (Request, AppRequestContext) async throws -> Response
    ) async throws -> Response {
        try await RequestScope.$context.withValue(context) {
            try await next(request, context)
        }
    }
}

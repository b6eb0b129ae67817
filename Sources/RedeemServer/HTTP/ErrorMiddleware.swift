import Hummingbird
import Logging

/// Turns thrown errors into JSON error bodies; unexpected ones become 500 and are logged as critical.
struct ErrorMiddleware<Context: RequestContext>: RouterMiddleware {
    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch let error as HTTPError {
            return try APIError(framework: error.status, message: error.body).response(from: request, context: context)
        } catch {
            if let api = APIError.from(error) {
                if api.status.code >= 500 { context.logger.critical("request failed", metadata: ["error": "\(error)"]) }
                return try api.response(from: request, context: context)
            }
            if let error = error as? any HTTPResponseError, error.status.code < 500 {
                // Framework errors such as an oversized body (413) keep their status.
                return try APIError(framework: error.status, message: nil).response(from: request, context: context)
            }
            context.logger.critical("unexpected error", metadata: ["error": "\(String(reflecting: error))"])
            let api = APIError(.internalServerError, code: 7500, message: "Internal error; it has been logged.")
            return try api.response(from: request, context: context)
        }
    }
}

import Hummingbird
import Logging
import NIOCore
import NIOHTTP1

/// Turns thrown errors into JSON error bodies. Bad input is a 4xx logged below `error`; a database outage is a 503
/// with `Retry-After`; only unexpected faults are 500 and `critical`, the level that asks for a person.
struct ErrorMiddleware<Context: RequestContext>: RouterMiddleware {
    /// Tells an unknown path (404) from a known one asked with another method (405).
    let routes: RouteTable

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch let error as HTTPError {
            if error.status == .notFound, case let allowed = routes.methods(for: request.uri.path), !allowed.isEmpty {
                var api = APIError(.methodNotAllowed, "\(request.uri.path) exists, but not with \(request.method.rawValue).")
                api.headers[.allow] = allowed.sorted().joined(separator: ", ")
                return try api.response(from: request, context: context)
            }
            return try APIError(framework: error.status, message: error.body).response(from: request, context: context)
        } catch {
            if let api = APIError.from(error) {
                if api.status.code >= 500 { context.logger.log(level: Self.level(of: api), "request failed", metadata: ["error": "\(error)"]) }
                return try api.response(from: request, context: context)
            }
            if let error = error as? HTTPParserError {
                // A malformed body (a bad chunk size, say) is the client's mistake.
                context.logger.info("malformed request", metadata: ["error": "\(error)"])
                return try APIError.badRequest("The request is not valid HTTP (\(error)).").response(from: request, context: context)
            }
            if error is ChannelError || error is IOError {
                // The client went away mid-request: nobody will read an answer.
                context.logger.debug("client gone", metadata: ["error": "\(error)"])
                return try APIError.badRequest("The connection closed mid-request.").response(from: request, context: context)
            }
            if let error = error as? any HTTPResponseError, error.status.code < 500 {
                // Framework errors such as an oversized body (413) keep their status.
                return try APIError(framework: error.status, message: nil).response(from: request, context: context)
            }
            context.logger.critical("unexpected error", metadata: ["error": "\(String(reflecting: error))"])
            let api = APIError(.internalError, "Internal error; it has been logged.")
            return try api.response(from: request, context: context)
        }
    }

    /// 503s are expected answers (a feature that is off, a database restarting); other 5xx need looking at.
    static func level(of error: APIError) -> Logger.Level {
        switch error.status.code {
        case 503: .notice
        case 500: .critical
        default: .error
        }
    }
}

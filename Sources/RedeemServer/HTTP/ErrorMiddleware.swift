import Hummingbird
import Logging
import NIOCore
import NIOHTTP1
import OpenAPIRuntime

/// Turns thrown errors into answers: a JSON error body on API routes, a page on the buyer's pages. Bad input is a 4xx
/// logged below `error`; a database outage is a 503 with `Retry-After`; only unexpected faults are 500 and `critical`,
/// the level that asks for a person.
struct ErrorMiddleware<Context: RequestContext>: RouterMiddleware {
    /// Tells an unknown path (404) from a known one asked with another method (405).
    let routes: RouteTable
    /// Renders errors on buyer-facing pages as HTML.
    let pages: ErrorPages

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch {
            let api = answer(to: error, request: request, logger: context.logger)
            if ErrorPages.isPage(request.uri.path) { return await pages.response(for: api, request: request) }
            return try api.response(from: request, context: context)
        }
    }

    func answer(to error: any Error, request: Request, logger: Logger) -> APIError {
        if let error = error as? ServerError {
            // A generated handler's error: ours as thrown, or the runtime's own for input it could not read.
            if error.underlyingError is ServerError || error.httpStatus.code >= 500 || APIError.from(error.underlyingError) != nil {
                return answer(to: error.underlyingError, request: request, logger: logger)
            }
            logger.info("request not accepted", metadata: ["operation": "\(error.operationID)", "error": "\(error.causeDescription)"])
            return APIError(framework: error.httpStatus, message: error.causeDescription, field: Self.field(named: error.causeDescription))
        }
        if let error = error as? HTTPError {
            if error.status == .notFound, case let allowed = routes.methods(for: request.uri.path), !allowed.isEmpty,
                !allowed.contains(request.method.rawValue)
            {
                var api = APIError(.methodNotAllowed, "\(request.uri.path) exists, but not with \(request.method.rawValue).")
                api.headers[.allow] = allowed.sorted().joined(separator: ", ")
                return api
            }
            return APIError(framework: error.status, message: error.body)
        }
        if let api = APIError.from(error) {
            if api.status.code >= 500 { logger.log(level: Self.level(of: api), "request failed", metadata: ["error": "\(error)"]) }
            return api
        }
        if let error = error as? HTTPParserError {
            // A malformed body (a bad chunk size, say) is the client's mistake.
            logger.info("malformed request", metadata: ["error": "\(error)"])
            return APIError.badRequest("The request is not valid HTTP (\(error)).")
        }
        if error is ChannelError || error is IOError {
            // The client went away mid-request: nobody will read an answer.
            logger.debug("client gone", metadata: ["error": "\(error)"])
            return APIError.badRequest("The connection closed mid-request.")
        }
        if let error = error as? any HTTPResponseError, error.status.code < 500 {
            // Framework errors such as an oversized body (413) keep their status.
            return APIError(framework: error.status, message: nil)
        }
        logger.critical("unexpected error", metadata: ["error": "\(String(reflecting: error))"])
        return APIError(.internalError, "Internal error; it has been logged.")
    }

    /// The parameter a runtime error names ("The required header field named 'Idempotency-Key' is missing."): the
    /// runtime's errors are not public types, only their descriptions are.
    static func field(named description: String) -> String? {
        guard let start = description.range(of: "named '")?.upperBound ?? description.range(of: "named: ")?.upperBound else { return nil }
        let name = description[start...].prefix { $0 != "'" && $0 != " " && $0 != "." }
        return name.isEmpty ? nil : String(name)
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

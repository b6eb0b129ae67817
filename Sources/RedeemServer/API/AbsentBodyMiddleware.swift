import HTTPTypes
import OpenAPIRuntime

/// A request that carries no body reaches the generated handlers with none, not an empty one: an optional body (the
/// admin cancel's reason) is then simply absent, and a required one is "Missing required request body" (400) rather
/// than empty text read as invalid JSON. swift-openapi-hummingbird hands every request a body, empty or not.
struct AbsentBodyMiddleware: ServerMiddleware {
    func intercept(
        _ request: HTTPRequest, body: HTTPBody?, metadata: ServerRequestMetadata, operationID: String,
        next: @Sendable (HTTPRequest, HTTPBody?, ServerRequestMetadata) async throws -> (HTTPResponse, HTTPBody?)
    ) async throws -> (HTTPResponse, HTTPBody?) {
        let empty = request.headerFields[.contentLength].map { Int($0) == 0 } ?? (request.headerFields[.transferEncoding] == nil)
        return try await next(request, empty ? nil : body, metadata)
    }
}

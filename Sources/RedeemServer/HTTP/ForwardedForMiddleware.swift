import Hummingbird

/// Behind a reverse proxy every peer is the proxy, so per-IP rate limits would put all clients in one bucket. When the
/// peer is a trusted proxy, the client is the last address of `X-Forwarded-For`: the one the proxy appended itself
/// (nginx's `$proxy_add_x_forwarded_for`). Addresses before it come from the client and are never believed.
struct ForwardedForMiddleware: RouterMiddleware {
    typealias Context = AppRequestContext
    let trusted: Set<String>

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var context = context
        if let peer = context.remoteIP, trusted.contains(peer), let client = Self.client(request.headers[values: .init("X-Forwarded-For")!]) {
            context.remoteIP = client
        }
        return try await next(request, context)
    }

    /// The last address of the header's (possibly repeated) comma-separated lists; nil when there is none.
    static func client(_ values: [String]) -> String? {
        let last = values.last?.split(separator: ",").last?.trimmingCharacters(in: .whitespaces)
        guard let last, !last.isEmpty, last.count <= 45, last.allSatisfy({ $0.isHexDigit || $0 == "." || $0 == ":" }) else { return nil }
        return last
    }
}

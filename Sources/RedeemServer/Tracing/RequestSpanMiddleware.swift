import HTTPTypes
import Hummingbird
import Tracing

/// One server span per request, named after the route pattern (`GET /r/{token}`), never the raw path or query: tokens,
/// codes and e-mail addresses in URLs stay out of the traces, as out of the logs and the metrics. A `traceparent`
/// header from the caller continues its trace. Installed only when tracing is on, so it costs nothing otherwise
/// (Hummingbird's own `TracingMiddleware` records `url.path` and the query, which carry tokens here).
struct RequestSpanMiddleware<Context: RequestContext>: RouterMiddleware {
    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var parent = ServiceContext.current ?? .topLevel
        InstrumentationSystem.instrument.extract(request.headers, into: &parent, using: HeaderExtractor())
        let span = startSpan("\(request.method.rawValue) unmatched", context: parent, ofKind: .server)
        span.attributes["http.request.method"] = request.method.rawValue
        do {
            let response = try await ServiceContext.$current.withValue(span.context) { try await next(request, context) }
            let route = context.endpointPath ?? "unmatched"
            span.operationName = "\(request.method.rawValue) \(route)"
            span.attributes["http.route"] = route
            span.attributes["http.response.status_code"] = Int(response.status.code)
            if response.status.code >= 500 { span.setStatus(SpanStatus(code: .error)) }
            span.end()
            return response
        } catch {
            span.operationName = "\(request.method.rawValue) \(context.endpointPath ?? "unmatched")"
            span.setStatus(SpanStatus(code: .error))
            span.end()
            throw error
        }
    }
}

/// Reads trace context (`traceparent`, `tracestate`, `baggage`) from request headers.
struct HeaderExtractor: Extractor {
    func extract(key: String, from headers: HTTPFields) -> String? {
        HTTPField.Name(key).flatMap { headers[$0] }
    }
}

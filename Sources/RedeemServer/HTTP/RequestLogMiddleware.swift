import Foundation
import Hummingbird
import Logging

/// Logs one structured line per request, and counts it in the metrics, naming the route pattern rather than the raw
/// path, so tokens and keys in URLs never reach the logs or the metrics' labels.
struct RequestLogMiddleware<Context: RequestContext>: RouterMiddleware {
    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let start = ContinuousClock.now
        let response = try await next(request, context)
        let elapsed = ContinuousClock.now - start
        RedeemMetrics.request(
            method: request.method.rawValue, route: context.endpointPath ?? "unmatched", status: Int(response.status.code), elapsed: elapsed)
        context.logger.debug(
            "request",
            metadata: [
                "method": "\(request.method.rawValue)",
                "route": "\(context.endpointPath ?? "unmatched")",
                "status": "\(response.status.code)",
                "ms": "\(Double(elapsed.components.attoseconds) / 1e15 + Double(elapsed.components.seconds) * 1000)",
            ])
        return response
    }
}

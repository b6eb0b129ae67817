import Foundation
import HTTPTypes
import Hummingbird
import RedeemCore

/// Every answer under `/v1` carries `X-RevenueCat-Request-Time` (epoch milliseconds), which RevenueCat's SDKs take as
/// the request date when judging expiry; errors included, so it sits outside the error middleware. Never an ETag.
struct RevenueCatHeadersMiddleware<Context: RequestContext>: RouterMiddleware {
    let clock: any RedeemClock
    static var requestTime: HTTPField.Name { HTTPField.Name("X-RevenueCat-Request-Time")! }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let now = clock.now()
        var response = try await next(request, context)
        if request.uri.path.hasPrefix("/v1/") {
            response.headers[Self.requestTime] = String(now.millisecondsSince1970)
        }
        return response
    }
}

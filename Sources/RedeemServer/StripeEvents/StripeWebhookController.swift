import Foundation
import Hummingbird
import RedeemCore
import RedeemStore

/// `POST /webhooks/stripe`: Stripe's events, handed to `StripeEventService` as the exact bytes Stripe signed.
struct StripeWebhookController {
    let service: StripeEventService

    func addRoutes(to router: Router<AppRequestContext>) {
        router.post("/webhooks/stripe", use: receive)
    }

    struct Received: Encodable {
        let received = true
        let duplicate: Bool
    }

    @Sendable func receive(_ request: Request, context: AppRequestContext) async throws -> JSONResponse<Received> {
        let body = try await request.body.collect(upTo: 1024 * 1024)
        do {
            let applied = try await service.receive(payload: Array(body.readableBytesView), signature: request.headers[.init("Stripe-Signature")!])
            return JSONResponse(Received(duplicate: !applied))
        } catch StripeEventError.unreadableAmount(let reason) {
            // Nothing was recorded; Stripe delivers the event again, and an operator must see why it was refused.
            context.logger.error("Stripe event refused: its amount cannot be read", metadata: ["reason": "\(reason)"])
            throw StripeEventError.unreadableAmount(reason)
        }
    }
}

import Foundation

/// A Stripe webhook event (`{"id": "evt_…", "type": …, "created": …, "livemode": …,
/// "data": {"object": …}}`), with `data.object` decoded for the types Redeem handles.
public struct StripeEvent: Sendable, Hashable, Decodable {
    public let eventID: String
    public let type: String
    public let created: Date
    public let livemode: Bool
    /// The API version the payload was rendered with (`api_version`), if present.
    public let apiVersion: String?
    public let payload: Payload

    public enum Payload: Sendable, Hashable {
        case checkoutSessionCompleted(StripeCheckoutSession)
        case checkoutSessionAsyncPaymentSucceeded(StripeCheckoutSession)
        case checkoutSessionAsyncPaymentFailed(StripeCheckoutSession)
        case invoicePaid(StripeInvoice)
        case invoicePaymentFailed(StripeInvoice)
        case subscriptionUpdated(StripeSubscription)
        case subscriptionDeleted(StripeSubscription)
        case chargeRefunded(StripeCharge)
        /// A dispute opened, changed or closed: the status says which.
        case dispute(StripeDispute)
        /// Any other event type; its object is not decoded.
        case unhandled(type: String)
    }

    /// The event types with a typed payload, e.g. for an endpoint's `enabled_events`.
    public static let handledTypes = [
        "checkout.session.completed",
        "checkout.session.async_payment_succeeded",
        "checkout.session.async_payment_failed",
        "invoice.paid",
        "invoice.payment_failed",
        "customer.subscription.updated",
        "customer.subscription.deleted",
        "charge.refunded",
        "charge.dispute.created",
        "charge.dispute.updated",
        "charge.dispute.closed",
    ]

    /// Decodes a raw event body. Throws `DecodingError` for a malformed envelope or a
    /// handled type whose object lacks a required field.
    public init(json: some DataProtocol) throws {
        self = try JSONDecoder().decode(StripeEvent.self, from: Data(json))
    }

    private enum CodingKeys: String, CodingKey {
        case id, type, created, livemode, data
        case apiVersion = "api_version"
    }

    private enum DataKeys: String, CodingKey {
        case object
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        eventID = try c.decode(String.self, forKey: .id)
        type = try c.decode(String.self, forKey: .type)
        created = try c.decodeUnixTime(forKey: .created)
        livemode = try c.decode(Bool.self, forKey: .livemode)
        apiVersion = try c.decodeIfPresent(String.self, forKey: .apiVersion)

        func object<T: Decodable>(_: T.Type = T.self) throws -> T {
            try c.nestedContainer(keyedBy: DataKeys.self, forKey: .data).decode(T.self, forKey: .object)
        }
        payload =
            switch type {
            case "checkout.session.completed": .checkoutSessionCompleted(try object())
            case "checkout.session.async_payment_succeeded": .checkoutSessionAsyncPaymentSucceeded(try object())
            case "checkout.session.async_payment_failed": .checkoutSessionAsyncPaymentFailed(try object())
            case "invoice.paid": .invoicePaid(try object())
            case "invoice.payment_failed": .invoicePaymentFailed(try object())
            case "customer.subscription.updated": .subscriptionUpdated(try object())
            case "customer.subscription.deleted": .subscriptionDeleted(try object())
            case "charge.refunded": .chargeRefunded(try object())
            case "charge.dispute.created", "charge.dispute.updated", "charge.dispute.closed": .dispute(try object())
            default: .unhandled(type: type)
            }
    }
}

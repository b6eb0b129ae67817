import Foundation

/// The fields of a Dispute that Redeem uses (`charge.dispute.created`, `.updated`, `.closed`): the buyer's bank took a
/// payment back, or asked about it first (an inquiry, Stripe's `warning_…` statuses).
public struct StripeDispute: Sendable, Hashable, Decodable {
    public let id: String
    /// When the bank opened it.
    public let created: Date
    /// The payment it disputes, which Redeem keeps as the purchase's payment reference.
    public let paymentIntentID: String?
    /// Minor units disputed.
    public let amount: Int
    public let currency: String
    /// Stripe's reason (`fraudulent`, `product_not_received`, `subscription_canceled`, …).
    public let reason: String
    /// Stripe's status (`warning_needs_response`, `needs_response`, `under_review`, `won`, `lost`, …).
    public let status: String

    private enum CodingKeys: String, CodingKey {
        case id, created, amount, currency, reason, status
        case paymentIntent = "payment_intent"
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        id = try c.decode(String.self, forKey: .id)
        created = try c.decodeUnixTime(forKey: .created)
        paymentIntentID = try c.decodeIDIfPresent(forKey: .paymentIntent)
        amount = try c.decode(Int.self, forKey: .amount)
        currency = try c.decode(String.self, forKey: .currency)
        reason = try c.decode(String.self, forKey: .reason)
        status = try c.decode(String.self, forKey: .status)
    }
}

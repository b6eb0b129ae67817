/// The fields of a Charge that Redeem uses (for `charge.refunded`).
public struct StripeCharge: Sendable, Hashable, Decodable {
    public let id: String
    public let paymentIntentID: String?
    /// Absent from 2025-03-31.basil on: map refunds through `paymentIntentID` instead.
    public let invoiceID: String?
    /// Minor units charged.
    public let amount: Int
    /// Minor units refunded so far.
    public let amountRefunded: Int
    /// True only when the whole amount is refunded.
    public let refunded: Bool
    public let currency: String

    private enum CodingKeys: String, CodingKey {
        case id, invoice, amount, refunded, currency
        case paymentIntent = "payment_intent"
        case amountRefunded = "amount_refunded"
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        id = try c.decode(String.self, forKey: .id)
        paymentIntentID = try c.decodeIDIfPresent(forKey: .paymentIntent)
        invoiceID = try c.decodeIDIfPresent(forKey: .invoice)
        amount = try c.decode(Int.self, forKey: .amount)
        amountRefunded = try c.decode(Int.self, forKey: .amountRefunded)
        refunded = try c.decode(Bool.self, forKey: .refunded)
        currency = try c.decode(String.self, forKey: .currency)
    }
}

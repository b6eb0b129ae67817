import Foundation

/// The fields of a Checkout Session that Redeem uses.
public struct StripeCheckoutSession: Sendable, Hashable, Decodable {
    /// `payment`, `subscription` or `setup`; unknown values are kept.
    public struct Mode: RawRepresentable, Hashable, Sendable, Decodable {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public static let payment = Mode(rawValue: "payment")
        public static let subscription = Mode(rawValue: "subscription")
        public static let setup = Mode(rawValue: "setup")
    }

    /// `paid`, `unpaid` or `no_payment_required`; unknown values are kept.
    public struct PaymentStatus: RawRepresentable, Hashable, Sendable, Decodable {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public static let paid = PaymentStatus(rawValue: "paid")
        public static let unpaid = PaymentStatus(rawValue: "unpaid")
        public static let noPaymentRequired = PaymentStatus(rawValue: "no_payment_required")
    }

    public let id: String
    public let mode: Mode
    public let paymentStatus: PaymentStatus
    public let customerID: String?
    public let subscriptionID: String?
    public let paymentIntentID: String?
    public let clientReferenceID: String?
    public let metadata: [String: String]
    /// `customer_details.email` (what the buyer entered), else the prefilled `customer_email`.
    public let email: String?
    /// Minor units, e.g. 999 for 9.99 USD.
    public let amountTotal: Int?
    /// Lowercase ISO 4217, e.g. `usd`.
    public let currency: String?
    public let created: Date
    /// `consent.terms_of_service == "accepted"`: the buyer ticked Stripe's consent box (`consent_collection`).
    public let acceptedTermsOfService: Bool

    private enum CodingKeys: String, CodingKey {
        case id, mode, customer, subscription, metadata, currency, created, consent
        case paymentStatus = "payment_status"
        case paymentIntent = "payment_intent"
        case clientReferenceID = "client_reference_id"
        case customerDetails = "customer_details"
        case customerEmail = "customer_email"
        case amountTotal = "amount_total"
    }

    private struct CustomerDetails: Decodable {
        let email: String?
    }

    private struct Consent: Decodable {
        let termsOfService: String?
        enum CodingKeys: String, CodingKey { case termsOfService = "terms_of_service" }
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        id = try c.decode(String.self, forKey: .id)
        mode = try c.decode(Mode.self, forKey: .mode)
        paymentStatus = try c.decode(PaymentStatus.self, forKey: .paymentStatus)
        customerID = try c.decodeIDIfPresent(forKey: .customer)
        subscriptionID = try c.decodeIDIfPresent(forKey: .subscription)
        paymentIntentID = try c.decodeIDIfPresent(forKey: .paymentIntent)
        clientReferenceID = try c.decodeIfPresent(String.self, forKey: .clientReferenceID)
        metadata = try c.decodeMetadata(forKey: .metadata)
        let details = try c.decodeIfPresent(CustomerDetails.self, forKey: .customerDetails)
        email = try details?.email ?? c.decodeIfPresent(String.self, forKey: .customerEmail)
        amountTotal = try c.decodeIfPresent(Int.self, forKey: .amountTotal)
        currency = try c.decodeIfPresent(String.self, forKey: .currency)
        created = try c.decodeUnixTime(forKey: .created)
        acceptedTermsOfService = try c.decodeIfPresent(Consent.self, forKey: .consent)?.termsOfService == "accepted"
    }
}

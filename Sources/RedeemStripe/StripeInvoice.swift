import Foundation

/// The fields of an Invoice that Redeem uses.
public struct StripeInvoice: Sendable, Hashable, Decodable {
    /// Why the invoice was created; unknown values are kept.
    public struct BillingReason: RawRepresentable, Hashable, Sendable, Decodable {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public static let subscriptionCreate = BillingReason(rawValue: "subscription_create")
        public static let subscriptionCycle = BillingReason(rawValue: "subscription_cycle")
        public static let subscriptionUpdate = BillingReason(rawValue: "subscription_update")
        public static let subscriptionThreshold = BillingReason(rawValue: "subscription_threshold")
        public static let manual = BillingReason(rawValue: "manual")
    }

    /// One invoice line and the service period it bills.
    public struct Line: Sendable, Hashable, Decodable {
        public let id: String
        public let amount: Int
        public let period: StripePeriod
    }

    public let id: String
    /// Top-level `subscription` (≤ 2025-02-24.acacia) or
    /// `parent.subscription_details.subscription` (2025-03-31.basil and later).
    public let subscriptionID: String?
    public let billingReason: BillingReason?
    public let customerID: String?
    /// `draft`, `open`, `paid`, `uncollectible` or `void`.
    public let status: String?
    /// Minor units.
    public let amountPaid: Int
    public let currency: String
    /// The lines included in the event (Stripe embeds at most the first page).
    public let lines: [Line]
    /// `status_transitions.paid_at`.
    public let paidAt: Date?
    /// The payment that paid it (API versions before 2025-03-31.basil; later ones list payments separately).
    public let paymentIntentID: String?

    /// The latest period end among the lines: how far a paid invoice extends access.
    public var periodEnd: Date? { lines.map(\.period.end).max() }

    private enum CodingKeys: String, CodingKey {
        case id, subscription, parent, customer, status, currency, lines
        case billingReason = "billing_reason"
        case paymentIntent = "payment_intent"
        case amountPaid = "amount_paid"
        case statusTransitions = "status_transitions"
    }

    private enum ParentKeys: String, CodingKey {
        case subscriptionDetails = "subscription_details"
    }

    private enum SubscriptionDetailsKeys: String, CodingKey {
        case subscription
    }

    private struct StatusTransitions: Decodable {
        let paidAt: Int64?
        enum CodingKeys: String, CodingKey { case paidAt = "paid_at" }
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        id = try c.decode(String.self, forKey: .id)
        subscriptionID = try c.decodeIDIfPresent(forKey: .subscription) ?? Self.parentSubscription(c)
        billingReason = try c.decodeIfPresent(BillingReason.self, forKey: .billingReason)
        customerID = try c.decodeIDIfPresent(forKey: .customer)
        status = try c.decodeIfPresent(String.self, forKey: .status)
        amountPaid = try c.decode(Int.self, forKey: .amountPaid)
        currency = try c.decode(String.self, forKey: .currency)
        lines = try c.decodeIfPresent(StripeList<Line>.self, forKey: .lines)?.data ?? []
        paidAt = try c.decodeIfPresent(StatusTransitions.self, forKey: .statusTransitions)?.paidAt
            .map { Date(timeIntervalSince1970: TimeInterval($0)) }
        paymentIntentID = try c.decodeIDIfPresent(forKey: .paymentIntent)
    }

    private static func parentSubscription(_ c: KeyedDecodingContainer<CodingKeys>) throws -> String? {
        guard c.contains(.parent), try !c.decodeNil(forKey: .parent) else { return nil }
        let parent = try c.nestedContainer(keyedBy: ParentKeys.self, forKey: .parent)
        guard parent.contains(.subscriptionDetails), try !parent.decodeNil(forKey: .subscriptionDetails) else {
            return nil
        }
        return try parent.nestedContainer(keyedBy: SubscriptionDetailsKeys.self, forKey: .subscriptionDetails)
            .decodeIDIfPresent(forKey: .subscription)
    }
}

/// A billing period `[start, end)`.
public struct StripePeriod: Sendable, Hashable, Decodable {
    public let start: Date
    public let end: Date

    public init(start: Date, end: Date) {
        self.start = start
        self.end = end
    }

    private enum CodingKeys: String, CodingKey { case start, end }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        start = try c.decodeUnixTime(forKey: .start)
        end = try c.decodeUnixTime(forKey: .end)
    }
}

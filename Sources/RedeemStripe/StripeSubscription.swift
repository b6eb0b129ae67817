import Foundation

/// The fields of a Subscription that Redeem uses.
public struct StripeSubscription: Sendable, Hashable, Decodable {
    /// Subscription status; unknown values are kept.
    public struct Status: RawRepresentable, Hashable, Sendable, Decodable {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public static let trialing = Status(rawValue: "trialing")
        public static let active = Status(rawValue: "active")
        public static let pastDue = Status(rawValue: "past_due")
        public static let unpaid = Status(rawValue: "unpaid")
        public static let canceled = Status(rawValue: "canceled")
        public static let incomplete = Status(rawValue: "incomplete")
        public static let incompleteExpired = Status(rawValue: "incomplete_expired")
        public static let paused = Status(rawValue: "paused")
    }

    public let id: String
    public let status: Status
    public let customerID: String
    public let cancelAtPeriodEnd: Bool
    /// When a cancellation scheduled for a date takes effect (Stripe's dashboard "on a custom date", or `cancel_at`
    /// set through the API); `cancel_at_period_end` stays false then.
    public let cancelAt: Date?
    public let canceledAt: Date?
    /// Top-level `current_period_end` (≤ 2025-02-24.acacia) or
    /// `items.data[0].current_period_end` (2025-03-31.basil and later).
    public let currentPeriodEnd: Date?
    public let endedAt: Date?
    public let metadata: [String: String]
    /// `items.data[0].price`: what the subscription is now billed, which a plan switch (Stripe's Billing Portal or
    /// dashboard) changes.
    public let price: Price?
    /// `items.data[0].price.id`.
    public var priceID: String? { price?.id }
    /// `items.data[0].id`: the item a plan switch gives its new Price.
    public let itemID: String?
    /// `cancellation_details.feedback`: the customer's reason for cancelling (`too_expensive`, `unused`, …), when given.
    public let cancellationFeedback: String?
    /// `schedule`: the subscription schedule that manages it (a plan switch waiting for the period's end), if any.
    public let scheduleID: String?

    /// Whether it renews after its current period: neither cancelled at the period's end nor scheduled to end on a date.
    public var willRenew: Bool { !cancelAtPeriodEnd && cancelAt == nil }

    private enum CodingKeys: String, CodingKey {
        case id, status, customer, metadata, items, schedule
        case cancellationDetails = "cancellation_details"
        case cancelAtPeriodEnd = "cancel_at_period_end"
        case cancelAt = "cancel_at"
        case canceledAt = "canceled_at"
        case currentPeriodEnd = "current_period_end"
        case endedAt = "ended_at"
    }

    private struct CancellationDetails: Decodable { let feedback: String? }

    /// A subscription item's Price: its ID, its amount when it is a flat one, and its metadata (Redeem's own Prices
    /// carry `app_id` and `product_id`).
    public struct Price: Sendable, Hashable, Decodable {
        public let id: String
        /// Stripe's integer amount; nil for tiered or custom prices.
        public let unitAmount: Int?
        public let currency: String?
        public let metadata: [String: String]

        private enum CodingKeys: String, CodingKey {
            case id, currency, metadata
            case unitAmount = "unit_amount"
        }

        public init(from decoder: any Decoder) throws {
            let c = try decoder.container(keyedBy: CodingKeys.self)
            id = try c.decode(String.self, forKey: .id)
            unitAmount = try c.decodeIfPresent(Int.self, forKey: .unitAmount)
            currency = try c.decodeIfPresent(String.self, forKey: .currency)
            metadata = try c.decodeMetadata(forKey: .metadata)
        }
    }

    private struct Item: Decodable {
        let id: String?
        let currentPeriodEnd: Int64?
        let price: Price?
        enum CodingKeys: String, CodingKey {
            case id, price
            case currentPeriodEnd = "current_period_end"
        }
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        id = try c.decode(String.self, forKey: .id)
        status = try c.decode(Status.self, forKey: .status)
        customerID = try c.decodeID(forKey: .customer)
        cancelAtPeriodEnd = try c.decodeIfPresent(Bool.self, forKey: .cancelAtPeriodEnd) ?? false
        cancelAt = try c.decodeUnixTimeIfPresent(forKey: .cancelAt)
        canceledAt = try c.decodeUnixTimeIfPresent(forKey: .canceledAt)
        endedAt = try c.decodeUnixTimeIfPresent(forKey: .endedAt)
        metadata = try c.decodeMetadata(forKey: .metadata)
        let first = try c.decodeIfPresent(StripeList<Item>.self, forKey: .items)?.data.first
        price = first?.price
        itemID = first?.id
        cancellationFeedback = try c.decodeIfPresent(CancellationDetails.self, forKey: .cancellationDetails)?.feedback
        scheduleID = try c.decodeIDIfPresent(forKey: .schedule)
        currentPeriodEnd =
            try c.decodeUnixTimeIfPresent(forKey: .currentPeriodEnd)
            ?? first?.currentPeriodEnd.map { Date(timeIntervalSince1970: TimeInterval($0)) }
    }
}

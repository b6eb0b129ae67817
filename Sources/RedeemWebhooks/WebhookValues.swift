import RedeemCore

/// `environment`: `SANDBOX` or `PRODUCTION`.
public enum WebhookEnvironment: String, Codable, CaseIterable, Sendable {
    case sandbox = "SANDBOX"
    case production = "PRODUCTION"

    public init(isSandbox: Bool) { self = isSandbox ? .sandbox : .production }
}

/// `store`, in RevenueCat's uppercase webhook spelling. Unknown values are kept.
public struct WebhookStore: RawRepresentable, Hashable, Codable, Sendable {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }

    /// `rc_billing` becomes `RC_BILLING`, and so on: webhooks uppercase CustomerInfo's names.
    public init(_ store: Store) { self.rawValue = store.rawValue.uppercased() }

    public static let appStore = Self(rawValue: "APP_STORE")
    public static let macAppStore = Self(rawValue: "MAC_APP_STORE")
    public static let playStore = Self(rawValue: "PLAY_STORE")
    public static let amazon = Self(rawValue: "AMAZON")
    public static let stripe = Self(rawValue: "STRIPE")
    public static let rcBilling = Self(rawValue: "RC_BILLING")
    public static let paddle = Self(rawValue: "PADDLE")
    public static let promotional = Self(rawValue: "PROMOTIONAL")
    public static let external = Self(rawValue: "EXTERNAL")
}

/// `period_type`: `NORMAL`, `INTRO`, `TRIAL`, `PREPAID`. Unknown values are kept.
public struct WebhookPeriodType: RawRepresentable, Hashable, Codable, Sendable {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public init(_ type: PeriodType) { self.rawValue = type.rawValue.uppercased() }

    public static let normal = Self(.normal)
    public static let intro = Self(.intro)
    public static let trial = Self(.trial)
    public static let prepaid = Self(.prepaid)
    /// Granted entitlements, which CustomerInfo shows as `normal` in the `promotional` store.
    public static let promotional = Self(rawValue: "PROMOTIONAL")
}

/// `cancel_reason` and `expiration_reason`. Unknown values are kept.
public struct WebhookReason: RawRepresentable, Hashable, Codable, Sendable {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }

    public static let unsubscribe = Self(rawValue: "UNSUBSCRIBE")
    public static let billingError = Self(rawValue: "BILLING_ERROR")
    public static let developerInitiated = Self(rawValue: "DEVELOPER_INITIATED")
    public static let priceIncrease = Self(rawValue: "PRICE_INCREASE")
    public static let customerSupport = Self(rawValue: "CUSTOMER_SUPPORT")
    public static let unknown = Self(rawValue: "UNKNOWN")
}

/// One `subscriber_attributes` entry.
public struct WebhookSubscriberAttribute: Codable, Equatable, Sendable {
    public var value: String
    public var updatedAtMs: Int64

    public init(value: String, updatedAtMs: Int64) {
        self.value = value
        self.updatedAtMs = updatedAtMs
    }

    enum CodingKeys: String, CodingKey {
        case value
        case updatedAtMs = "updated_at_ms"
    }
}

/// Redeem's `redemption` object on `REDEMPTION` events.
public struct WebhookRedemption: Codable, Equatable, Sendable {
    /// How the purchase reached the redeemer; nil when they already owned it.
    public enum Association: String, Codable, Sendable {
        case alias, transfer

        /// Nil for `.refuse`, which redeems nothing.
        public init?(_ association: RedeemCore.Association) {
            switch association {
            case .alias: self = .alias
            case .transfer: self = .transfer
            case .refuse: return nil
            }
        }
    }

    public var purchaseID: String
    /// The app user ID that redeemed the link.
    public var redeemedBy: String
    public var association: Association?

    public init(purchaseID: String, redeemedBy: String, association: Association?) {
        self.purchaseID = purchaseID
        self.redeemedBy = redeemedBy
        self.association = association
    }

    enum CodingKeys: String, CodingKey {
        case association
        case purchaseID = "purchase_id"
        case redeemedBy = "redeemed_by"
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(purchaseID, forKey: .purchaseID)
        try c.encode(redeemedBy, forKey: .redeemedBy)
        try c.encode(association, forKey: .association)
    }
}

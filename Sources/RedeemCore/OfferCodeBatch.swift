import Foundation

/// One-time codes generated together for an offer. Only their hashes are stored; the codes are shown once.
public struct OfferCodeBatch: Codable, Hashable, Sendable {
    public var id: String
    public var appID: String
    public var offerID: String
    public var count: Int
    public var expiresAt: Date
    public var isActive: Bool
    public var createdAt: Date
    /// How many of its codes were redeemed; filled in by listings.
    public var redeemed: Int?

    public init(id: String, appID: String, offerID: String, count: Int, expiresAt: Date, isActive: Bool = true, createdAt: Date, redeemed: Int? = nil)
    {
        self.id = id
        self.appID = appID
        self.offerID = offerID
        self.count = count
        self.expiresAt = expiresAt
        self.isActive = isActive
        self.createdAt = createdAt
        self.redeemed = redeemed
    }

    enum CodingKeys: String, CodingKey {
        case id, count, redeemed
        case appID = "app_id"
        case offerID = "offer_id"
        case expiresAt = "expires_at"
        case isActive = "active"
        case createdAt = "created_at"
    }

    public static let maxCount = 1_000_000
    /// A batch lives at most 6 months, as on the App Store.
    public static let maxLifetime = ISO8601Period(months: 6)

    /// Checks the count and that the expiry is in the future and at most 6 months away.
    public static func validate(count: Int, expiresAt: Date, now: Date) throws(ValidationError) {
        guard (1...maxCount).contains(count) else {
            throw ValidationError(field: "count", reason: "must be between 1 and \(maxCount)")
        }
        guard expiresAt > now else { throw ValidationError(field: "expires_at", reason: "must be in the future") }
        guard expiresAt <= maxLifetime.advance(now) else {
            throw ValidationError(field: "expires_at", reason: "must be at most 6 months away")
        }
    }
}

/// A memorable code (`SUMMER25`) for an offer, redeemable up to a cap.
public struct CustomOfferCode: Codable, Hashable, Sendable {
    public var id: String
    public var appID: String
    public var offerID: String
    /// The canonical form: upper case, without spaces or dashes; unique per app.
    public var code: String
    public var maxRedemptions: Int
    public var redemptionCount: Int
    public var expiresAt: Date?
    public var isActive: Bool
    public var createdAt: Date

    public init(
        id: String, appID: String, offerID: String, code: String, maxRedemptions: Int, redemptionCount: Int = 0,
        expiresAt: Date?, isActive: Bool = true, createdAt: Date
    ) {
        self.id = id
        self.appID = appID
        self.offerID = offerID
        self.code = code
        self.maxRedemptions = maxRedemptions
        self.redemptionCount = redemptionCount
        self.expiresAt = expiresAt
        self.isActive = isActive
        self.createdAt = createdAt
    }

    enum CodingKeys: String, CodingKey {
        case id, code
        case appID = "app_id"
        case offerID = "offer_id"
        case maxRedemptions = "max_redemptions"
        case redemptionCount = "redemption_count"
        case expiresAt = "expires_at"
        case isActive = "active"
        case createdAt = "created_at"
    }

    public static let maxCap = 1_000_000
}

/// One redemption, for the report: who, with which kind of code, for which offer, when.
public struct OfferRedemptionRecord: Codable, Hashable, Sendable {
    public var id: String
    public var offerID: String
    public var referenceName: String
    public var appUserID: String
    public var customerID: String
    /// `one_time` or `custom`.
    public var codeType: String
    /// The custom code's string; nil for one-time codes (never stored in plaintext).
    public var customCode: String?
    public var batchID: String?
    public var purchaseID: String?
    /// `sdk` or `web`.
    public var channel: String
    public var createdAt: Date

    public init(
        id: String, offerID: String, referenceName: String, appUserID: String, customerID: String, codeType: String,
        customCode: String?, batchID: String?, purchaseID: String?, channel: String, createdAt: Date
    ) {
        self.id = id
        self.offerID = offerID
        self.referenceName = referenceName
        self.appUserID = appUserID
        self.customerID = customerID
        self.codeType = codeType
        self.customCode = customCode
        self.batchID = batchID
        self.purchaseID = purchaseID
        self.channel = channel
        self.createdAt = createdAt
    }

    enum CodingKeys: String, CodingKey {
        case id, channel
        case offerID = "offer_id"
        case referenceName = "reference_name"
        case appUserID = "app_user_id"
        case customerID = "customer_id"
        case codeType = "code_type"
        case customCode = "custom_code"
        case batchID = "batch_id"
        case purchaseID = "purchase_id"
        case createdAt = "created_at"
    }
}

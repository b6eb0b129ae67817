import Foundation

/// What a successful redemption redeemed (`redemption_info` in the 200 response).
public struct RedemptionInfo: Hashable, Sendable {
    /// The app user ID that now owns the purchase.
    public let ownerAppUserID: String
    public let productIdentifier: String
    public let purchaserEmail: String?
    public let store: Store?
    /// Store-specific identifiers, e.g. `stripe_customer_id`, `stripe_subscription_id`, `checkout_session_id`.
    public let storeIdentifiers: [String: String]
    /// Entitlement identifiers the purchase grants.
    public let entitlements: [String]
    public let purchaseID: String?

    public init(
        ownerAppUserID: String,
        productIdentifier: String,
        purchaserEmail: String? = nil,
        store: Store? = nil,
        storeIdentifiers: [String: String] = [:],
        entitlements: [String] = [],
        purchaseID: String? = nil
    ) {
        self.ownerAppUserID = ownerAppUserID
        self.productIdentifier = productIdentifier
        self.purchaserEmail = purchaserEmail
        self.store = store
        self.storeIdentifiers = storeIdentifiers
        self.entitlements = entitlements
        self.purchaseID = purchaseID
    }

    public var stripeCustomerID: String? { storeIdentifiers["stripe_customer_id"] }
    public var stripeSubscriptionID: String? { storeIdentifiers["stripe_subscription_id"] }
    public var checkoutSessionID: String? { storeIdentifiers["checkout_session_id"] }
}

extension RedemptionInfo: Decodable {
    private enum CodingKeys: String, CodingKey {
        case purchaserEmail = "purchaser_email"
        case store
        case storeIdentifiers = "store_identifiers"
        case ownerAppUserID = "owner_app_user_id"
        case productIdentifier = "product_identifier"
        case entitlements
        case purchaseID = "purchase_id"
    }

    /// Owner and product are required; everything else is optional and tolerant.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        ownerAppUserID = try c.decode(LossyString.self, forKey: .ownerAppUserID).value ?? ""
        productIdentifier = try c.decode(LossyString.self, forKey: .productIdentifier).value ?? ""
        guard !ownerAppUserID.isEmpty, !productIdentifier.isEmpty else {
            throw DecodingError.dataCorruptedError(forKey: .productIdentifier, in: c, debugDescription: "Blank owner or product")
        }
        purchaserEmail = c.lenient(String.self, forKey: .purchaserEmail)
        store = c.lenient(Store.self, forKey: .store)
        storeIdentifiers = (c.lenient([String: LossyString].self, forKey: .storeIdentifiers) ?? [:])
            .compactMapValues(\.value)
        entitlements = (c.lenient(LossyArray<String>.self, forKey: .entitlements)?.elements) ?? []
        purchaseID = c.lenientString(forKey: .purchaseID)
    }
}

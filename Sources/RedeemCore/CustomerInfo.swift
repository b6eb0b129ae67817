import Foundation

/// RevenueCat's CustomerInfo wire format (`GET /v1/subscribers/{id}`), built from stored facts.
public struct CustomerInfo: Encodable, Hashable, Sendable {
    public var requestDate: String
    public var requestDateMs: Int64
    public var subscriber: Subscriber

    enum CodingKeys: String, CodingKey {
        case subscriber
        case requestDate = "request_date"
        case requestDateMs = "request_date_ms"
    }

    public struct Subscriber: Encodable, Hashable, Sendable {
        public var originalAppUserID: String
        public var originalApplicationVersion: String?
        public var originalPurchaseDate: String?
        public var firstSeen: String
        public var lastSeen: String
        public var managementURL: String?
        public var subscriptions: [String: SubscriptionInfo]
        public var nonSubscriptions: [String: [Transaction]]
        public var entitlements: [String: EntitlementInfo]
        public var otherPurchases: [String: Transaction]
        public var subscriberAttributes: [String: Attribute]

        enum CodingKeys: String, CodingKey {
            case subscriptions, entitlements
            case originalAppUserID = "original_app_user_id"
            case originalApplicationVersion = "original_application_version"
            case originalPurchaseDate = "original_purchase_date"
            case firstSeen = "first_seen"
            case lastSeen = "last_seen"
            case managementURL = "management_url"
            case nonSubscriptions = "non_subscriptions"
            case otherPurchases = "other_purchases"
            case subscriberAttributes = "subscriber_attributes"
        }

        public func encode(to encoder: any Encoder) throws {
            var c = encoder.container(keyedBy: CodingKeys.self)
            try c.encode(originalAppUserID, forKey: .originalAppUserID)
            try c.encode(originalApplicationVersion, forKey: .originalApplicationVersion)
            try c.encode(originalPurchaseDate, forKey: .originalPurchaseDate)
            try c.encode(firstSeen, forKey: .firstSeen)
            try c.encode(lastSeen, forKey: .lastSeen)
            try c.encode(managementURL, forKey: .managementURL)
            try c.encode(subscriptions, forKey: .subscriptions)
            try c.encode(nonSubscriptions, forKey: .nonSubscriptions)
            try c.encode(entitlements, forKey: .entitlements)
            try c.encode(otherPurchases, forKey: .otherPurchases)
            try c.encode(subscriberAttributes, forKey: .subscriberAttributes)
        }
    }

    public struct PriceInfo: Encodable, Hashable, Sendable {
        public var amount: Double
        public var currency: String
    }

    public struct SubscriptionInfo: Encodable, Hashable, Sendable {
        public var purchaseDate: String
        public var originalPurchaseDate: String
        public var expiresDate: String?
        public var store: String
        public var isSandbox: Bool
        public var periodType: String
        public var ownershipType: String
        public var unsubscribeDetectedAt: String?
        public var billingIssuesDetectedAt: String?
        public var gracePeriodExpiresDate: String?
        public var refundedAt: String?
        public var autoResumeDate: String?
        public var storeTransactionID: String
        public var displayName: String?
        public var price: PriceInfo?
        public var managementURL: String?
        /// Set when an offer code made the latest transaction; written only then.
        public var offer: PurchaseOffer?

        enum CodingKeys: String, CodingKey {
            case store, price
            case offerCodeRefName = "offer_code_ref_name"
            case offerType = "offer_type"
            case offerDiscountType = "offer_discount_type"
            case offerPeriod = "offer_period"
            case purchaseDate = "purchase_date"
            case originalPurchaseDate = "original_purchase_date"
            case expiresDate = "expires_date"
            case isSandbox = "is_sandbox"
            case periodType = "period_type"
            case ownershipType = "ownership_type"
            case unsubscribeDetectedAt = "unsubscribe_detected_at"
            case billingIssuesDetectedAt = "billing_issues_detected_at"
            case gracePeriodExpiresDate = "grace_period_expires_date"
            case refundedAt = "refunded_at"
            case autoResumeDate = "auto_resume_date"
            case storeTransactionID = "store_transaction_id"
            case displayName = "display_name"
            case managementURL = "management_url"
        }

        // Nulls are written out, as RevenueCat does.
        public func encode(to encoder: any Encoder) throws {
            var c = encoder.container(keyedBy: CodingKeys.self)
            try c.encode(purchaseDate, forKey: .purchaseDate)
            try c.encode(originalPurchaseDate, forKey: .originalPurchaseDate)
            try c.encode(expiresDate, forKey: .expiresDate)
            try c.encode(store, forKey: .store)
            try c.encode(isSandbox, forKey: .isSandbox)
            try c.encode(periodType, forKey: .periodType)
            try c.encode(ownershipType, forKey: .ownershipType)
            try c.encode(unsubscribeDetectedAt, forKey: .unsubscribeDetectedAt)
            try c.encode(billingIssuesDetectedAt, forKey: .billingIssuesDetectedAt)
            try c.encode(gracePeriodExpiresDate, forKey: .gracePeriodExpiresDate)
            try c.encode(refundedAt, forKey: .refundedAt)
            try c.encode(autoResumeDate, forKey: .autoResumeDate)
            try c.encode(storeTransactionID, forKey: .storeTransactionID)
            try c.encode(displayName, forKey: .displayName)
            try c.encode(price, forKey: .price)
            try c.encode(managementURL, forKey: .managementURL)
            if let offer {
                try c.encode(offer.referenceName, forKey: .offerCodeRefName)
                try c.encode("offer_code", forKey: .offerType)
                try c.encode(offer.discountType.rawValue, forKey: .offerDiscountType)
                try c.encode(offer.period, forKey: .offerPeriod)
            }
        }
    }

    public struct Transaction: Encodable, Hashable, Sendable {
        public var id: String
        public var purchaseDate: String
        public var originalPurchaseDate: String
        public var store: String
        public var isSandbox: Bool
        public var storeTransactionID: String
        public var displayName: String?
        public var refundedAt: String?
        public var price: PriceInfo?

        enum CodingKeys: String, CodingKey {
            case id, store, price
            case purchaseDate = "purchase_date"
            case originalPurchaseDate = "original_purchase_date"
            case isSandbox = "is_sandbox"
            case storeTransactionID = "store_transaction_id"
            case displayName = "display_name"
            case refundedAt = "refunded_at"
        }

        public func encode(to encoder: any Encoder) throws {
            var c = encoder.container(keyedBy: CodingKeys.self)
            try c.encode(id, forKey: .id)
            try c.encode(purchaseDate, forKey: .purchaseDate)
            try c.encode(originalPurchaseDate, forKey: .originalPurchaseDate)
            try c.encode(store, forKey: .store)
            try c.encode(isSandbox, forKey: .isSandbox)
            try c.encode(storeTransactionID, forKey: .storeTransactionID)
            try c.encode(displayName, forKey: .displayName)
            try c.encode(refundedAt, forKey: .refundedAt)
            try c.encode(price, forKey: .price)
        }
    }

    public struct EntitlementInfo: Encodable, Hashable, Sendable {
        public var expiresDate: String?
        public var purchaseDate: String
        public var productIdentifier: String
        public var gracePeriodExpiresDate: String?

        enum CodingKeys: String, CodingKey {
            case expiresDate = "expires_date"
            case purchaseDate = "purchase_date"
            case productIdentifier = "product_identifier"
            case gracePeriodExpiresDate = "grace_period_expires_date"
        }

        public func encode(to encoder: any Encoder) throws {
            var c = encoder.container(keyedBy: CodingKeys.self)
            try c.encode(expiresDate, forKey: .expiresDate)
            try c.encode(purchaseDate, forKey: .purchaseDate)
            try c.encode(productIdentifier, forKey: .productIdentifier)
            try c.encode(gracePeriodExpiresDate, forKey: .gracePeriodExpiresDate)
        }
    }

    public struct Attribute: Encodable, Hashable, Sendable {
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
}

extension CustomerInfo {
    /// Stores whose purchases the buyer manages in Redeem's portal: its own checkout and Stripe.
    static let webStores: Set<String> = [Store.rcBilling.rawValue, Store.stripe.rawValue]

    /// The customer's subscriber attributes, which RevenueCat returns to backends (secret-key reads) only.
    public func withAttributes(_ attributes: [String: SubscriberAttribute]) -> CustomerInfo {
        var info = self
        info.subscriber.subscriberAttributes = attributes.mapValues {
            Attribute(value: $0.value, updatedAtMs: $0.updatedAt.millisecondsSince1970)
        }
        return info
    }

    /// RevenueCat's `management_url` pointed at `url` (the app's portal) when the customer bought on the web: at the top,
    /// and on each web subscription, as RevenueCat sets it for its own store's. Otherwise left as it is (null).
    public func withManagementURL(_ url: String) -> CustomerInfo {
        var info = self
        let web = { (store: String) in Self.webStores.contains(store) }
        let bought =
            subscriber.subscriptions.values.contains { web($0.store) }
            || subscriber.nonSubscriptions.values.contains { $0.contains { web($0.store) } }
        guard bought else { return self }
        info.subscriber.managementURL = url
        for (id, subscription) in subscriber.subscriptions where web(subscription.store) {
            info.subscriber.subscriptions[id]?.managementURL = url
        }
        return info
    }
}

import Foundation

/// One subscription product of a customer (`subscriber.subscriptions[productIdentifier]`).
public struct SubscriptionInfo: Hashable, Sendable {
    public let productIdentifier: String
    public let purchaseDate: Date?
    public let originalPurchaseDate: Date?
    public let expirationDate: Date?
    public let store: Store?
    public let isSandbox: Bool
    public let periodType: PeriodType?
    public let ownershipType: OwnershipType?
    public let unsubscribeDetectedAt: Date?
    public let billingIssuesDetectedAt: Date?
    public let gracePeriodExpirationDate: Date?
    public let refundedAt: Date?
    public let storeTransactionID: String?
    public let productPlanIdentifier: String?
    public let displayName: String?
    public let price: Price?
    public let managementURL: URL?
}

extension SubscriptionInfo {
    /// The wire shape; the product identifier is the dictionary key, not a field.
    struct Wire: Codable {
        var purchaseDate: Date?
        var originalPurchaseDate: Date?
        var expiresDate: Date?
        var store: Store?
        var isSandbox: Bool?
        var periodType: PeriodType?
        var ownershipType: OwnershipType?
        var unsubscribeDetectedAt: Date?
        var billingIssuesDetectedAt: Date?
        var gracePeriodExpiresDate: Date?
        var refundedAt: Date?
        var storeTransactionID: String?
        var productPlanIdentifier: String?
        var displayName: String?
        var price: Price?
        var managementURL: String?

        enum CodingKeys: String, CodingKey {
            case purchaseDate = "purchase_date"
            case originalPurchaseDate = "original_purchase_date"
            case expiresDate = "expires_date"
            case store
            case isSandbox = "is_sandbox"
            case periodType = "period_type"
            case ownershipType = "ownership_type"
            case unsubscribeDetectedAt = "unsubscribe_detected_at"
            case billingIssuesDetectedAt = "billing_issues_detected_at"
            case gracePeriodExpiresDate = "grace_period_expires_date"
            case refundedAt = "refunded_at"
            case storeTransactionID = "store_transaction_id"
            case productPlanIdentifier = "product_plan_identifier"
            case displayName = "display_name"
            case price
            case managementURL = "management_url"
        }

        init(_ info: SubscriptionInfo) {
            purchaseDate = info.purchaseDate
            originalPurchaseDate = info.originalPurchaseDate
            expiresDate = info.expirationDate
            store = info.store
            isSandbox = info.isSandbox
            periodType = info.periodType
            ownershipType = info.ownershipType
            unsubscribeDetectedAt = info.unsubscribeDetectedAt
            billingIssuesDetectedAt = info.billingIssuesDetectedAt
            gracePeriodExpiresDate = info.gracePeriodExpirationDate
            refundedAt = info.refundedAt
            storeTransactionID = info.storeTransactionID
            productPlanIdentifier = info.productPlanIdentifier
            displayName = info.displayName
            price = info.price
            managementURL = info.managementURL?.absoluteString
        }

        init(from decoder: any Decoder) throws {
            let c = try decoder.container(keyedBy: CodingKeys.self)
            // Dates that are present but unreadable fail this entry (it is then dropped), so a
            // garbled expiry can never read as "no expiry".
            purchaseDate = try c.decodeIfPresent(Date.self, forKey: .purchaseDate)
            originalPurchaseDate = c.lenient(Date.self, forKey: .originalPurchaseDate)
            expiresDate = try c.decodeIfPresent(Date.self, forKey: .expiresDate)
            store = c.lenient(Store.self, forKey: .store)
            isSandbox = c.lenient(Bool.self, forKey: .isSandbox)
            periodType = c.lenient(PeriodType.self, forKey: .periodType)
            ownershipType = c.lenient(OwnershipType.self, forKey: .ownershipType)
            unsubscribeDetectedAt = c.lenient(Date.self, forKey: .unsubscribeDetectedAt)
            billingIssuesDetectedAt = c.lenient(Date.self, forKey: .billingIssuesDetectedAt)
            gracePeriodExpiresDate = c.lenient(Date.self, forKey: .gracePeriodExpiresDate)
            refundedAt = c.lenient(Date.self, forKey: .refundedAt)
            storeTransactionID = c.lenientString(forKey: .storeTransactionID)
            productPlanIdentifier = c.lenientString(forKey: .productPlanIdentifier)
            displayName = c.lenient(String.self, forKey: .displayName)
            price = c.lenient(Price.self, forKey: .price)
            managementURL = c.lenient(String.self, forKey: .managementURL)
        }

        func model(productIdentifier: String) -> SubscriptionInfo {
            SubscriptionInfo(
                productIdentifier: productIdentifier,
                purchaseDate: purchaseDate,
                originalPurchaseDate: originalPurchaseDate,
                expirationDate: expiresDate,
                store: store,
                isSandbox: isSandbox ?? false,
                periodType: periodType,
                ownershipType: ownershipType,
                unsubscribeDetectedAt: unsubscribeDetectedAt,
                billingIssuesDetectedAt: billingIssuesDetectedAt,
                gracePeriodExpirationDate: gracePeriodExpiresDate,
                refundedAt: refundedAt,
                storeTransactionID: storeTransactionID,
                productPlanIdentifier: productPlanIdentifier,
                displayName: displayName,
                price: price,
                managementURL: managementURL.flatMap(URL.init(string:))
            )
        }
    }
}

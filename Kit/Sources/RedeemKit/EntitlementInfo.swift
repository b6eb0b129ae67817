import Foundation

/// One entitlement of a customer (`subscriber.entitlements[identifier]`), or one the app builds
/// itself (for example from StoreKit) to merge with the web ones.
public struct EntitlementInfo: Hashable, Sendable {
    public let identifier: String
    /// Active when there is no expiry, or the expiry or grace period ends after the evaluation date
    /// (the response's request date).
    public let isActive: Bool
    public let productIdentifier: String
    public let productPlanIdentifier: String?
    public let purchaseDate: Date?
    /// `nil` means lifetime.
    public let expirationDate: Date?
    public let gracePeriodExpirationDate: Date?
    /// The store of the product that grants it, when known.
    public let store: Store?

    /// No expiry date: a lifetime entitlement.
    public var isLifetime: Bool { expirationDate == nil }

    public init(
        identifier: String,
        isActive: Bool,
        productIdentifier: String,
        productPlanIdentifier: String? = nil,
        purchaseDate: Date? = nil,
        expirationDate: Date? = nil,
        gracePeriodExpirationDate: Date? = nil,
        store: Store? = nil
    ) {
        self.identifier = identifier
        self.isActive = isActive
        self.productIdentifier = productIdentifier
        self.productPlanIdentifier = productPlanIdentifier
        self.purchaseDate = purchaseDate
        self.expirationDate = expirationDate
        self.gracePeriodExpirationDate = gracePeriodExpirationDate
        self.store = store
    }

    /// The activity rule: no expiry, or expiry (or grace period end) after `date`.
    static func isActive(expiration: Date?, gracePeriodEnd: Date?, at date: Date) -> Bool {
        guard let expiration else { return true }
        let end = max(expiration, gracePeriodEnd ?? expiration)
        return end > date
    }

    /// A copy with `isActive` recomputed at `date`.
    func evaluated(at date: Date) -> EntitlementInfo {
        EntitlementInfo(
            identifier: identifier,
            isActive: Self.isActive(expiration: expirationDate, gracePeriodEnd: gracePeriodExpirationDate, at: date),
            productIdentifier: productIdentifier,
            productPlanIdentifier: productPlanIdentifier,
            purchaseDate: purchaseDate,
            expirationDate: expirationDate,
            gracePeriodExpirationDate: gracePeriodExpirationDate,
            store: store
        )
    }
}

extension EntitlementInfo {
    /// The wire shape; identifier and activity are not fields.
    struct Wire: Codable {
        var productIdentifier: String
        var productPlanIdentifier: String?
        var purchaseDate: Date?
        var expiresDate: Date?
        var gracePeriodExpiresDate: Date?

        enum CodingKeys: String, CodingKey {
            case productIdentifier = "product_identifier"
            case productPlanIdentifier = "product_plan_identifier"
            case purchaseDate = "purchase_date"
            case expiresDate = "expires_date"
            case gracePeriodExpiresDate = "grace_period_expires_date"
        }

        init(_ info: EntitlementInfo) {
            productIdentifier = info.productIdentifier
            productPlanIdentifier = info.productPlanIdentifier
            purchaseDate = info.purchaseDate
            expiresDate = info.expirationDate
            gracePeriodExpiresDate = info.gracePeriodExpirationDate
        }

        init(from decoder: any Decoder) throws {
            let c = try decoder.container(keyedBy: CodingKeys.self)
            productIdentifier = c.lenientString(forKey: .productIdentifier) ?? ""
            productPlanIdentifier = c.lenientString(forKey: .productPlanIdentifier)
            purchaseDate = c.lenient(Date.self, forKey: .purchaseDate)
            // A present but unreadable expiry fails the entry rather than reading as lifetime.
            expiresDate = try c.decodeIfPresent(Date.self, forKey: .expiresDate)
            gracePeriodExpiresDate = c.lenient(Date.self, forKey: .gracePeriodExpiresDate)
        }

        func model(identifier: String, store: Store?, evaluatedAt date: Date) -> EntitlementInfo {
            EntitlementInfo(
                identifier: identifier,
                isActive: EntitlementInfo.isActive(expiration: expiresDate, gracePeriodEnd: gracePeriodExpiresDate, at: date),
                productIdentifier: productIdentifier,
                productPlanIdentifier: productPlanIdentifier,
                purchaseDate: purchaseDate,
                expirationDate: expiresDate,
                gracePeriodExpirationDate: gracePeriodExpiresDate,
                store: store
            )
        }
    }
}

import Foundation

/// Where a purchase was made, as CustomerInfo's `store` names it. Unknown values are kept.
public struct Store: RawRepresentable, Hashable, Codable, Sendable {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }

    /// Redeem's hosted checkout, named as RevenueCat names its Web Billing.
    public static let rcBilling = Store(rawValue: "rc_billing")
    public static let stripe = Store(rawValue: "stripe")
    public static let external = Store(rawValue: "external")
    public static let promotional = Store(rawValue: "promotional")
    public static let known: [Store] = [.rcBilling, .stripe, .external, .promotional]
}

public enum PeriodType: String, Codable, CaseIterable, Sendable {
    case normal, intro, trial, prepaid
}

/// One purchase: a subscription (renewals extend `expiresDate`) or a one-time product.
public struct Purchase: Codable, Hashable, Sendable {
    public var id: String
    public var appID: String
    public var customerID: String
    public var productID: String
    public var store: Store
    public var isSandbox: Bool
    public var purchaseDate: Date
    public var originalPurchaseDate: Date
    /// Nil for one-time products.
    public var expiresDate: Date?
    public var gracePeriodExpiresDate: Date?
    public var periodType: PeriodType
    public var storeTransactionID: String
    public var price: Price?
    public var email: String?
    public var unsubscribeDetectedAt: Date?
    /// Why it was set to end, when the buyer said (`CancellationFeedback`); nil once it renews again.
    public var cancellationFeedback: CancellationFeedback? = nil
    public var billingIssuesDetectedAt: Date?
    public var refundedAt: Date?
    /// Parameters the purchase link carried, kept and passed on.
    public var customParams: [String: String] = [:]
    /// Set when an offer code made this purchase.
    public var offer: PurchaseOffer? = nil
    /// The language the purchase's e-mails speak (`de`, `zh-Hant`): the buyer's checkout page's, or the one the server
    /// API or the CLI named; nil (English) when none was, as for a grant.
    public var language: String? = nil
    /// A switch of plan waiting for the period's end (a downgrade), if one was asked for.
    public var scheduledPlan: ScheduledPlan? = nil
    /// The buyer's bank disputed its payment (`PurchaseDispute`); a chargeback also sets `refundedAt` (and its
    /// `endedAccessAt`), since the money went back and the access ended with it.
    public var dispute: PurchaseDispute? = nil
    /// The buyer's consent to the app's terms at checkout, where the app asked for it (`TermsConsent`).
    public var termsConsent: TermsConsent? = nil
    public var createdAt: Date

    public init(
        id: String, appID: String, customerID: String, productID: String, store: Store, isSandbox: Bool,
        purchaseDate: Date, originalPurchaseDate: Date, expiresDate: Date?, gracePeriodExpiresDate: Date? = nil,
        periodType: PeriodType = .normal, storeTransactionID: String, price: Price?, email: String?,
        unsubscribeDetectedAt: Date? = nil, billingIssuesDetectedAt: Date? = nil, refundedAt: Date? = nil, createdAt: Date
    ) {
        self.id = id
        self.appID = appID
        self.customerID = customerID
        self.productID = productID
        self.store = store
        self.isSandbox = isSandbox
        self.purchaseDate = purchaseDate
        self.originalPurchaseDate = originalPurchaseDate
        self.expiresDate = expiresDate
        self.gracePeriodExpiresDate = gracePeriodExpiresDate
        self.periodType = periodType
        self.storeTransactionID = storeTransactionID
        self.price = price
        self.email = email
        self.unsubscribeDetectedAt = unsubscribeDetectedAt
        self.billingIssuesDetectedAt = billingIssuesDetectedAt
        self.refundedAt = refundedAt
        self.createdAt = createdAt
    }

    enum CodingKeys: String, CodingKey {
        case id, store, price, email
        case appID = "app_id"
        case customerID = "customer_id"
        case productID = "product_id"
        case isSandbox = "is_sandbox"
        case purchaseDate = "purchase_date"
        case originalPurchaseDate = "original_purchase_date"
        case expiresDate = "expires_date"
        case gracePeriodExpiresDate = "grace_period_expires_date"
        case periodType = "period_type"
        case storeTransactionID = "store_transaction_id"
        case unsubscribeDetectedAt = "unsubscribe_detected_at"
        case cancellationFeedback = "cancellation_feedback"
        case billingIssuesDetectedAt = "billing_issues_detected_at"
        case refundedAt = "refunded_at"
        case customParams = "custom_params"
        case offer, language
        case scheduledPlan = "scheduled_plan"
        case dispute
        case termsConsent = "terms_consent"
        case createdAt = "created_at"
    }

    /// The language an e-mail about it is written in: `requested`, the buyer page's that asks for it now, else the
    /// purchase's own; nil (English) for neither.
    public func emailLanguage(requested: String?) -> String? { requested ?? language }

    /// Grants access at `date` (`AccessFacts.isActive`, the one definition).
    public func isActive(at date: Date) -> Bool { access.isActive(at: date) }
}

/// A buyer or app user. Every alias, the original ID included, resolves to one customer.
public struct Customer: Codable, Equatable, Sendable {
    /// How stale `lastSeen` may get before a read refreshes it: at most one write a minute per customer.
    public static let lastSeenResolution: TimeInterval = 60

    public var id: String
    public var appID: String
    public var originalAppUserID: String
    public var aliases: [String]
    public var firstSeen: Date
    public var lastSeen: Date

    public init(id: String, appID: String, originalAppUserID: String, aliases: [String], firstSeen: Date, lastSeen: Date) {
        self.id = id
        self.appID = appID
        self.originalAppUserID = originalAppUserID
        self.aliases = aliases
        self.firstSeen = firstSeen
        self.lastSeen = lastSeen
    }
}

/// The offer code behind a purchase, as App Store transactions carry it.
public struct PurchaseOffer: Codable, Hashable, Sendable {
    public var offerID: String
    /// `offer_code_ref_name`.
    public var referenceName: String
    /// `offer_discount_type`: the offer's payment mode.
    public var discountType: OfferPaymentMode
    /// `offer_period`: the whole offer length, e.g. `P3M`; nil for one-time products.
    public var period: String?

    public init(offerID: String, referenceName: String, discountType: OfferPaymentMode, period: String?) {
        self.offerID = offerID
        self.referenceName = referenceName
        self.discountType = discountType
        self.period = period
    }

    public init(_ offer: Offer) {
        self.init(
            offerID: offer.id, referenceName: offer.referenceName, discountType: offer.paymentMode,
            period: offer.totalPeriod?.description)
    }

    enum CodingKeys: String, CodingKey {
        case period
        case offerID = "offer_id"
        case referenceName = "reference_name"
        case discountType = "discount_type"
    }
}

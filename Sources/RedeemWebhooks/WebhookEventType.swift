/// An event's `type`: RevenueCat's names plus Redeem's own. Unknown values are kept when decoding.
public struct WebhookEventType: RawRepresentable, Hashable, Codable, Sendable {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }

    public static let initialPurchase = Self(rawValue: "INITIAL_PURCHASE")
    public static let nonRenewingPurchase = Self(rawValue: "NON_RENEWING_PURCHASE")
    public static let renewal = Self(rawValue: "RENEWAL")
    public static let productChange = Self(rawValue: "PRODUCT_CHANGE")
    public static let cancellation = Self(rawValue: "CANCELLATION")
    public static let uncancellation = Self(rawValue: "UNCANCELLATION")
    public static let billingIssue = Self(rawValue: "BILLING_ISSUE")
    public static let expiration = Self(rawValue: "EXPIRATION")
    public static let transfer = Self(rawValue: "TRANSFER")
    public static let subscriberAlias = Self(rawValue: "SUBSCRIBER_ALIAS")
    public static let test = Self(rawValue: "TEST")
    /// Redeem only: a redemption link was redeemed.
    public static let redemption = Self(rawValue: "REDEMPTION")
    /// Redeem only: an offer code redeemed on an active subscription of the same level (Apple's `OFFER_REDEEMED`).
    public static let offerCodeRedeemed = Self(rawValue: "OFFER_CODE_REDEEMED")

    public static let known: [Self] = [
        .initialPurchase, .nonRenewingPurchase, .renewal, .productChange, .cancellation, .uncancellation, .billingIssue,
        .expiration, .transfer, .subscriberAlias, .test, .redemption, .offerCodeRedeemed,
    ]
}

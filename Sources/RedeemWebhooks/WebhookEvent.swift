/// One outgoing event, encoding to RevenueCat's webhook `event` object (snake_case keys).
///
/// Purchase events (those with a `productID`) always carry every purchase field, with `null`
/// for unknowns such as `expiration_at_ms` of a lifetime product; other fields appear only when set.
public struct WebhookEvent: Codable, Equatable, Sendable {
    /// Stable across retries, so receivers can dedupe.
    public var id: String
    public var type: WebhookEventType
    public var appID: String
    public var eventTimestampMs: Int64
    public var appUserID: String?
    public var originalAppUserID: String?
    public var aliases: [String]?
    public var environment: WebhookEnvironment?
    public var store: WebhookStore?
    public var subscriberAttributes: [String: WebhookSubscriberAttribute] = [:]

    // Purchase fields.
    public var productID: String?
    /// `PRODUCT_CHANGE`: the product switched to (`product_id` is the one left).
    public var newProductID: String?
    public var entitlementIDs: [String]?
    /// Deprecated by RevenueCat; set only when the product unlocks exactly one entitlement.
    public var entitlementID: String?
    public var periodType: WebhookPeriodType?
    public var purchasedAtMs: Int64?
    /// Nil for lifetime and other one-time products.
    public var expirationAtMs: Int64?
    public var transactionID: String?
    public var originalTransactionID: String?
    /// RevenueCat's USD price: set only for USD purchases, as Redeem does no currency conversion.
    public var price: Double?
    public var currency: String?
    public var priceInPurchasedCurrency: Double?

    // Per-type fields.
    public var cancelReason: WebhookReason?
    public var expirationReason: WebhookReason?
    public var isTrialConversion: Bool?
    public var gracePeriodExpirationAtMs: Int64?
    public var transferredFrom: [String]?
    public var transferredTo: [String]?
    public var redemption: WebhookRedemption?
    /// RevenueCat's `offer_code`: the custom code redeemed; nil for one-time codes, which are never stored.
    public var offerCode: String?
    /// Redeem's account of an offer-code redemption, with Apple's notification type and subtype.
    public var offer: WebhookOffer?

    public init(id: String, type: WebhookEventType, appID: String, eventTimestampMs: Int64) {
        self.id = id
        self.type = type
        self.appID = appID
        self.eventTimestampMs = eventTimestampMs
    }
}

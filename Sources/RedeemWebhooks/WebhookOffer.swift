import Foundation
import RedeemCore

/// The `offer` object of an event caused by an offer-code redemption.
public struct WebhookOffer: Codable, Equatable, Sendable {
    public var offerID: String
    /// `offer_code_ref_name`.
    public var referenceName: String
    /// `one_time` or `custom`.
    public var codeType: String
    public var discountType: String
    /// The whole offer length, e.g. `P3M`; nil for one-time products.
    public var period: String?
    /// Apple's `notificationType` for the same redemption: `SUBSCRIBED`, `OFFER_REDEEMED` or `ONE_TIME_CHARGE`.
    public var notificationType: String
    /// Apple's `subtype`: `INITIAL_BUY`, `RESUBSCRIBE`, `UPGRADE`, `DOWNGRADE`, or nil.
    public var subtype: String?

    public init(offer: PurchaseOffer, codeType: String, kind: OfferRedemptionKind) {
        self.offerID = offer.offerID
        self.referenceName = offer.referenceName
        self.codeType = codeType
        self.discountType = offer.discountType.rawValue
        self.period = offer.period
        self.notificationType = kind.appleNotification.type
        self.subtype = kind.appleNotification.subtype
    }

    enum CodingKeys: String, CodingKey {
        case period, subtype
        case offerID = "offer_id"
        case referenceName = "reference_name"
        case codeType = "code_type"
        case discountType = "discount_type"
        case notificationType = "notification_type"
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(offerID, forKey: .offerID)
        try c.encode(referenceName, forKey: .referenceName)
        try c.encode(codeType, forKey: .codeType)
        try c.encode(discountType, forKey: .discountType)
        try c.encode(period, forKey: .period)
        try c.encode(notificationType, forKey: .notificationType)
        try c.encode(subtype, forKey: .subtype)
    }
}

extension WebhookEvent {
    /// The event an offer-code redemption sends, by RevenueCat's names: `INITIAL_PURCHASE` for a first subscription,
    /// `RENEWAL` for a resubscription, `PRODUCT_CHANGE` for an upgrade or downgrade, `OFFER_CODE_REDEEMED` on an active subscription
    /// of the same level, `NON_RENEWING_PURCHASE` for one-time products.
    public static func offerRedemption(
        _ purchase: Purchase, customer: Customer, product: Product, kind: OfferRedemptionKind, codeType: String,
        customCode: String?, eventID: String, at date: Date
    ) -> WebhookEvent {
        let type: WebhookEventType =
            switch kind {
            case .initialBuy: .initialPurchase
            case .resubscribe: .renewal
            case .upgrade, .downgrade: .productChange
            case .extend, .crossgrade: .offerCodeRedeemed
            case .oneTime: .nonRenewingPurchase
            }
        var event = lifecycle(type, purchase: purchase, customer: customer, product: product, eventID: eventID, at: date)
        if let offer = purchase.offer {
            event.offerCode = customCode
            event.offer = WebhookOffer(offer: offer, codeType: codeType, kind: kind)
        }
        return event
    }
}

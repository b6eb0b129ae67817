import Foundation

/// Why an offer code was not redeemed. Each has its own documented code (docs/errors.md).
public enum OfferRedemptionFailure: String, Error, CaseIterable, Sendable {
    /// No such code, or not a code at all: the two are never told apart.
    case invalid
    case expired
    /// The offer, batch or code is switched off, or the offer has not started.
    case inactive
    /// A custom code's cap is reached.
    case exhausted
    /// This one-time code was used, or this customer already redeemed this offer.
    case alreadyRedeemed = "already_redeemed"
    case notEligible = "not_eligible"
    /// The customer has a higher-level active subscription in the same group.
    case wouldDowngrade = "would_downgrade"
    case quotaReached = "quota_reached"
    /// A paid offer cannot be granted by the SDK route: it is claimed on the web, through checkout.
    case paymentRequired = "payment_required"

    public var errorCode: ErrorCode {
        switch self {
        case .invalid: .offerCodeInvalid
        case .expired: .offerCodeExpired
        case .inactive: .offerCodeInactive
        case .exhausted: .offerCodeExhausted
        case .alreadyRedeemed: .offerCodeAlreadyRedeemed
        case .notEligible: .offerCodeNotEligible
        case .wouldDowngrade: .offerCodeWouldDowngrade
        case .quotaReached: .offerCodeQuotaReached
        case .paymentRequired: .offerCodePaymentRequired
        }
    }

    public var code: Int { errorCode.rawValue }

    public var message: String {
        switch self {
        case .invalid: "This code is not valid."
        case .expired: "This code has expired."
        case .inactive: "This offer is not available right now."
        case .exhausted: "This code has reached its redemption limit."
        case .alreadyRedeemed: "This code or offer has already been redeemed."
        case .notEligible: "This offer is not available for your account."
        case .wouldDowngrade: "Redeeming this code would downgrade your current subscription."
        case .quotaReached: "Offer codes cannot be redeemed right now; try again later."
        case .paymentRequired: "This offer has a price; claim it on the web to pay for it."
        }
    }
}

/// What a redemption does to the customer's subscription, named after App Store notifications.
public enum OfferRedemptionKind: String, Codable, Sendable {
    /// `SUBSCRIBED` / `INITIAL_BUY`: never subscribed to the group.
    case initialBuy = "initial_buy"
    /// `SUBSCRIBED` / `RESUBSCRIBE`: subscribed before, lapsed now.
    case resubscribe
    /// `OFFER_REDEEMED`: on an active subscription of the same product; the offer follows the current period.
    case extend
    /// `OFFER_REDEEMED` / `UPGRADE`: to a higher level of the group, at once.
    case upgrade
    /// `OFFER_REDEEMED` / `DOWNGRADE`: to a lower level of the group, starting when the current period ends
    /// (allowed where the App Store allows it: redemption outside the app; the in-app route refuses it).
    case downgrade
    /// `OFFER_REDEEMED`: to another product of the same level, at once.
    case crossgrade
    /// `ONE_TIME_CHARGE`: a consumable or non-consumable.
    case oneTime = "one_time"

    /// Apple's `notificationType` and `subtype` for it.
    public var appleNotification: (type: String, subtype: String?) {
        switch self {
        case .initialBuy: ("SUBSCRIBED", "INITIAL_BUY")
        case .resubscribe: ("SUBSCRIBED", "RESUBSCRIBE")
        case .extend, .crossgrade: ("OFFER_REDEEMED", nil)
        case .upgrade: ("OFFER_REDEEMED", "UPGRADE")
        case .downgrade: ("OFFER_REDEEMED", "DOWNGRADE")
        case .oneTime: ("ONE_TIME_CHARGE", nil)
        }
    }
}

/// The purchase a redemption records.
public struct OfferPlan: Equatable, Sendable {
    public var kind: OfferRedemptionKind
    public var purchaseDate: Date
    /// Nil for one-time products.
    public var expiresDate: Date?
    public var periodType: PeriodType
}

/// The rules of App Store offer codes, applied to one customer: eligibility, downgrades and the dates granted.
public enum OfferRules {
    /// `purchases` are the customer's; `products` holds at least the products those purchases are of.
    /// A downgrade is refused unless `allowDowngrade`; then it starts when the current higher level ends.
    public static func plan(
        offer: Offer, product: Product, purchases: [Purchase], products: [String: Product], at now: Date, allowDowngrade: Bool = false
    ) -> Result<OfferPlan, OfferRedemptionFailure> {
        let counted = purchases.filter { $0.refundedAt == nil }
        guard product.type == .subscription, let length = offer.totalPeriod else {
            // One-time products: only for customers who never bought it.
            guard !counted.contains(where: { $0.productID == product.id }) else { return .failure(.notEligible) }
            return .success(OfferPlan(kind: .oneTime, purchaseDate: now, expiresDate: nil, periodType: .normal))
        }
        let group = counted.filter { products[$0.productID].map { $0.type == .subscription && $0.groupKey == product.groupKey } ?? false }
        let standing = OfferEligibility.standing(purchases: group, at: now)
        guard offer.eligibility.allows(standing) else { return .failure(.notEligible) }
        let periodType: PeriodType = offer.paymentMode == .freeTrial ? .trial : .intro
        let active = group.filter { $0.isActive(at: now) }
        guard standing == .existing, !active.isEmpty else {
            let kind: OfferRedemptionKind = standing == .new ? .initialBuy : .resubscribe
            return .success(OfferPlan(kind: kind, purchaseDate: now, expiresDate: length.advance(now), periodType: periodType))
        }
        let level = product.groupLevel ?? 0
        let activeLevels = active.compactMap { products[$0.productID]?.groupLevel }
        if product.groupLevel != nil, let highest = activeLevels.min(), highest < level {
            guard allowDowngrade else { return .failure(.wouldDowngrade) }
            let currentEnd = active.compactMap(\.expiresDate).max() ?? now
            return .success(OfferPlan(kind: .downgrade, purchaseDate: now, expiresDate: length.advance(max(currentEnd, now)), periodType: periodType))
        }
        if let current = active.filter({ $0.productID == product.id }).compactMap(\.expiresDate).max() {
            return .success(OfferPlan(kind: .extend, purchaseDate: now, expiresDate: length.advance(max(current, now)), periodType: periodType))
        }
        let upgrade = product.groupLevel != nil && activeLevels.contains { $0 > level }
        return .success(
            OfferPlan(kind: upgrade ? .upgrade : .crossgrade, purchaseDate: now, expiresDate: length.advance(now), periodType: periodType))
    }
}

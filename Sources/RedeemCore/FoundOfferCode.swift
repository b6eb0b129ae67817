import Foundation

/// Where an offer code is redeemed: the in-app route or the web page.
public enum OfferRedemptionChannel: String, Sendable {
    case sdk
    case web
}

/// A code as found by its typed form, before any customer is looked at.
public struct FoundOfferCode: Sendable {
    public enum Kind: Sendable {
        case oneTime(hash: String, batch: OfferCodeBatch, used: Bool)
        case custom(CustomOfferCode)
    }

    public let kind: Kind
    public let offer: Offer
    public let product: Product

    public init(kind: Kind, offer: Offer, product: Product) {
        self.kind = kind
        self.offer = offer
        self.product = product
    }

    public var codeType: String { if case .custom = kind { "custom" } else { "one_time" } }
    public var customCode: String? { if case .custom(let code) = kind { code.code } else { nil } }

    /// Expired before switched off, switched off before used up; nil when the code can be redeemed at `date`.
    public func unavailability(at date: Date) -> OfferRedemptionFailure? {
        switch kind {
        case .oneTime(_, let batch, let used):
            if batch.expiresAt <= date { return .expired }
            if let failure = offer.availability(at: date) { return failure }
            if !batch.isActive { return .inactive }
            return used ? .alreadyRedeemed : nil
        case .custom(let code):
            if let expires = code.expiresAt, expires <= date { return .expired }
            if let failure = offer.availability(at: date) { return failure }
            if !code.isActive { return .inactive }
            return code.redemptionCount >= code.maxRedemptions ? .exhausted : nil
        }
    }
}

extension OfferRules {
    /// What the code alone refuses, before any customer is looked at: an unavailable code, or a paid offer without
    /// a payment (only a checkout grants paid offers).
    public static func refusal(_ code: FoundOfferCode, paid: Bool, at date: Date) -> OfferRedemptionFailure? {
        if let failure = code.unavailability(at: date) { return failure }
        return code.offer.isPaid && !paid ? .paymentRequired : nil
    }

    /// Like the App Store: the in-app route refuses a downgrade; a redemption on the web schedules it after the
    /// current period.
    public static func allowsDowngrade(on channel: OfferRedemptionChannel) -> Bool { channel == .web }

    /// A claim of `code` by someone whose history the store read: a second claim of the offer (by the same customer or,
    /// on the web, the same address) is refused, then `plan` decides eligibility and what is granted. Both the
    /// transactional and the one-statement paths, and the web page's check before payment, decide here.
    public static func decide(
        offer: Offer, product: Product, claimedBefore: Bool, purchases: [Purchase], products: [String: Product], at now: Date,
        channel: OfferRedemptionChannel
    ) -> Result<OfferPlan, OfferRedemptionFailure> {
        if claimedBefore { return .failure(.alreadyRedeemed) }
        return plan(offer: offer, product: product, purchases: purchases, products: products, at: now, allowDowngrade: allowsDowngrade(on: channel))
    }
}

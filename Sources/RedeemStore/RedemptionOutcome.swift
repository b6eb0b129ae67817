import RedeemCore

/// What presenting a redemption token came to.
public enum RedemptionOutcome: Sendable, Equatable {
    /// The purchase now belongs to (or is shared by aliasing with) the claimant.
    case redeemed(Purchase, association: Association?)
    /// As `redeemed`, but the subscription has lapsed.
    case subscriptionExpired(Purchase)
    /// No such token.
    case invalid
    /// The token belongs to another app.
    case otherApp
    /// Used by another user, or the restore behaviour keeps the purchase with its owner.
    case belongsToOtherUser
    /// Unused but past its lifetime.
    case expired(Purchase)
    /// The purchase came from an offer code claimed on the web that the claimant cannot have (claimed it before, or
    /// not eligible): it stays where it is and the link stays unused.
    case offerRefused(OfferRedemptionFailure)

    /// The label stored with each attempt.
    public var label: String {
        switch self {
        case .redeemed: "redeemed"
        case .subscriptionExpired: "subscription_expired"
        case .invalid: "invalid"
        case .otherApp: "other_app"
        case .belongsToOtherUser: "belongs_to_other_user"
        case .expired: "expired"
        case .offerRefused: "offer_refused"
        }
    }
}

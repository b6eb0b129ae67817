import Foundation

/// How a purchase owned by one customer reaches another (RevenueCat's association table).
public enum Association: Equatable, Sendable {
    /// The two customers become one.
    case alias
    /// The purchase moves to the claiming customer.
    case transfer
    /// The purchase stays where it is; the claim is refused.
    case refuse

    /// The rule: anonymous on either side merges; two identified customers follow the restore behaviour.
    /// `RedemptionRules.decide` says who is anonymous and calls this.
    public static func decide(
        claimantIsAnonymous: Bool, ownerIsAnonymous: Bool, behavior: RestoreBehavior, ownerHasActiveSubscription: Bool
    ) -> Association {
        if claimantIsAnonymous || ownerIsAnonymous { return .alias }
        switch behavior {
        case .transfer: return .transfer
        case .transferIfNoActiveSubscription: return ownerHasActiveSubscription ? .refuse : .transfer
        case .keepWithOriginal: return .refuse
        }
    }
}

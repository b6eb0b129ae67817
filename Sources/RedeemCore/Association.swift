import Foundation

/// How a purchase owned by one customer reaches another (RevenueCat's association table).
public enum Association: Equatable, Sendable {
    /// The two customers become one.
    case alias
    /// The purchase moves to the claiming customer.
    case transfer
    /// The purchase stays where it is; the claim is refused.
    case refuse

    /// The rule: anonymous on either side merges; two identified users follow the restore behaviour.
    public static func decide(
        claimant: AppUserID, owner: AppUserID, behavior: RestoreBehavior, ownerHasActiveSubscription: Bool
    ) -> Association {
        decide(claimantIsAnonymous: claimant.isAnonymous, ownerIsAnonymous: owner.isAnonymous, behavior: behavior,
               ownerHasActiveSubscription: ownerHasActiveSubscription)
    }

    /// The same rule for customers, who are anonymous only while none of their IDs is identified.
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

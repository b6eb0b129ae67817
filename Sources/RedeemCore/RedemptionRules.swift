import Foundation

/// What a claimed redemption link does for its claimant. Decided from facts the store read in the redemption's
/// transaction; the store then applies it.
public enum RedemptionDecision: Equatable, Sendable {
    /// The claimant's customer already owns the purchase: nothing moves.
    case alreadyYours
    /// The two customers become one; `survivor` keeps its ID.
    case alias(survivor: Side)
    /// The purchase moves to the claimant's customer.
    case transfer
    /// The purchase stays with its owner; the claim is undone.
    case refuse

    public enum Side: Equatable, Sendable {
        case owner
        case claimant
    }

    /// The association it reports in webhooks; nil when nothing was associated.
    public var association: Association? {
        switch self {
        case .alreadyYours: nil
        case .alias: .alias
        case .transfer: .transfer
        case .refuse: .refuse
        }
    }
}

/// The facts a redemption decision needs, as the store read them inside the transaction.
public struct RedemptionFacts: Equatable, Sendable {
    public var ownerCustomerID: String
    /// Every app user ID of the purchase's owner.
    public var ownerIDs: [String]
    public var claimantCustomerID: String
    /// Every app user ID of the claimant's customer (at least the claimant's own).
    public var claimantIDs: [String]
    public var behavior: RestoreBehavior
    /// The owner's purchases as access facts, read only when `RedemptionRules.needsOwnerSubscriptionState` says so;
    /// nil otherwise. Whether one is an active subscription is `AccessFacts`' to say, at `now`.
    public var ownerPurchases: [AccessFacts]?
    public var now: Date

    public init(
        ownerCustomerID: String, ownerIDs: [String], claimantCustomerID: String, claimantIDs: [String], behavior: RestoreBehavior,
        ownerPurchases: [AccessFacts]? = nil, now: Date
    ) {
        self.ownerCustomerID = ownerCustomerID
        self.ownerIDs = ownerIDs
        self.claimantCustomerID = claimantCustomerID
        self.claimantIDs = claimantIDs
        self.behavior = behavior
        self.ownerPurchases = ownerPurchases
        self.now = now
    }
}

/// The redemption rules: who may take a purchase through a link, and how.
public enum RedemptionRules {
    /// A customer is anonymous while every one of its IDs is; one identified ID makes it identified.
    public static func isAnonymous(ids: some Sequence<String>) -> Bool {
        ids.allSatisfy { $0.hasPrefix(AppUserID.anonymousPrefix) }
    }

    /// Whether the decision depends on the owner having an active subscription, so the store reads it only then.
    public static func needsOwnerSubscriptionState(_ facts: RedemptionFacts) -> Bool {
        facts.ownerCustomerID != facts.claimantCustomerID && !isAnonymous(ids: facts.ownerIDs)
            && !isAnonymous(ids: facts.claimantIDs) && facts.behavior == .transferIfNoActiveSubscription
    }

    /// Anonymous on either side merges (an identified side survives; between two anonymous sides the owner's customer,
    /// which holds the purchase, does); two identified customers follow the app's restore behaviour.
    public static func decide(_ facts: RedemptionFacts) -> RedemptionDecision {
        guard facts.ownerCustomerID != facts.claimantCustomerID else { return .alreadyYours }
        let claimantIsAnonymous = isAnonymous(ids: facts.claimantIDs)
        let ownerIsAnonymous = isAnonymous(ids: facts.ownerIDs)
        switch Association.decide(
            claimantIsAnonymous: claimantIsAnonymous, ownerIsAnonymous: ownerIsAnonymous, behavior: facts.behavior,
            ownerHasActiveSubscription: facts.ownerPurchases?.contains { $0.isActiveSubscription(at: facts.now) } ?? false
        ) {
        case .alias: return .alias(survivor: claimantIsAnonymous ? .owner : .claimant)
        case .transfer: return .transfer
        case .refuse: return .refuse
        }
    }

    /// A consumed link redeems again only for whoever consumed it, or a user aliased to them (same customer now).
    public static func consumedLinkRedeemsAgain(
        consumedBy: String?, claimant: AppUserID, claimantCustomerID: String?, ownerCustomerID: String
    ) -> Bool {
        consumedBy == claimant.rawValue || claimantCustomerID == ownerCustomerID
    }

    /// A subscription that has run out: redeemed, but granting nothing now (RevenueCat's expired-subscription answer).
    public static func isLapsed(_ purchase: Purchase, at date: Date) -> Bool {
        purchase.expiresDate != nil && !purchase.isActive(at: date)
    }
}

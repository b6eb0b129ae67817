import Foundation

/// What a redemption writes, in order, as Core decides it from the facts read (`RedemptionRules.effects`). The store
/// renders one value two ways (`SQLStore+RedemptionEffects`): the transactional path's statements and PostgreSQL's one
/// statement; the merge, the sightings, the attempt and the order of events exist here once.
public struct RedemptionEffects: Equatable, Sendable {
    /// The claimant's customer: created (with the claimant's ID as its alias), already there, or, for a new ID merged
    /// into the owner that survives, no customer of its own: the ID joins the owner's (what creating and merging leave).
    public enum Claimant: Equatable, Sendable {
        case create(customerID: String)
        case existing(customerID: String)
        case joinOwner
    }

    /// Where the purchase goes: nowhere, to the claimant's customer, or with everything `source` has into `into`
    /// (its IDs, purchases, offer redemptions and subscriber attributes, each key's latest write winning), `source`
    /// then deleted.
    public enum Ownership: Equatable, Sendable {
        case unchanged
        case transfer
        case merge(source: String, into: String)
    }

    /// The webhook events, in order.
    public enum Event: Equatable, Sendable {
        case redemption
        /// From the previous owner (`ownerID`) to the survivor.
        case transfer
        /// The survivor's IDs after the merge.
        case alias
    }

    public var appID: String
    public var tokenHash: String
    public var claimant: AppUserID
    public var purchaseID: String
    public var at: Date
    public var claimantCustomer: Claimant
    /// The claimant's customer is created by this write: it has no sightings to widen and no purchases but those moved.
    public var createsClaimant: Bool {
        if case .create = claimantCustomer { true } else { false }
    }
    public var ownership: Ownership
    /// The customer holding the claimant's ID (and the purchase, unless refused) afterwards, and its sightings. Renderings
    /// only ever widen them (`LEAST`/`GREATEST`), so a sighting written meanwhile is never undone.
    public var survivorID: String
    public var firstSeen: Date
    public var lastSeen: Date
    public var attemptID: String
    /// `refuse`: the purchase stays with its owner and nothing is written but the attempt.
    public var decision: RedemptionDecision
    /// Redeemed, but the subscription has lapsed (`RedemptionRules.isLapsed`).
    public var lapsed: Bool
    public var events: [Event]
    /// What the write rests on, for the one statement to re-check: the owner as read, the IDs of the customer a merge
    /// deletes as read (Core judged its anonymity from them), the app's live endpoints as read.
    public var ownerID: String
    public var sourceIDs: [String]
    public var endpointIDs: [String]

    /// Whether anything but the attempt is written.
    public var claims: Bool { decision != .refuse }

    /// Whether the claimant's customer holds the redeemed purchase and no other afterwards: this write creates it, and
    /// the only purchase moved to it is this one (a transfer, or a merge of an owner with no other purchase). Its
    /// answer is then known from the facts, with nothing read back.
    public func claimantHoldsOnlyThePurchase(ownerPurchaseCount: Int) -> Bool {
        guard createsClaimant, claims else { return false }
        switch ownership {
        case .transfer: return true
        case .merge(let source, _): return source == ownerID && ownerPurchaseCount == 1
        case .unchanged: return false
        }
    }

    /// Whether the purchase changes customer (and so is among the rows a merge or transfer moves).
    public var movesPurchase: Bool {
        switch ownership {
        case .transfer: true
        case .merge(let source, _): source == ownerID
        case .unchanged: false
        }
    }
}

/// Everything a redemption's effects are decided from, as the store read it.
public struct RedemptionClaimFacts: Equatable, Sendable {
    public var appID: String
    public var tokenHash: String
    public var claimant: AppUserID
    public var purchase: Purchase
    /// What `RedemptionRules.decide` judges; `claimantCustomerID` is a fresh ID when the claimant is new.
    public var rule: RedemptionFacts
    public var claimantIsNew: Bool
    public var ownerFirstSeen: Date
    public var ownerLastSeen: Date
    /// The claimant's sightings; ignored when new.
    public var claimantFirstSeen: Date
    public var claimantLastSeen: Date
    public var endpointIDs: [String]

    public init(
        appID: String, tokenHash: String, claimant: AppUserID, purchase: Purchase, rule: RedemptionFacts, claimantIsNew: Bool,
        ownerFirstSeen: Date, ownerLastSeen: Date, claimantFirstSeen: Date, claimantLastSeen: Date, endpointIDs: [String]
    ) {
        self.appID = appID
        self.tokenHash = tokenHash
        self.claimant = claimant
        self.purchase = purchase
        self.rule = rule
        self.claimantIsNew = claimantIsNew
        self.ownerFirstSeen = ownerFirstSeen
        self.ownerLastSeen = ownerLastSeen
        self.claimantFirstSeen = claimantFirstSeen
        self.claimantLastSeen = claimantLastSeen
        self.endpointIDs = endpointIDs
    }
}

extension RedemptionRules {
    /// The effects of `decision` (`decide(facts.rule)`, or a refusal the caller decided) on the facts read.
    public static func effects(_ facts: RedemptionClaimFacts, decision: RedemptionDecision, attemptID: String) -> RedemptionEffects {
        let now = facts.rule.now
        let ownerID = facts.rule.ownerCustomerID
        let claimantID = facts.rule.claimantCustomerID
        let (claimantFirst, claimantLast) = facts.claimantIsNew ? (now, now) : (facts.claimantFirstSeen, max(facts.claimantLastSeen, now))
        var effects = RedemptionEffects(
            appID: facts.appID, tokenHash: facts.tokenHash, claimant: facts.claimant, purchaseID: facts.purchase.id, at: now,
            claimantCustomer: facts.claimantIsNew ? .create(customerID: claimantID) : .existing(customerID: claimantID),
            ownership: .unchanged, survivorID: claimantID, firstSeen: claimantFirst, lastSeen: claimantLast, attemptID: attemptID,
            decision: decision, lapsed: false, events: [], ownerID: ownerID, sourceIDs: [], endpointIDs: facts.endpointIDs)
        switch decision {
        case .refuse:
            effects.survivorID = ownerID
            return effects
        case .alreadyYours:
            break
        case .transfer:
            effects.ownership = .transfer
        case .alias(let survivor):
            // The survivor keeps the earlier first and the later last sighting of the two.
            effects.firstSeen = min(claimantFirst, facts.ownerFirstSeen)
            effects.lastSeen = max(claimantLast, facts.ownerLastSeen)
            switch (survivor, facts.claimantIsNew) {
            case (.owner, true):
                effects.claimantCustomer = .joinOwner
                effects.survivorID = ownerID
            case (.owner, false):
                effects.ownership = .merge(source: claimantID, into: ownerID)
                effects.survivorID = ownerID
                effects.sourceIDs = facts.rule.claimantIDs
            case (.claimant, _):
                effects.ownership = .merge(source: ownerID, into: claimantID)
                effects.sourceIDs = facts.rule.ownerIDs
            }
        }
        var moved = facts.purchase
        moved.customerID = effects.survivorID
        effects.lapsed = isLapsed(moved, at: now)
        if !facts.endpointIDs.isEmpty {
            switch decision {
            case .transfer: effects.events = [.redemption, .transfer]
            case .alias: effects.events = [.redemption, .alias]
            case .alreadyYours, .refuse: effects.events = [.redemption]
            }
        }
        return effects
    }
}

extension SubscriberAttribute {
    /// A merge's attributes: each key's latest write wins; on a tie the surviving customer's (`target`) stays.
    public static func merged(_ source: [String: SubscriberAttribute], into target: [String: SubscriberAttribute]) -> [String: SubscriberAttribute] {
        target.merging(source) { kept, incoming in incoming.updatedAt > kept.updatedAt ? incoming : kept }
    }
}

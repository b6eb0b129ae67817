import Foundation

/// What deciding an offer claim needs, as the store read it (inside the transaction, or in one read on PostgreSQL).
public struct OfferClaimFacts: Sendable {
    public var found: FoundOfferCode
    /// The claimant's customer, nil when new; its aliases as events list them (read only when there are endpoints).
    public var claimant: Customer?
    public var claimantAttributes: [String: SubscriberAttribute]
    /// The claimant's purchases (on the web also the buyer's address's), and at least the products they are of.
    public var purchases: [Purchase]
    public var products: [String: Product]
    /// The claimant (or on the web the address) claimed this offer before.
    public var claimedBefore: Bool
    /// The app's live webhook endpoints, ordered by ID.
    public var endpointIDs: [String]
    /// The app's quarterly quota.
    public var quota: Int
    /// Used count per stripe of the quarter's quota and of a custom code's uses, as read; nil when not read (the
    /// sequential claim then tries each stripe in turn, waiting for a held one).
    public var quotaStripes: [Int: Int]?
    public var codeStripes: [Int: Int]?

    public init(
        found: FoundOfferCode, claimant: Customer?, claimantAttributes: [String: SubscriberAttribute] = [:], purchases: [Purchase],
        products: [String: Product], claimedBefore: Bool, endpointIDs: [String], quota: Int, quotaStripes: [Int: Int]? = nil,
        codeStripes: [Int: Int]? = nil
    ) {
        self.found = found
        self.claimant = claimant
        self.claimantAttributes = claimantAttributes
        self.purchases = purchases
        self.products = products
        self.claimedBefore = claimedBefore
        self.endpointIDs = endpointIDs
        self.quota = quota
        self.quotaStripes = quotaStripes
        self.codeStripes = codeStripes
    }
}

/// An offer claim decided from its facts.
public enum OfferClaimDecision: Equatable, Sendable {
    case refused(OfferRedemptionFailure)
    /// Granted as planned; the code's use and the quota's count are tried first on these stripes.
    case granted(OfferPlan, codeFirst: Int, quotaFirst: Int)
    /// The quarter's quota stripes were read but are not laid out: only the sequential path (which lays them out) decides.
    case undecided
}

extension OfferRules {
    /// Every refusal of a claim in the order the transactional path meets them (the code, the claimant's history, the
    /// code's uses, the quota), or the plan and the stripes to try first. With stripes read, a claim is refused when
    /// none has room (exact, by `StripedCount`'s budgets); without, `first` (random) is tried first.
    public static func decideClaim(
        _ facts: OfferClaimFacts, paid: Bool, channel: OfferRedemptionChannel, at now: Date, first: Int
    ) -> OfferClaimDecision {
        if let failure = refusal(facts.found, paid: paid, at: now) { return .refused(failure) }
        let plan: OfferPlan
        switch decide(
            offer: facts.found.offer, product: facts.found.product, claimedBefore: facts.claimedBefore, purchases: facts.purchases,
            products: facts.products, at: now, channel: channel)
        {
        case .failure(let failure): return .refused(failure)
        case .success(let value): plan = value
        }
        var codeFirst = 0
        if case .custom(let code) = facts.found.kind {
            codeFirst = first
            if let used = facts.codeStripes {
                guard let stripe = StripedCount.withRoom(limit: code.maxRedemptions, used: used, first: first) else { return .refused(.exhausted) }
                codeFirst = stripe
            }
        }
        var quotaFirst = first
        if let used = facts.quotaStripes {
            let order = StripedCount.tryOrder(limit: facts.quota, first: first)
            if let stripe = StripedCount.withRoom(limit: facts.quota, used: used, first: first) {
                quotaFirst = stripe
            } else if order.allSatisfy({ used[$0] != nil }) {
                return .refused(.quotaReached)
            } else {
                return .undecided
            }
        }
        return .granted(plan, codeFirst: codeFirst, quotaFirst: quotaFirst)
    }
}

/// Everything a granted offer claim writes, in order, decided once: the store renders it as sequential statements inside
/// its transaction (`SQLStore.applyOfferClaim`) and as one statement on PostgreSQL (`SQLStore.offerClaimStatement`).
public struct OfferClaimEffects: Equatable, Sendable {
    public enum Claimant: Equatable, Sendable {
        /// A new customer with the claimant's ID as its one alias.
        case create(id: String)
        /// The known customer, its `last_seen` moved on to the claim's time.
        case touch(id: String)

        public var id: String {
            switch self {
            case .create(let id), .touch(let id): id
            }
        }
    }

    public enum Claim: Equatable, Sendable {
        /// The one-time code (by its stored hash), marked used by the claimant while still unused.
        case oneTimeCode(hash: String)
        /// One more use of a custom code while it is active, on its stripes in `StripedCount.tryOrder` from `first`.
        case customCodeUse(codeID: String, limit: Int, first: Int)
    }

    /// One more on the quarter's quota, on its stripes in `StripedCount.tryOrder` from `first`.
    public struct QuotaCount: Equatable, Sendable {
        public var quarter: String
        public var limit: Int
        public var first: Int

        public init(quarter: String, limit: Int, first: Int) {
            self.quarter = quarter
            self.limit = limit
            self.first = first
        }
    }

    /// The one-per-customer (and on the web one-per-address) record of the claim.
    public struct Record: Equatable, Sendable {
        public var id: String
        public var offerID: String
        public var customerID: String
        public var appUserID: String
        public var codeType: String
        public var batchID: String?
        public var customCodeID: String?
        public var purchaseID: String
        public var channel: OfferRedemptionChannel
        public var email: String?
    }

    /// The offer-redemption webhook event, as the app's endpoints each receive it.
    public struct Event: Equatable, Sendable {
        public var id: String
        public var purchase: Purchase
        /// The claimant as events describe it (its IDs; sightings are in no event).
        public var customer: Customer
        public var attributes: [String: SubscriberAttribute]
        public var product: Product
        public var kind: OfferRedemptionKind
        public var codeType: String
        public var customCode: String?
    }

    public var appID: String
    public var appUserID: AppUserID
    public var now: Date
    public var claimant: Claimant
    /// What the claim does to the claimant's subscription (`OfferPlan.kind`).
    public var kind: OfferRedemptionKind
    public var purchase: Purchase
    public var checkoutReference: String?
    public var record: Record
    /// In order; none when the app has no live endpoint.
    public var events: [Event]
    /// The claim and the count, written last: their rows are the contended ones.
    public var claim: Claim
    public var quota: QuotaCount
    /// Preconditions the one statement re-checks: the live endpoints as read (the deliveries go to each).
    public var endpointIDs: [String]

    /// The effects of `plan` granted to `appUserID`: `purchase` is the row the grant makes, for the claimant's customer
    /// (the one read, or a new one with the purchase's customer ID).
    public init(
        appID: String, appUserID: AppUserID, channel: OfferRedemptionChannel, claimingAddress: String?, checkoutReference: String?,
        facts: OfferClaimFacts, plan: OfferPlan, purchase: Purchase, codeFirst: Int, quotaFirst: Int, recordID: String, eventID: String,
        now: Date
    ) {
        let found = facts.found
        let user = appUserID.rawValue
        self.appID = appID
        self.appUserID = appUserID
        self.now = now
        self.purchase = purchase
        kind = plan.kind
        self.checkoutReference = checkoutReference
        let customerID = purchase.customerID
        claimant = facts.claimant == nil ? .create(id: customerID) : .touch(id: customerID)
        var batchID: String?
        switch found.kind {
        case .oneTime(let hash, let batch, _):
            claim = .oneTimeCode(hash: hash)
            batchID = batch.id
        case .custom(let code):
            claim = .customCodeUse(codeID: code.id, limit: code.maxRedemptions, first: codeFirst)
        }
        quota = QuotaCount(quarter: OfferQuota.quarter(of: now), limit: facts.quota, first: quotaFirst)
        record = Record(
            id: recordID, offerID: found.offer.id, customerID: customerID, appUserID: user, codeType: found.codeType, batchID: batchID,
            customCodeID: found.customCodeID, purchaseID: purchase.id, channel: channel, email: claimingAddress)
        endpointIDs = facts.endpointIDs
        events = []
        if !facts.endpointIDs.isEmpty {
            let customer = Customer(
                id: customerID, appID: appID, originalAppUserID: facts.claimant?.originalAppUserID ?? user,
                aliases: facts.claimant?.aliases ?? [user], firstSeen: now, lastSeen: now)
            events.append(
                Event(
                    id: eventID, purchase: purchase, customer: customer, attributes: facts.claimantAttributes, product: found.product,
                    kind: plan.kind, codeType: found.codeType, customCode: found.customCode))
        }
    }
}

extension FoundOfferCode {
    public var customCodeID: String? { if case .custom(let code) = kind { code.id } else { nil } }
}

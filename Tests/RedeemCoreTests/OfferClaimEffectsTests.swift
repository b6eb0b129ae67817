import Foundation
import RedeemCore
import Testing

/// An offer claim decided from its facts (`OfferRules.decideClaim`) and the writes it makes (`OfferClaimEffects`), the
/// one value both of the store's paths apply.
@Suite struct OfferClaimEffectsTests {
    static let now = OfferRulesTests.now
    static let offer = OfferRulesTests.offer(eligibility: [.new])
    static let batch = OfferCodeBatch(id: "batch_1", appID: "a", offerID: "o", count: 10, expiresAt: now.addingTimeInterval(86_400), createdAt: now)
    static let oneTime = FoundOfferCode(kind: .oneTime(hash: "h1", batch: batch, used: false), offer: offer, product: OfferRulesTests.monthly)

    static func custom(cap: Int, used: Int = 0) -> FoundOfferCode {
        let code = CustomOfferCode(
            id: "occ_1", appID: "a", offerID: "o", code: "SPRING", maxRedemptions: cap, redemptionCount: used, expiresAt: nil, createdAt: now)
        return FoundOfferCode(kind: .custom(code), offer: offer, product: OfferRulesTests.monthly)
    }

    static func facts(
        _ found: FoundOfferCode = oneTime, claimant: Customer? = nil, purchases: [Purchase] = [], claimedBefore: Bool = false,
        endpoints: [String] = [], quota: Int = 32, quotaStripes: [Int: Int]? = nil, codeStripes: [Int: Int]? = nil
    ) -> OfferClaimFacts {
        OfferClaimFacts(
            found: found, claimant: claimant, purchases: purchases, products: ["monthly": OfferRulesTests.monthly], claimedBefore: claimedBefore,
            endpointIDs: endpoints, quota: quota, quotaStripes: quotaStripes, codeStripes: codeStripes)
    }

    static func stripes(_ used: Int, count: Int = StripedCount.stripes) -> [Int: Int] {
        Dictionary(uniqueKeysWithValues: (0..<count).map { ($0, used) })
    }

    static func decide(_ facts: OfferClaimFacts, paid: Bool = false, first: Int = 3) -> OfferClaimDecision {
        OfferRules.decideClaim(facts, paid: paid, channel: .sdk, at: now, first: first)
    }

    @Test func refusalsComeInTheTransactionalPathsOrder() {
        let subscriber = OfferRulesTests.purchase("monthly", expires: Self.now.addingTimeInterval(86_400))
        // The code before the claimant, the claimant before the stripes, the code's uses before the quota.
        #expect(Self.decide(Self.facts(Self.custom(cap: 2, used: 2), purchases: [subscriber])) == .refused(.exhausted))
        #expect(Self.decide(Self.facts(purchases: [subscriber], quotaStripes: Self.stripes(2))) == .refused(.notEligible))
        #expect(Self.decide(Self.facts(claimedBefore: true, quotaStripes: Self.stripes(2))) == .refused(.alreadyRedeemed))
        #expect(Self.decide(Self.facts(Self.custom(cap: 2), quotaStripes: Self.stripes(2), codeStripes: [0: 1, 1: 1])) == .refused(.exhausted))
        #expect(Self.decide(Self.facts(quotaStripes: Self.stripes(2))) == .refused(.quotaReached))
        #expect(Self.decide(Self.facts(quota: 0, quotaStripes: [:])) == .refused(.quotaReached))
        let paid = FoundOfferCode(
            kind: Self.oneTime.kind, offer: OfferRulesTests.offer(mode: .payUpFront, price: Price(amountMicros: 990_000, currency: "USD")),
            product: OfferRulesTests.monthly)
        #expect(Self.decide(Self.facts(paid)) == .refused(.paymentRequired))
        guard case .granted = Self.decide(Self.facts(paid), paid: true) else {
            Issue.record("a paid offer with its payment is granted")
            return
        }
    }

    @Test func stripesReadWithRoomAreTriedFirstAndUnreadOnesFromTheRandomFirst() {
        // Quota 32: two per stripe. Stripes 3 and 4 full, so the count starts on 5; the code's stripe 3 has room.
        var quota = Self.stripes(0)
        (quota[3], quota[4]) = (2, 2)
        guard
            case .granted(let plan, let codeFirst, let quotaFirst) = Self.decide(
                Self.facts(Self.custom(cap: 16), quotaStripes: quota, codeStripes: Self.stripes(0)))
        else {
            Issue.record("granted")
            return
        }
        #expect(plan.kind == .initialBuy && codeFirst == 3 && quotaFirst == 5)
        #expect(Self.decide(Self.facts()) == .granted(plan, codeFirst: 0, quotaFirst: 3))
        // Stripes read but not laid out (the quarter's first claim): only the sequential path, which lays them out, decides.
        #expect(Self.decide(Self.facts(quotaStripes: [:])) == .undecided)
    }

    static func purchase(customerID: String) -> Purchase {
        var purchase = OfferRulesTests.purchase("monthly", expires: Self.now.addingTimeInterval(86_400 * 7))
        purchase.customerID = customerID
        purchase.offer = PurchaseOffer(Self.offer)
        return purchase
    }

    static func effects(
        _ facts: OfferClaimFacts, customerID: String, channel: OfferRedemptionChannel = .sdk, address: String? = nil
    )
        -> OfferClaimEffects
    {
        guard case .granted(let plan, let codeFirst, let quotaFirst) = Self.decide(facts, first: 7) else { fatalError("refused") }
        return OfferClaimEffects(
            appID: "a", appUserID: try! AppUserID(validating: "erin"), channel: channel, claimingAddress: address, checkoutReference: nil,
            facts: facts, plan: plan, purchase: Self.purchase(customerID: customerID), codeFirst: codeFirst, quotaFirst: quotaFirst,
            recordID: "ored_1", eventID: "evt_1", now: Self.now)
    }

    @Test func aNewClaimantIsCreatedAndTheEventNamesItAlone() {
        let effects = Self.effects(Self.facts(endpoints: ["whe_a", "whe_b"]), customerID: "cus_new")
        #expect(effects.claimant == .create(id: "cus_new"))
        #expect(effects.claim == .oneTimeCode(hash: "h1"))
        #expect(effects.quota == .init(quarter: OfferQuota.quarter(of: Self.now), limit: 32, first: 7))
        #expect(effects.record.customerID == "cus_new" && effects.record.batchID == "batch_1" && effects.record.customCodeID == nil)
        #expect(effects.record.codeType == "one_time" && effects.record.purchaseID == effects.purchase.id && effects.record.email == nil)
        #expect(effects.endpointIDs == ["whe_a", "whe_b"])
        #expect(effects.events.map(\.customer.aliases) == [["erin"]])
        #expect(effects.events.map(\.customer.originalAppUserID) == ["erin"] && effects.events.map(\.kind) == [.initialBuy])
    }

    @Test func aKnownClaimantIsTouchedAndTheEventCarriesItsAliasesAndAttributes() {
        let known = Customer(
            id: "cus_erin", appID: "a", originalAppUserID: "erin-first", aliases: ["erin-first", "erin"], firstSeen: Self.now,
            lastSeen: Self.now)
        var facts = Self.facts(Self.custom(cap: 16), claimant: known, endpoints: ["whe_a"])
        facts.claimantAttributes = ["$displayName": SubscriberAttribute(value: "Erin", updatedAt: Self.now)]
        let effects = Self.effects(facts, customerID: "cus_erin", channel: .web, address: "erin@example.com")
        #expect(effects.claimant == .touch(id: "cus_erin"))
        #expect(effects.claim == .customCodeUse(codeID: "occ_1", limit: 16, first: 7))
        #expect(effects.record.customCodeID == "occ_1" && effects.record.codeType == "custom" && effects.record.batchID == nil)
        #expect(effects.record.channel == .web && effects.record.email == "erin@example.com")
        #expect(effects.events.first?.customer.originalAppUserID == "erin-first")
        #expect(effects.events.first?.customer.aliases == ["erin-first", "erin"])
        #expect(effects.events.first?.attributes["$displayName"]?.value == "Erin")
        #expect(effects.events.first?.customCode == "SPRING")
    }

    @Test func withoutLiveEndpointsThereIsNoEvent() {
        #expect(Self.effects(Self.facts(), customerID: "cus_new").events.isEmpty)
    }
}

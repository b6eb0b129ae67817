import Foundation
import RedeemCore
import Testing

@Suite struct RedemptionRulesTests {
    let anon = AppUserID.anonymous().rawValue
    let anon2 = AppUserID.anonymous().rawValue

    static let now = Date(timeIntervalSince1970: 1_800_000_000)

    /// `subscribed`: the owner holds a subscription running a day past now, or one that ended a day ago.
    func facts(owner: [String], claimant: [String], _ behavior: RestoreBehavior, subscribed: Bool? = nil) -> RedemptionFacts {
        RedemptionFacts(
            ownerCustomerID: "cus_owner", ownerIDs: owner, claimantCustomerID: "cus_claimant", claimantIDs: claimant,
            behavior: behavior,
            ownerPurchases: subscribed.map { [AccessFacts(expiresDate: Self.now.addingTimeInterval($0 ? 86_400 : -86_400))] }, now: Self.now)
    }

    /// The owner's subscription state is judged by `AccessFacts`: a grace period counts, a refund or a lifetime purchase
    /// does not make a subscription active.
    @Test func theOwnersSubscriptionIsJudgedFromItsFacts() {
        let day: TimeInterval = 86_400
        func decide(_ purchases: [AccessFacts]) -> RedemptionDecision {
            var facts = facts(owner: ["bob"], claimant: ["alice"], .transferIfNoActiveSubscription)
            facts.ownerPurchases = purchases
            return RedemptionRules.decide(facts)
        }
        let lapsed = Self.now.addingTimeInterval(-day)
        #expect(decide([AccessFacts(expiresDate: lapsed, gracePeriodExpiresDate: Self.now.addingTimeInterval(day))]) == .refuse)
        #expect(decide([AccessFacts(expiresDate: lapsed, gracePeriodExpiresDate: Self.now)]) == .transfer, "grace ends now: over")
        #expect(decide([AccessFacts(expiresDate: Self.now.addingTimeInterval(day), refundedAt: lapsed)]) == .transfer)
        #expect(decide([AccessFacts(expiresDate: nil)]) == .transfer, "a lifetime purchase is not a subscription")
        #expect(decide([]) == .transfer)
    }

    @Test func aCustomerIsAnonymousOnlyWhileEveryIDIs() {
        #expect(RedemptionRules.isAnonymous(ids: [anon]))
        #expect(RedemptionRules.isAnonymous(ids: [anon, anon2]))
        #expect(!RedemptionRules.isAnonymous(ids: [anon, "alice"]))
        #expect(!RedemptionRules.isAnonymous(ids: ["alice"]))
    }

    @Test(arguments: RestoreBehavior.allCases)
    func anonymousOnEitherSideAliases(_ behavior: RestoreBehavior) {
        for active in [true, false] {
            // An identified side survives; between two anonymous sides the owner's customer (the buyer's) does.
            #expect(RedemptionRules.decide(facts(owner: ["alice"], claimant: [anon], behavior, subscribed: active)) == .alias(survivor: .owner))
            #expect(RedemptionRules.decide(facts(owner: [anon], claimant: ["alice"], behavior, subscribed: active)) == .alias(survivor: .claimant))
            #expect(RedemptionRules.decide(facts(owner: [anon], claimant: [anon2], behavior, subscribed: active)) == .alias(survivor: .owner))
        }
    }

    @Test func anAnonymousIDAliasedToAnIdentifiedOneIsIdentified() {
        let decision = RedemptionRules.decide(facts(owner: ["bob"], claimant: [anon, "carol"], .keepWithOriginal))
        #expect(decision == .refuse)
    }

    @Test func identifiedCustomersFollowTheRestoreBehaviour() {
        #expect(RedemptionRules.decide(facts(owner: ["bob"], claimant: ["alice"], .transfer)) == .transfer)
        #expect(RedemptionRules.decide(facts(owner: ["bob"], claimant: ["alice"], .transferIfNoActiveSubscription, subscribed: false)) == .transfer)
        #expect(RedemptionRules.decide(facts(owner: ["bob"], claimant: ["alice"], .transferIfNoActiveSubscription, subscribed: true)) == .refuse)
        #expect(RedemptionRules.decide(facts(owner: ["bob"], claimant: ["alice"], .keepWithOriginal)) == .refuse)
    }

    @Test func theOwnersSubscriptionIsReadOnlyWhenItDecides() {
        #expect(RedemptionRules.needsOwnerSubscriptionState(facts(owner: ["bob"], claimant: ["alice"], .transferIfNoActiveSubscription)))
        #expect(!RedemptionRules.needsOwnerSubscriptionState(facts(owner: ["bob"], claimant: ["alice"], .transfer)))
        #expect(!RedemptionRules.needsOwnerSubscriptionState(facts(owner: [anon], claimant: ["alice"], .transferIfNoActiveSubscription)))
        var same = facts(owner: ["bob"], claimant: ["bob"], .transferIfNoActiveSubscription)
        same.claimantCustomerID = same.ownerCustomerID
        #expect(!RedemptionRules.needsOwnerSubscriptionState(same))
        #expect(RedemptionRules.decide(same) == .alreadyYours)
        #expect(RedemptionRules.decide(same).association == nil)
    }

    @Test func aConsumedLinkRedeemsAgainOnlyForWhoeverConsumedIt() {
        let alice = try! AppUserID(validating: "alice")
        #expect(RedemptionRules.consumedLinkRedeemsAgain(consumedBy: "alice", claimant: alice, claimantCustomerID: nil, ownerCustomerID: "c1"))
        // aliased since: same customer as the owner now
        #expect(RedemptionRules.consumedLinkRedeemsAgain(consumedBy: "bob", claimant: alice, claimantCustomerID: "c1", ownerCustomerID: "c1"))
        #expect(!RedemptionRules.consumedLinkRedeemsAgain(consumedBy: "bob", claimant: alice, claimantCustomerID: "c2", ownerCustomerID: "c1"))
        #expect(!RedemptionRules.consumedLinkRedeemsAgain(consumedBy: "bob", claimant: alice, claimantCustomerID: nil, ownerCustomerID: "c1"))
    }

    @Test func onlyASubscriptionThatRanOutIsLapsed() {
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        var purchase = Purchase(
            id: "p", appID: "a", customerID: "c", productID: "m", store: .external, isSandbox: false, purchaseDate: now.addingTimeInterval(-100),
            originalPurchaseDate: now.addingTimeInterval(-100), expiresDate: now.addingTimeInterval(-1), storeTransactionID: "t", price: nil,
            email: nil, createdAt: now)
        #expect(RedemptionRules.isLapsed(purchase, at: now))
        purchase.expiresDate = now.addingTimeInterval(60)
        #expect(!RedemptionRules.isLapsed(purchase, at: now))
        purchase.expiresDate = nil
        #expect(!RedemptionRules.isLapsed(purchase, at: now))
    }
}

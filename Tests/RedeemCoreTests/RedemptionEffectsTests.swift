import Foundation
import RedeemCore
import Testing

/// `RedemptionRules.effects`: what each decision writes (claimant, ownership, survivor and its sightings, events).
@Suite struct RedemptionEffectsTests {
    static let now = Date(timeIntervalSince1970: 1_800_000_000)
    let anon = AppUserID.anonymous()
    let carol = try! AppUserID(validating: "carol")

    func effects(
        owner: [String], claimant: AppUserID, claimantIDs: [String]? = nil, known: Bool, endpoints: [String] = ["whe_1"],
        behavior: RestoreBehavior = .transfer, expires: Date? = nil
    ) -> RedemptionEffects {
        let purchase = Purchase(
            id: "pur", appID: "app", customerID: "cus_owner", productID: "p", store: .stripe, isSandbox: false, purchaseDate: Self.now,
            originalPurchaseDate: Self.now, expiresDate: expires, storeTransactionID: "t", price: nil, email: nil, refundedAt: nil,
            createdAt: Self.now)
        let rule = RedemptionFacts(
            ownerCustomerID: "cus_owner", ownerIDs: owner, claimantCustomerID: "cus_claimant", claimantIDs: claimantIDs ?? [claimant.rawValue],
            behavior: behavior, now: Self.now)
        let facts = RedemptionClaimFacts(
            appID: "app", tokenHash: "h", claimant: claimant, purchase: purchase, rule: rule, claimantIsNew: !known,
            ownerFirstSeen: Self.now - 500, ownerLastSeen: Self.now - 100, claimantFirstSeen: Self.now - 900, claimantLastSeen: Self.now - 50,
            endpointIDs: endpoints)
        return RedemptionRules.effects(facts, decision: RedemptionRules.decide(rule), attemptID: "att")
    }

    @Test func anAnonymousPurchaseMergesIntoAnIdentifiedClaimant() {
        let new = effects(owner: [anon.rawValue], claimant: carol, known: false)
        #expect(new.claimantCustomer == .create(customerID: "cus_claimant"))
        #expect(new.ownership == .merge(source: "cus_owner", into: "cus_claimant"))
        #expect(new.survivorID == "cus_claimant" && new.sourceIDs == [anon.rawValue] && new.movesPurchase)
        // The earlier first sighting (the owner's) and now.
        #expect(new.firstSeen == Self.now - 500 && new.lastSeen == Self.now)
        #expect(new.events == [.redemption, .alias])
        let known = effects(owner: [anon.rawValue], claimant: carol, known: true)
        #expect(known.claimantCustomer == .existing(customerID: "cus_claimant") && known.firstSeen == Self.now - 900)
    }

    @Test func anAnonymousClaimantJoinsOrMergesIntoTheOwner() {
        let new = effects(owner: [anon.rawValue], claimant: .anonymous(), known: false)
        #expect(new.claimantCustomer == .joinOwner && new.ownership == .unchanged && new.survivorID == "cus_owner" && !new.movesPurchase)
        let known = effects(owner: ["bob"], claimant: anon, known: true)
        #expect(known.ownership == .merge(source: "cus_claimant", into: "cus_owner") && known.sourceIDs == [anon.rawValue])
        #expect(known.survivorID == "cus_owner" && known.firstSeen == Self.now - 900 && known.lastSeen == Self.now)
        // An anonymous ID whose customer signed in is identified: the restore behaviour decides.
        let signedIn = effects(owner: ["bob"], claimant: anon, claimantIDs: [anon.rawValue, "al"], known: true)
        #expect(signedIn.ownership == .transfer && signedIn.events == [.redemption, .transfer])
    }

    @Test func aTransferARefusalAndNoEndpoints() {
        let transfer = effects(owner: ["bob"], claimant: carol, known: true, endpoints: [])
        #expect(transfer.ownership == .transfer && transfer.survivorID == "cus_claimant" && transfer.events.isEmpty)
        #expect(transfer.firstSeen == Self.now - 900 && transfer.lastSeen == Self.now && transfer.claims)
        let refused = effects(owner: ["bob"], claimant: carol, known: true, behavior: .keepWithOriginal)
        #expect(!refused.claims && refused.events.isEmpty && refused.ownership == .unchanged)
        let lapsed = effects(owner: ["bob"], claimant: carol, known: false, expires: Self.now - 1)
        #expect(lapsed.lapsed && lapsed.claims)
    }

    @Test func aNewClaimantHoldsOnlyThePurchaseWhenNothingElseMovesToIt() {
        // Transferred to a new claimant: its only purchase, whatever else the owner has.
        #expect(effects(owner: ["bob"], claimant: carol, known: false).claimantHoldsOnlyThePurchase(ownerPurchaseCount: 3))
        // Merged into a new claimant: the owner's purchases all move, so only when the owner had this one alone.
        let merged = effects(owner: [anon.rawValue], claimant: carol, known: false)
        #expect(merged.claimantHoldsOnlyThePurchase(ownerPurchaseCount: 1))
        #expect(!merged.claimantHoldsOnlyThePurchase(ownerPurchaseCount: 2))
        // A claimant that existed, one that joins the owner, and a refusal: read back.
        #expect(!effects(owner: ["bob"], claimant: carol, known: true).claimantHoldsOnlyThePurchase(ownerPurchaseCount: 1))
        #expect(!effects(owner: [anon.rawValue], claimant: .anonymous(), known: false).claimantHoldsOnlyThePurchase(ownerPurchaseCount: 1))
        #expect(
            !effects(owner: ["bob"], claimant: carol, known: false, behavior: .keepWithOriginal).claimantHoldsOnlyThePurchase(ownerPurchaseCount: 1))
    }

    @Test func mergedAttributesKeepEachKeysLatestWrite() {
        let old = Date(timeIntervalSince1970: 1)
        let new = Date(timeIntervalSince1970: 2)
        let merged = SubscriberAttribute.merged(
            ["$email": .init(value: "web", updatedAt: new), "$name": .init(value: "w", updatedAt: old)],
            into: ["$email": .init(value: "app", updatedAt: old), "$name": .init(value: "a", updatedAt: old), "k": .init(value: "v", updatedAt: old)])
        #expect(merged.mapValues(\.value) == ["$email": "web", "$name": "a", "k": "v"])
    }
}

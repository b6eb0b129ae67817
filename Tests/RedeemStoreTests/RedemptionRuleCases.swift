import Foundation
import RedeemCore
import RedeemStore
import Testing

/// The store redeems as `RedemptionRules.decide` says, for every kind of owner and claimant, restore behaviour and
/// owner subscription state: a rule changed in one place and not the other fails here.
enum RedemptionRuleCases {
    /// Who holds an ID: an anonymous one, an identified one, or an anonymous one since aliased to an identified one.
    enum Kind: CaseIterable { case anonymous, identified, identifiedSince }

    /// Makes the customer for `kind`; returns the ID it acts with and all of its IDs.
    static func person(_ store: SQLStore, appID: String, kind: Kind, name: String) async throws -> (AppUserID, [String]) {
        switch kind {
        case .anonymous:
            let id = AppUserID.anonymous()
            _ = try await store.customer(appID: appID, appUserID: id, now: Fixture.now)
            return (id, [id.rawValue])
        case .identified:
            let id = Fixture.user(name)
            _ = try await store.customer(appID: appID, appUserID: id, now: Fixture.now)
            return (id, [id.rawValue])
        case .identifiedSince:
            let id = AppUserID.anonymous()
            _ = try await store.customer(appID: appID, appUserID: id, now: Fixture.now)
            _ = try await store.alias(appID: appID, id, into: Fixture.user(name), now: Fixture.now)
            return (id, [id.rawValue, name])
        }
    }

    static let all: [StoreCase] = [
        StoreCase("every redemption decision is the Core rule's") { store in
            let app = try await Fixture.app(store)
            try await Fixture.catalog(store, appID: app.id)
            var n = 0
            for ownerKind in Kind.allCases {
                for claimantKind in Kind.allCases {
                    for behavior in RestoreBehavior.allCases {
                        for ownerSubscribed in [false, true] {
                            n += 1
                            let (owner, ownerIDs) = try await person(store, appID: app.id, kind: ownerKind, name: "owner\(n)")
                            let (claimant, claimantIDs) = try await person(store, appID: app.id, kind: claimantKind, name: "claimant\(n)")
                            if ownerSubscribed {
                                _ = try await store.grant(
                                    PurchaseGrant(appID: app.id, appUserID: owner, productID: "monthly", purchaseDate: Fixture.now),
                                    idempotency: nil, now: Fixture.now)
                            }
                            let (purchase, hash) = try await RedemptionCases.purchaseWithToken(
                                store, appID: app.id, buyer: owner, product: "lifetime")
                            let claimantCustomer = try #require(try await store.findCustomer(appID: app.id, appUserID: claimant))
                            var facts = RedemptionFacts(
                                ownerCustomerID: purchase.customerID, ownerIDs: ownerIDs, claimantCustomerID: claimantCustomer.id,
                                claimantIDs: claimantIDs, behavior: behavior)
                            if RedemptionRules.needsOwnerSubscriptionState(facts) { facts.ownerHasActiveSubscription = ownerSubscribed }
                            let decision = RedemptionRules.decide(facts)
                            let outcome = try await store.redeem(
                                appID: app.id, tokenHash: hash, claimant: claimant, behavior: behavior, now: Fixture.now)
                            let label = "owner \(ownerKind), claimant \(claimantKind), \(behavior), subscribed \(ownerSubscribed)"
                            let holder = try await RedemptionCases.owner(store, app.id, purchase)
                            switch decision {
                            case .refuse:
                                #expect(outcome == .belongsToOtherUser, "\(label)")
                                #expect(holder == purchase.customerID, "\(label)")
                            case .transfer:
                                #expect(
                                    outcome == .redeemed(try await store.purchase(appID: app.id, id: purchase.id), association: .transfer), "\(label)"
                                )
                                #expect(holder == claimantCustomer.id, "\(label)")
                            case .alias(let survivor):
                                guard case .redeemed(_, .alias) = outcome else {
                                    Issue.record("\(label): got \(outcome)")
                                    continue
                                }
                                #expect(holder == (survivor == .owner ? purchase.customerID : claimantCustomer.id), "\(label)")
                                // One customer now answers to every ID of both sides.
                                let merged = try #require(try await store.findCustomer(appID: app.id, appUserID: claimant))
                                #expect(Set(merged.aliases) == Set(ownerIDs + claimantIDs), "\(label)")
                            case .alreadyYours:
                                Issue.record("\(label): two customers cannot already be one")
                            }
                        }
                    }
                }
            }
        }
    ]
}

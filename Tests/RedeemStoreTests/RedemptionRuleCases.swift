import Foundation
import RedeemCore
import RedeemStore
import Testing

/// The store redeems as `RedemptionRules.decide` says, for every kind of owner and claimant, restore behaviour and
/// owner subscription standing (real purchases: active, in its grace period, lapsed, refunded): a rule changed in one
/// place and not the other fails here.
enum RedemptionRuleCases {
    /// What the owner holds besides the purchase being redeemed.
    enum Standing: CaseIterable { case nothing, active, inGrace, lapsed, refunded }

    /// Records a monthly subscription for `owner` in `standing`.
    static func subscribe(_ store: SQLStore, appID: String, _ owner: AppUserID, _ standing: Standing) async throws {
        let day: TimeInterval = 86_400
        let ends: Date
        switch standing {
        case .nothing: return
        case .active, .refunded: ends = Fixture.now.addingTimeInterval(day)
        case .inGrace, .lapsed: ends = Fixture.now.addingTimeInterval(-day)
        }
        let grant = PurchaseGrant(
            appID: appID, appUserID: owner, productID: "monthly", purchaseDate: Fixture.now.addingTimeInterval(-30 * day), expiresDate: ends)
        let purchase = try await store.grant(grant, idempotency: nil, now: Fixture.now).purchase
        let change: SQL? =
            switch standing {
            case .inGrace:
                "UPDATE purchases SET grace_period_expires_date = \(Fixture.now.addingTimeInterval(day)), billing_issues_detected_at = \(ends) WHERE id = \(purchase.id)"
            case .refunded: "UPDATE purchases SET refunded_at = \(Fixture.now.addingTimeInterval(-day)) WHERE id = \(purchase.id)"
            default: nil
            }
        if let change { try await store.database.transaction { try await $0.query(change) } }
    }

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
                        for standing in Standing.allCases {
                            n += 1
                            let (owner, ownerIDs) = try await person(store, appID: app.id, kind: ownerKind, name: "owner\(n)")
                            let (claimant, claimantIDs) = try await person(store, appID: app.id, kind: claimantKind, name: "claimant\(n)")
                            try await subscribe(store, appID: app.id, owner, standing)
                            let (purchase, hash) = try await RedemptionCases.purchaseWithToken(
                                store, appID: app.id, buyer: owner, product: "lifetime")
                            let claimantCustomer = try #require(try await store.findCustomer(appID: app.id, appUserID: claimant))
                            var facts = RedemptionFacts(
                                ownerCustomerID: purchase.customerID, ownerIDs: ownerIDs, claimantCustomerID: claimantCustomer.id,
                                claimantIDs: claimantIDs, behavior: behavior, now: Fixture.now)
                            if RedemptionRules.needsOwnerSubscriptionState(facts) {
                                facts.ownerPurchases = try await store.purchases(customerID: purchase.customerID).map(\.access)
                            }
                            let decision = RedemptionRules.decide(facts)
                            if ownerKind != .anonymous, claimantKind != .anonymous, behavior == .transferIfNoActiveSubscription {
                                // Stated outright too: a subscription in its grace period is active.
                                #expect((decision == .refuse) == [.active, .inGrace].contains(standing), "\(standing)")
                            }
                            let outcome = try await store.redeem(
                                appID: app.id, tokenHash: hash, claimant: claimant, behavior: behavior, now: Fixture.now)
                            let label = "owner \(ownerKind), claimant \(claimantKind), \(behavior), owner holds \(standing)"
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

import Foundation
import RedeemCore
import RedeemStore
import Testing

/// A subscription in its billing grace period is active for every rule, as the store reads it on each engine (the
/// redemption's transactional path, and on PostgreSQL its one-statement path): the restore rule keeps the owner's
/// purchase, checkout will not sell it again, an "expired subscribers" offer is refused, support can cancel it and the
/// portal still gives links. A lapsed one is none of these.
enum GracePeriodCases {
    static let day: TimeInterval = 86_400

    /// A customer `name` holding a monthly subscription `standing`; returns its ID and the subscription as stored.
    static func holder(
        _ store: SQLStore, appID: String, _ name: String, _ standing: RedemptionRuleCases.Standing
    ) async throws
        -> (AppUserID, Purchase)
    {
        let user = Fixture.user(name)
        try await RedemptionRuleCases.subscribe(store, appID: appID, user, standing)
        let customer = try #require(try await store.findCustomer(appID: appID, appUserID: user))
        let subscription = try #require(try await store.purchases(customerID: customer.id).first { $0.productID == "monthly" })
        return (user, subscription)
    }

    static let all: [StoreCase] = [
        StoreCase("a subscription in its grace period is active for redemption, checkout, offers, support and the portal") { store in
            var app = try await Fixture.app(store)
            try await Fixture.catalog(store, appID: app.id)
            app.restoreBehavior = .transferIfNoActiveSubscription
            try await store.updateApp(app)
            let offer = try await OfferCases.makeOffer(store, appID: app.id, eligibility: .expired)
            for (n, standing) in [RedemptionRuleCases.Standing.inGrace, .lapsed].enumerated() {
                let active = standing == .inGrace
                let (owner, subscription) = try await holder(store, appID: app.id, "owner\(n)", standing)
                #expect(subscription.gracePeriodExpiresDate != nil || !active, "read back with its grace period")

                // Redemption: the owner's lifetime purchase stays with an owner whose subscription is active.
                let (lifetime, hash) = try await RedemptionCases.purchaseWithToken(store, appID: app.id, buyer: owner, product: "lifetime")
                let claimant = Fixture.user("claimant\(n)")
                _ = try await store.customer(appID: app.id, appUserID: claimant, now: Fixture.now)
                let described = try await store.redeemDescribed(appID: app.id, tokenHash: hash, claimant: claimant, now: Fixture.now)
                if active {
                    #expect(described.outcome == .belongsToOtherUser, "\(standing)")
                    #expect(try await RedemptionCases.owner(store, app.id, lifetime) == lifetime.customerID)
                } else {
                    guard case .redeemed(_, .transfer) = described.outcome else {
                        Issue.record("\(standing): \(described.outcome)")
                        continue
                    }
                }

                // Checkout: an identified buyer holding it is not sold it again.
                let monthly = try await store.product(appID: app.id, id: "monthly")
                let owned = try await store.purchases(customerID: subscription.customerID)
                #expect(CheckoutRules.alreadyOwns(buyer: owner, product: monthly, purchases: owned, at: Fixture.now) == active, "\(standing)")

                // Offers: an offer for lapsed subscribers is not theirs while it is active.
                let code = "GRACE\(n)CODE"
                _ = try await OfferCases.makeCustom(store, offer, code: code, cap: 10)
                let redeemed = try await OfferCases.redeem(store, app.id, code, by: "owner\(n)")
                #expect(OfferCases.failure(redeemed) == (active ? .notEligible : nil), "\(standing)")

                // Support and the portal read the stored subscription as live.
                let stored = try await store.purchase(appID: app.id, id: subscription.id)
                let ended = SupportRules.Refusal("This subscription has already ended.")
                if case .failure(let refusal) = SupportRules.cancelAtPeriodEnd(stored, now: Fixture.now) {
                    #expect((refusal == ended) == !active, "\(standing): \(refusal.reason)")
                } else {
                    #expect(active, "\(standing)")
                }
                #expect(PortalRules.actions(stored, linksAllowed: true, now: Fixture.now).newLink == active, "\(standing)")
            }
        }
    ]
}

import Foundation
import RedeemBenchSupport
import RedeemCore
import Testing

@testable import RedeemStore

/// The redeem route's one-transaction path, and the benchmark's bulk seeding.
enum DescribedRedemptionCases {
    static let all: [StoreCase] = [
        StoreCase("a described redemption answers with the CustomerInfo and product it committed") { store in
            let app = try await Fixture.app(store)  // restore behaviour: transfer
            try await Fixture.catalog(store, appID: app.id)
            let (purchase, hash) = try await RedemptionCases.purchaseWithToken(
                store, appID: app.id, buyer: Fixture.user("buyer"), product: "lifetime")
            let described = try await store.redeemDescribed(appID: app.id, tokenHash: hash, claimant: Fixture.user("carol"), now: Fixture.now)
            guard case .redeemed(let redeemed, .transfer) = described.outcome else {
                Issue.record("got \(described.outcome)")
                return
            }
            #expect(redeemed.id == purchase.id)
            #expect(described.product?.entitlements == ["extra", "pro"])
            let info = try #require(described.customerInfo)
            #expect(info.subscriber.originalAppUserID == "carol")
            #expect(Set(info.subscriber.entitlements.keys) == ["extra", "pro"])
            let fresh = try await store.customerInfo(appID: app.id, appUserID: Fixture.user("carol"), now: Fixture.now)
            let encoder = JSONEncoder()
            encoder.outputFormatting = .sortedKeys
            #expect(try encoder.encode(info.subscriber) == encoder.encode(fresh.subscriber))
            // Presented again by the same user: success again, nothing new to associate.
            let again = try await store.redeemDescribed(appID: app.id, tokenHash: hash, claimant: Fixture.user("carol"), now: Fixture.now)
            #expect(again.outcome == .redeemed(try await store.purchase(appID: app.id, id: purchase.id), association: nil))
            #expect(again.customerInfo?.subscriber.originalAppUserID == "carol")
            #expect(
                try await store.redeemDescribed(appID: app.id, tokenHash: hash, claimant: Fixture.user("dave"), now: Fixture.now).outcome
                    == .belongsToOtherUser)
            // One attempt each (same timestamp: compared as a multiset).
            #expect(
                try await store.redemptionAttempts(appID: app.id, purchaseID: purchase.id).map(\.outcome).sorted()
                    == ["belongs_to_other_user", "redeemed", "redeemed"])
        },
        StoreCase("a new claimant's answer, built from the facts or read back, is what a fresh read says") { store in
            let app = try await Fixture.app(store)
            try await Fixture.catalog(store, appID: app.id)
            let encoder = JSONEncoder()
            encoder.outputFormatting = .sortedKeys
            // An anonymous buyer with one purchase (its answer comes from the facts), then one with two (read back).
            for (claimant, products) in [("carol", ["lifetime"]), ("dave", ["lifetime", "monthly"])] {
                let buyer = AppUserID.anonymous()
                var hash = ""
                for product in products {
                    (_, hash) = try await RedemptionCases.purchaseWithToken(store, appID: app.id, buyer: buyer, product: product)
                }
                // The transactional path on both engines (PostgreSQL's redeem route takes its one statement first).
                let described = try await store.transactionalRedemption(
                    appID: app.id, tokenHash: hash, claimant: Fixture.user(claimant), behavior: nil, now: Fixture.now, describe: true)
                guard case .redeemed(_, .alias) = described.outcome else {
                    Issue.record("got \(described.outcome)")
                    continue
                }
                let info = try #require(described.customerInfo)
                let fresh = try await store.customerInfo(appID: app.id, appUserID: Fixture.user(claimant), now: Fixture.now)
                #expect(info.subscriber.originalAppUserID == claimant)
                #expect(try encoder.encode(info.subscriber) == encoder.encode(fresh.subscriber))
                #expect(described.product?.id == products.last)
                #expect(info.subscriber.subscriptions.count + info.subscriber.nonSubscriptions.count == products.count)
            }
        },
        StoreCase("keep_with_original is read inside the redemption and refuses without consuming") { store in
            var app = try await Fixture.app(store)
            app.restoreBehavior = .keepWithOriginal
            try await store.updateApp(app)
            try await Fixture.catalog(store, appID: app.id)
            let (purchase, hash) = try await RedemptionCases.purchaseWithToken(store, appID: app.id, buyer: Fixture.user("buyer"))
            let described = try await store.redeemDescribed(appID: app.id, tokenHash: hash, claimant: Fixture.user("erin"), now: Fixture.now)
            #expect(described.outcome == .belongsToOtherUser)
            #expect(described.customerInfo == nil)
            #expect(try await store.redemptionTokenState(tokenHash: hash)?.consumedAt == nil)
            #expect(try await RedemptionCases.owner(store, app.id, purchase) == purchase.customerID)
        },
        StoreCase("the benchmark seed stores every token and the kept ones redeem") { store in
            let app = try await Fixture.app(store)
            try await Fixture.catalog(store, appID: app.id)
            let kept = try await BenchSeeder(store: store).seedRedemptionTokens(
                appID: app.id, productID: "lifetime", purchaseCount: 7, tokenCount: 2_500, keep: 30, now: Fixture.now)
            #expect(kept.count == 30)
            #expect(Set(kept).count == 30)
            let stored = try await store.database.read { try await $0.first("SELECT COUNT(*) AS n FROM redemption_tokens WHERE app_id = \(app.id)") }
            #expect(try stored?.int("n") == 2_500)
            let described = try await store.redeemDescribed(
                appID: app.id, tokenHash: SecretToken.hash(kept[0]), claimant: Fixture.user("zed"), now: Fixture.now)
            guard case .redeemed(_, .alias) = described.outcome else {
                Issue.record("got \(described.outcome)")
                return
            }
            #expect(described.customerInfo?.subscriber.entitlements["pro"] != nil)
        },
    ]
}

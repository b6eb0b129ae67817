import Foundation
import RedeemCore
import RedeemStore
import Testing

enum RedemptionCases {
    /// A purchase by `buyer` with a live token; returns the purchase and the token hash.
    static func purchaseWithToken(
        _ store: SQLStore, appID: String, buyer: AppUserID, product: String = "monthly",
        expiresIn: TimeInterval = 3600
    ) async throws -> (Purchase, String) {
        let purchase = try await store.grant(
            PurchaseGrant(appID: appID, appUserID: buyer, productID: product, purchaseDate: Fixture.now, email: "buyer@example.com"),
            idempotency: nil, now: Fixture.now
        ).purchase
        let hash = SecretToken.hash(RedemptionLink.newToken())
        try await store.issueRedemptionToken(
            appID: appID, purchaseID: purchase.id, tokenHash: hash, now: Fixture.now, expiresAt: Fixture.now.addingTimeInterval(expiresIn))
        return (purchase, hash)
    }

    static func owner(_ store: SQLStore, _ appID: String, _ purchase: Purchase) async throws -> String {
        try await store.purchase(appID: appID, id: purchase.id).customerID
    }

    static let all: [StoreCase] = [
        StoreCase("an anonymous buyer's purchase is aliased into the identified claimant") { store in
            let app = try await Fixture.app(store)
            try await Fixture.catalog(store, appID: app.id)
            let buyer = AppUserID.anonymous()
            let (purchase, hash) = try await purchaseWithToken(store, appID: app.id, buyer: buyer)
            let outcome = try await store.redeem(
                appID: app.id, tokenHash: hash, claimant: Fixture.user("alice"), behavior: .keepWithOriginal, now: Fixture.now)
            guard case .redeemed(_, let association) = outcome else {
                Issue.record("got \(outcome)")
                return
            }
            #expect(association == .alias)
            let alice = try #require(try await store.findCustomer(appID: app.id, appUserID: Fixture.user("alice")))
            #expect(Set(alice.aliases) == ["alice", buyer.rawValue])
            #expect(try await owner(store, app.id, purchase) == alice.id)
            #expect(
                try await store.customerInfo(appID: app.id, appUserID: Fixture.user("alice"), now: Fixture.now).subscriber.entitlements["pro"] != nil)
        },
        StoreCase("between identified users the restore behaviour decides") { store in
            let app = try await Fixture.app(store)
            try await Fixture.catalog(store, appID: app.id)
            // transfer
            let (first, hash1) = try await purchaseWithToken(store, appID: app.id, buyer: Fixture.user("bob"))
            let transferred = try await store.redeem(
                appID: app.id, tokenHash: hash1, claimant: Fixture.user("carol"), behavior: .transfer, now: Fixture.now)
            #expect(transferred == .redeemed(try await store.purchase(appID: app.id, id: first.id), association: .transfer))
            let carol = try #require(try await store.findCustomer(appID: app.id, appUserID: Fixture.user("carol")))
            #expect(try await owner(store, app.id, first) == carol.id)
            #expect(carol.aliases == ["carol"])
            // keep with original: refused, and the token stays unused
            let (second, hash2) = try await purchaseWithToken(store, appID: app.id, buyer: Fixture.user("dave"))
            #expect(
                try await store.redeem(appID: app.id, tokenHash: hash2, claimant: Fixture.user("erin"), behavior: .keepWithOriginal, now: Fixture.now)
                    == .belongsToOtherUser)
            #expect(try await owner(store, app.id, second) != carol.id)
            // The refusal rolled the claim back but is still on record.
            #expect(try await store.redemptionAttempts(appID: app.id, purchaseID: second.id).map(\.outcome) == ["belongs_to_other_user"])
            let retry = try await store.redeem(
                appID: app.id, tokenHash: hash2, claimant: Fixture.user("dave"), behavior: .keepWithOriginal, now: Fixture.now)
            guard case .redeemed(_, nil) = retry else {
                Issue.record("owner could not redeem: \(retry)")
                return
            }
            // transfer only without an active subscription: dave has one (monthly), so it is refused
            let (_, hash3) = try await purchaseWithToken(store, appID: app.id, buyer: Fixture.user("dave"), product: "lifetime")
            #expect(
                try await store.redeem(
                    appID: app.id, tokenHash: hash3, claimant: Fixture.user("frank"), behavior: .transferIfNoActiveSubscription, now: Fixture.now)
                    == .belongsToOtherUser)
            // …and transferred once dave's subscription has lapsed
            let later = Fixture.now.addingTimeInterval(40 * 86_400)
            let (_, hash4) = try await purchaseWithToken(
                store, appID: app.id, buyer: Fixture.user("dave"), product: "lifetime", expiresIn: 100 * 86_400)
            let lapsed = try await store.redeem(
                appID: app.id, tokenHash: hash4, claimant: Fixture.user("frank"), behavior: .transferIfNoActiveSubscription, now: later)
            guard case .redeemed(_, .transfer) = lapsed else {
                Issue.record("got \(lapsed)")
                return
            }
        },
        StoreCase("without a given behaviour the app's own decides; a buyer identified since buying is not anonymous") { store in
            var app = try await Fixture.app(store)
            app.restoreBehavior = .keepWithOriginal
            try await store.updateApp(app)
            try await Fixture.catalog(store, appID: app.id)
            let buyer = AppUserID.anonymous()
            let (purchase, hash) = try await purchaseWithToken(store, appID: app.id, buyer: buyer)
            // The buyer logs in: an identified ID joins the anonymous one, so the owner is no longer anonymous.
            _ = try await store.alias(appID: app.id, buyer, into: Fixture.user("gina"), now: Fixture.now)
            let refused = try await store.redeemDescribed(appID: app.id, tokenHash: hash, claimant: Fixture.user("hank"), now: Fixture.now)
            #expect(refused.outcome == .belongsToOtherUser)
            #expect(try await owner(store, app.id, purchase) != (try await store.findCustomer(appID: app.id, appUserID: Fixture.user("hank")))?.id)
            app.restoreBehavior = .transfer
            try await store.updateApp(app)
            let moved = try await store.redeemDescribed(appID: app.id, tokenHash: hash, claimant: Fixture.user("hank"), now: Fixture.now)
            guard case .redeemed(_, .transfer) = moved.outcome else {
                Issue.record("got \(moved.outcome)")
                return
            }
            #expect(moved.customerInfo?.subscriber.entitlements["pro"] != nil)
        },
        StoreCase("a token is consumed once; its redeemer may present it again, nobody else") { store in
            let app = try await Fixture.app(store)
            try await Fixture.catalog(store, appID: app.id)
            let (_, hash) = try await purchaseWithToken(store, appID: app.id, buyer: AppUserID.anonymous())
            let first = try await store.redeem(appID: app.id, tokenHash: hash, claimant: Fixture.user("alice"), behavior: .transfer, now: Fixture.now)
            guard case .redeemed = first else {
                Issue.record("got \(first)")
                return
            }
            guard
                case .redeemed(_, nil) = try await store.redeem(
                    appID: app.id, tokenHash: hash, claimant: Fixture.user("alice"), behavior: .transfer, now: Fixture.now)
            else {
                Issue.record("same user again should succeed")
                return
            }
            // Never "expired" for someone else, even after the lifetime (RevenueCat's purchases-ios#5590).
            let late = Fixture.now.addingTimeInterval(7200)
            #expect(
                try await store.redeem(appID: app.id, tokenHash: hash, claimant: Fixture.user("mallory"), behavior: .transfer, now: late)
                    == .belongsToOtherUser)
        },
        StoreCase("unknown, foreign and expired tokens") { store in
            let app = try await Fixture.app(store)
            let other = try await Fixture.app(store, name: "Other")
            try await Fixture.catalog(store, appID: app.id)
            #expect(
                try await store.redeem(
                    appID: app.id, tokenHash: SecretToken.hash("nope"), claimant: Fixture.user("a"), behavior: .transfer, now: Fixture.now)
                    == .invalid)
            let (purchase, hash) = try await purchaseWithToken(store, appID: app.id, buyer: Fixture.user("b"), expiresIn: 60)
            #expect(
                try await store.redeem(appID: other.id, tokenHash: hash, claimant: Fixture.user("a"), behavior: .transfer, now: Fixture.now)
                    == .otherApp)
            let expired = try await store.redeem(
                appID: app.id, tokenHash: hash, claimant: Fixture.user("a"), behavior: .transfer, now: Fixture.now.addingTimeInterval(60))
            #expect(expired == .expired(try await store.purchase(appID: app.id, id: purchase.id)))
            let attempts = try await store.database.read {
                try await $0.query("SELECT outcome FROM redemption_attempts ORDER BY created_at, outcome")
            }
            #expect(try attempts.map { try $0.string("outcome") }.sorted() == ["expired", "invalid", "other_app"])
        },
        StoreCase("a lapsed subscription is redeemed but reported as expired") { store in
            let app = try await Fixture.app(store)
            try await Fixture.catalog(store, appID: app.id)
            let (purchase, hash) = try await purchaseWithToken(store, appID: app.id, buyer: Fixture.user("b"), expiresIn: 90 * 86_400)
            let outcome = try await store.redeem(
                appID: app.id, tokenHash: hash, claimant: AppUserID.anonymous(), behavior: .transfer, now: Fixture.now.addingTimeInterval(60 * 86_400)
            )
            #expect(outcome == .subscriptionExpired(try await store.purchase(appID: app.id, id: purchase.id)))
        },
        StoreCase("two links of one anonymous purchase redeemed at once by two users: one aliases, then the other transfers") { store in
            let app = try await Fixture.app(store)
            try await Fixture.catalog(store, appID: app.id)
            for round in 0..<10 {
                let buyer = AppUserID.anonymous()
                let (purchase, first) = try await purchaseWithToken(store, appID: app.id, buyer: buyer)
                let second = SecretToken.hash(RedemptionLink.newToken())
                try await store.issueRedemptionToken(
                    appID: app.id, purchaseID: purchase.id, tokenHash: second, now: Fixture.now,
                    expiresAt: Fixture.now.addingTimeInterval(3600))
                async let a = store.redeem(
                    appID: app.id, tokenHash: first, claimant: Fixture.user("a-\(round)"), behavior: .transfer, now: Fixture.now)
                async let b = store.redeem(
                    appID: app.id, tokenHash: second, claimant: Fixture.user("b-\(round)"), behavior: .transfer, now: Fixture.now)
                let outcomes = try await [a, b]
                let associations = outcomes.compactMap { if case .redeemed(_, let association) = $0 { association } else { nil } }
                #expect(associations.sorted { "\($0)" < "\($1)" } == [.alias, .transfer])
            }
        },
        StoreCase("concurrent claims by different users: exactly one wins") { store in
            let app = try await Fixture.app(store)
            try await Fixture.catalog(store, appID: app.id)
            let (_, hash) = try await purchaseWithToken(store, appID: app.id, buyer: Fixture.user("buyer"))
            let outcomes = try await withThrowingTaskGroup(of: RedemptionOutcome.self) { group in
                for i in 0..<50 {
                    group.addTask {
                        try await store.redeem(
                            appID: app.id, tokenHash: hash, claimant: Fixture.user("user-\(i)"), behavior: .transfer, now: Fixture.now)
                    }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(outcomes.filter { if case .redeemed = $0 { true } else { false } }.count == 1)
            #expect(outcomes.filter { $0 == .belongsToOtherUser }.count == 49)
        },
    ]
}

import Foundation
import RedeemCore
import RedeemStore
import Testing

enum PurchaseCases {
    static let all: [StoreCase] = [
        StoreCase("a subscription grant expires one period later and shows in customer info") { store in
            let app = try await Fixture.app(store)
            try await Fixture.catalog(store, appID: app.id)
            let grant = PurchaseGrant(
                appID: app.id, appUserID: Fixture.user("alice"), productID: "monthly", store: .stripe, isSandbox: true,
                purchaseDate: Fixture.now, price: Price(amountMicros: 9_990_000, currency: "EUR"), email: "a@example.com")
            let result = try await store.grant(grant, idempotency: nil, now: Fixture.now)
            #expect(result.created)
            #expect(result.purchase.expiresDate == ISODate.parse("2026-07-01T00:00:00Z"))
            #expect(try await store.purchase(appID: app.id, id: result.purchase.id) == result.purchase)
            let info = try await store.customerInfo(appID: app.id, appUserID: Fixture.user("alice"), now: Fixture.now)
            let subscription = try #require(info.subscriber.subscriptions["monthly"])
            #expect(subscription.store == "stripe")
            #expect(subscription.isSandbox)
            #expect(subscription.price?.amount == 9.99)
            #expect(subscription.expiresDate == "2026-07-01T00:00:00Z")
            #expect(info.subscriber.entitlements["pro"]?.productIdentifier == "monthly")
        },
        StoreCase("a purchase and its e-mails keep the buyer's language; without one they have none") { store in
            let app = try await Fixture.app(store)
            try await Fixture.catalog(store, appID: app.id)
            var grant = PurchaseGrant(
                appID: app.id, appUserID: Fixture.user("kai"), productID: "lifetime", purchaseDate: Fixture.now, email: "kai@example.com")
            grant.language = "zh-Hant"
            let kept = try await store.grant(grant, idempotency: nil, now: Fixture.now).purchase
            #expect(kept.language == "zh-Hant")
            #expect(try await store.purchase(appID: app.id, id: kept.id).language == "zh-Hant")
            grant.language = nil
            grant.appUserID = Fixture.user("bo")
            let plain = try await store.grant(grant, idempotency: nil, now: Fixture.now).purchase
            #expect(try await store.purchase(appID: app.id, id: plain.id).language == nil)
            for (purchase, language) in [(kept, "ja"), (plain, nil)] {
                let email = QueuedEmail(
                    id: Identifier.make(prefix: "eml"), appID: app.id, purchaseID: purchase.id, kind: .receipt, recipient: "kai@example.com",
                    createdAt: Fixture.now, language: language)
                #expect(try await store.enqueueEmail(email, quietPeriod: 0))
                #expect(try await store.emails(purchaseID: purchase.id).map(\.email.language) == [language])
            }
            #expect(Set(try await store.claimDueEmails(now: Fixture.now, lease: 60, limit: 10).map(\.language)) == ["ja", nil])
        },
        StoreCase("an idempotency key records once; a different body under it is refused") { store in
            let app = try await Fixture.app(store)
            try await Fixture.catalog(store, appID: app.id)
            let grant = PurchaseGrant(appID: app.id, appUserID: Fixture.user("alice"), productID: "coins", purchaseDate: Fixture.now)
            let key = Idempotency(key: "order-1", fingerprint: "f1")
            let first = try await store.grant(grant, idempotency: key, now: Fixture.now)
            let replay = try await store.grant(grant, idempotency: key, now: Fixture.now)
            #expect(first.created && !replay.created)
            #expect(first.purchase == replay.purchase)
            await #expect { try await store.grant(grant, idempotency: Idempotency(key: "order-1", fingerprint: "f2"), now: Fixture.now) } throws: {
                ($0 as? StoreError)?.isIdempotencyMismatch == true
            }
            let customer = try #require(try await store.findCustomer(appID: app.id, appUserID: Fixture.user("alice")))
            #expect(try await store.purchases(customerID: customer.id).count == 1)
        },
        StoreCase("concurrent grants under one idempotency key record exactly one purchase") { store in
            let app = try await Fixture.app(store)
            try await Fixture.catalog(store, appID: app.id)
            let grant = PurchaseGrant(appID: app.id, appUserID: Fixture.user("alice"), productID: "coins", purchaseDate: Fixture.now)
            let results = try await withThrowingTaskGroup(of: GrantResult.self) { group in
                for _ in 0..<30 {
                    group.addTask { try await store.grant(grant, idempotency: Idempotency(key: "k", fingerprint: "f"), now: Fixture.now) }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(Set(results.map(\.purchase.id)).count == 1)
            #expect(results.filter(\.created).count == 1)
            let customer = try #require(try await store.findCustomer(appID: app.id, appUserID: Fixture.user("alice")))
            #expect(try await store.purchases(customerID: customer.id).count == 1)
        },
        StoreCase("unknown products are not found and nothing is written") { store in
            let app = try await Fixture.app(store)
            let grant = PurchaseGrant(appID: app.id, appUserID: Fixture.user("alice"), productID: "ghost", purchaseDate: Fixture.now)
            await #expect { try await store.grant(grant, idempotency: Idempotency(key: "x", fingerprint: "f"), now: Fixture.now) } throws: {
                ($0 as? StoreError)?.isNotFound == true
            }
            #expect(try await store.findCustomer(appID: app.id, appUserID: Fixture.user("alice")) == nil)
        },
        StoreCase("a store transaction is recorded once per store") { store in
            let app = try await Fixture.app(store)
            try await Fixture.catalog(store, appID: app.id)
            let grant = PurchaseGrant(
                appID: app.id, appUserID: Fixture.user("alice"), productID: "coins", store: .stripe,
                purchaseDate: Fixture.now, storeTransactionID: "pi_123")
            _ = try await store.grant(grant, idempotency: nil, now: Fixture.now)
            await #expect { try await store.grant(grant, idempotency: nil, now: Fixture.now) } throws: { ($0 as? StoreError)?.isConflict == true }
        },
    ]
}

import Foundation
import RedeemCore
import RedeemStore
import Testing

enum CustomerCases {
    static let all: [StoreCase] = [
        StoreCase("customers are created on first sight and last_seen refreshes") { store in
            let app = try await Fixture.app(store)
            let alice = Fixture.user("alice")
            #expect(try await store.findCustomer(appID: app.id, appUserID: alice) == nil)
            let created = try await store.customer(appID: app.id, appUserID: alice, now: Fixture.now)
            #expect(created.originalAppUserID == "alice")
            #expect(created.firstSeen == Fixture.now)
            let soon = try await store.customer(appID: app.id, appUserID: alice, now: Fixture.now.addingTimeInterval(10))
            #expect(soon.id == created.id)
            #expect(soon.lastSeen == Fixture.now)  // within the one-minute resolution: no write
            let later = Fixture.now.addingTimeInterval(3600)
            _ = try await store.customer(appID: app.id, appUserID: alice, now: later)
            let found = try #require(try await store.findCustomer(appID: app.id, appUserID: alice))
            #expect(found.lastSeen == later)
            #expect(found.firstSeen == Fixture.now)
            #expect(found.aliases == ["alice"])
            await #expect { try await store.customer(appID: "app_missing", appUserID: alice, now: Fixture.now) } throws: {
                ($0 as? StoreError)?.isNotFound == true
            }
        },
        StoreCase("concurrent first sight creates exactly one customer") { store in
            let app = try await Fixture.app(store)
            let ids = try await withThrowingTaskGroup(of: String.self) { group in
                for _ in 0..<40 {
                    group.addTask { try await store.customer(appID: app.id, appUserID: Fixture.user("racer"), now: Fixture.now).id }
                }
                return try await group.reduce(into: Set<String>()) { $0.insert($1) }
            }
            #expect(ids.count == 1)
        },
        StoreCase("aliasing merges customers, purchases and aliases") { store in
            let app = try await Fixture.app(store)
            try await Fixture.catalog(store, appID: app.id)
            let anonymous = AppUserID.anonymous()
            let bought = try await store.grant(
                PurchaseGrant(appID: app.id, appUserID: anonymous, productID: "lifetime", purchaseDate: Fixture.now.addingTimeInterval(-86_400)),
                idempotency: nil, now: Fixture.now.addingTimeInterval(-86_400))
            _ = try await store.customer(appID: app.id, appUserID: Fixture.user("alice"), now: Fixture.now)
            let merged = try await store.alias(appID: app.id, anonymous, into: Fixture.user("alice"), now: Fixture.now)
            #expect(merged.originalAppUserID == "alice")
            #expect(Set(merged.aliases) == ["alice", anonymous.rawValue])
            #expect(merged.firstSeen == Fixture.now.addingTimeInterval(-86_400))
            let viaAnonymous = try #require(try await store.findCustomer(appID: app.id, appUserID: anonymous))
            #expect(viaAnonymous.id == merged.id)
            #expect(try await store.purchases(customerID: merged.id).map(\.id) == [bought.purchase.id])
            let info = try await store.customerInfo(appID: app.id, appUserID: anonymous, now: Fixture.now)
            #expect(info.subscriber.originalAppUserID == "alice")
            #expect(info.subscriber.entitlements["extra"] != nil)
            // Aliasing again, either way round, changes nothing.
            let again = try await store.alias(appID: app.id, Fixture.user("alice"), into: anonymous, now: Fixture.now)
            #expect(again.id == merged.id)
        },
        StoreCase("transfer moves one purchase and nothing else") { store in
            let app = try await Fixture.app(store)
            try await Fixture.catalog(store, appID: app.id)
            let first = try await store.grant(
                PurchaseGrant(appID: app.id, appUserID: Fixture.user("bob"), productID: "monthly", purchaseDate: Fixture.now), idempotency: nil,
                now: Fixture.now)
            let second = try await store.grant(
                PurchaseGrant(appID: app.id, appUserID: Fixture.user("bob"), productID: "coins", purchaseDate: Fixture.now), idempotency: nil,
                now: Fixture.now)
            let moved = try await store.transferPurchase(appID: app.id, purchaseID: first.purchase.id, to: Fixture.user("carol"), now: Fixture.now)
            let carol = try #require(try await store.findCustomer(appID: app.id, appUserID: Fixture.user("carol")))
            #expect(moved.customerID == carol.id)
            #expect(try await store.purchases(customerID: carol.id).map(\.id) == [first.purchase.id])
            #expect(try await store.purchases(customerID: second.purchase.customerID).map(\.id) == [second.purchase.id])
            #expect(try await store.customerInfo(appID: app.id, appUserID: Fixture.user("bob"), now: Fixture.now).subscriber.entitlements.isEmpty)
            #expect(
                try await store.customerInfo(appID: app.id, appUserID: Fixture.user("carol"), now: Fixture.now).subscriber.entitlements["pro"] != nil)
            await #expect {
                try await store.transferPurchase(appID: app.id, purchaseID: "pur_missing", to: Fixture.user("carol"), now: Fixture.now)
            } throws: {
                ($0 as? StoreError)?.isNotFound == true
            }
        },
        StoreCase("customers are separate per app") { store in
            let a = try await Fixture.app(store, name: "A")
            let b = try await Fixture.app(store, name: "B")
            let inA = try await store.customer(appID: a.id, appUserID: Fixture.user("same"), now: Fixture.now)
            let inB = try await store.customer(appID: b.id, appUserID: Fixture.user("same"), now: Fixture.now)
            #expect(inA.id != inB.id)
        },
    ]
}

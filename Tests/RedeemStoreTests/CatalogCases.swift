import Foundation
import RedeemCore
import RedeemStore
import Testing

enum CatalogCases {
    static let all: [StoreCase] = [
        StoreCase("products carry their entitlements, created on demand") { store in
            let app = try await Fixture.app(store)
            try await Fixture.catalog(store, appID: app.id)
            let lifetime = try await store.product(appID: app.id, id: "lifetime")
            #expect(lifetime.entitlements == ["extra", "pro"])
            #expect(lifetime.type == .nonConsumable)
            #expect(try await store.product(appID: app.id, id: "monthly").period == "P1M")
            #expect(try await store.products(appID: app.id).map(\.id) == ["coins", "lifetime", "monthly"])
            #expect(try await store.entitlements(appID: app.id).map(\.id) == ["extra", "pro"])
        },
        StoreCase("product updates replace entitlements; duplicates conflict") { store in
            let app = try await Fixture.app(store)
            try await Fixture.catalog(store, appID: app.id)
            var monthly = try await store.product(appID: app.id, id: "monthly")
            monthly.entitlements = ["gold"]
            monthly.displayName = "Gold Monthly"
            try await store.updateProduct(monthly)
            #expect(try await store.product(appID: app.id, id: "monthly") == monthly)
            await #expect { try await store.createProduct(monthly) } throws: { ($0 as? StoreError)?.isConflict == true }
            await #expect { try await store.product(appID: app.id, id: "nope") } throws: { ($0 as? StoreError)?.isNotFound == true }
        },
        StoreCase("entitlements are per app") { store in
            let a = try await Fixture.app(store, name: "A")
            let b = try await Fixture.app(store, name: "B")
            try await store.createEntitlement(Entitlement(appID: a.id, id: "pro", displayName: "Pro", createdAt: Fixture.now))
            try await store.createEntitlement(Entitlement(appID: b.id, id: "pro", displayName: nil, createdAt: Fixture.now))
            var pro = try await store.entitlement(appID: a.id, id: "pro")
            #expect(pro.displayName == "Pro")
            pro.displayName = "Professional"
            try await store.updateEntitlement(pro)
            #expect(try await store.entitlement(appID: a.id, id: "pro").displayName == "Professional")
            #expect(try await store.entitlement(appID: b.id, id: "pro").displayName == nil)
            await #expect { try await store.createEntitlement(pro) } throws: { ($0 as? StoreError)?.isConflict == true }
            await #expect { try await store.entitlements(appID: "app_missing") } throws: { ($0 as? StoreError)?.isNotFound == true }
        },
    ]
}

import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import RedeemCore
import RedeemServer
import RedeemStore
import RedeemTestSupport
import Testing

/// The rendered-CustomerInfo cache must never serve data older than the last commit, from any process.
@Suite struct CustomerInfoCacheTests {
    @Test(arguments: TestDatabases.available)
    func writesThroughTheAPIShowAtOnce(_ backend: TestBackend) async throws {
        try await TestServer.with(backend) { server in
            let app = try await server.createAppWithCatalog()
            let before = try await server.send(.get, "/v1/subscribers/alice", key: app.publicSandbox).object()
            #expect((before.value(at: "subscriber.entitlements") as? [String: Any])?.isEmpty == true)
            let grant = try await server.send(
                .post, "/v1/purchases", key: app.secret, json: #"{"app_user_id": "alice", "product_id": "lifetime"}"#,
                headers: [HTTPField.Name("Idempotency-Key")!: "g1"])
            #expect(grant.status == 201)
            let after = try await server.send(.get, "/v1/subscribers/alice", key: app.publicSandbox).object()
            #expect(after.value(at: "subscriber.entitlements.pro.product_identifier") as? String == "lifetime")
        }
    }

    /// A second store on the same database stands for `redeem` CLI commands beside the server (SQLite) or another
    /// instance (PostgreSQL): its commits show in the server's next answer, cached or not.
    /// Offerings are kept in memory per app, secret-key Customer Info per customer: a change made by another instance
    /// (another store on the same database) shows on the next request.
    @Test(arguments: TestDatabases.available)
    func offeringsAndAttributesFromAnotherProcessShowAtOnce(_ backend: TestBackend) async throws {
        try await TestDatabases.withTwoStores(backend) { serverStore, otherStore in
            let clock = ManualClock(TestServer.start)
            let deps = try await ServerDependencies(store: serverStore, clock: clock)
            let other = AdminService(store: otherStore, clock: clock, actor: "test")
            var changes = AppChanges()
            changes.name = "A"
            let created = try await other.createApp(changes)
            let appID = created.app.id
            _ = try await other.createProduct(
                appID: appID,
                ProductInput(id: "life", type: "non_consumable", entitlements: ["pro"], storeIDs: StoreProductIDs(appStore: "com.a.life")))
            let key = try #require(created.plaintext(.publicSandbox))
            let secret = try #require(created.plaintext(.secret))
            let app = Application(router: try buildRouter(deps))
            try await app.test(.router) { client in
                func get(_ uri: String, _ key: String) async throws -> String {
                    try await client.execute(
                        uri: uri, method: .get, headers: [.authorization: "Bearer \(key)", HTTPField.Name("X-Platform")!: "iOS"]
                    ) {
                        String(buffer: $0.body)
                    }
                }
                let offerings = "/v1/subscribers/bob/offerings"
                #expect(try await get(offerings, key) == #"{"current_offering_id":null,"offerings":[]}"#)
                _ = try await other.createOffering(
                    appID: appID, id: "main", .init(isCurrent: true, packages: [.init(id: "$rc_lifetime", productID: "life")]))
                #expect(try await get(offerings, key).contains(#""platform_product_identifier":"com.a.life""#))
                _ = try await other.updateProduct(appID: appID, id: "life", ProductUpdate(storeIDs: StoreProductIDs(appStore: "com.a.life2")))
                #expect(try await get(offerings, key).contains(#""platform_product_identifier":"com.a.life2""#))
                #expect(try await get("/v1/product_entitlement_mapping", key).contains(#""com.a.life2""#))

                #expect(!(try await get("/v1/subscribers/bob", secret).contains("tier")))
                _ = try await otherStore.setAttributes(
                    appID: appID, appUserID: try AppUserID(validating: "bob"), changes: [.init(key: "tier", value: "gold", updatedAt: clock.now())],
                    fromBackend: true, now: clock.now())
                #expect(try await get("/v1/subscribers/bob", secret).contains(#""tier":{"updated_at_ms":1780272000000,"value":"gold"}"#))
            }
        }
    }

    @Test(arguments: TestDatabases.available)
    func writesFromAnotherProcessShowAtOnce(_ backend: TestBackend) async throws {
        try await TestDatabases.withTwoStores(backend) { serverStore, otherStore in
            let clock = ManualClock(TestServer.start)
            let deps = try await ServerDependencies(store: serverStore, clock: clock)
            let other = AdminService(store: otherStore, clock: clock, actor: "test")
            let created = try await other.createApp(
                {
                    var c = AppChanges()
                    c.name = "A"
                    return c
                }())
            let appID = created.app.id
            _ = try await other.createProduct(appID: appID, ProductInput(id: "life", type: "non_consumable", entitlements: ["pro"]))
            let key = try #require(created.plaintext(.publicSandbox))
            let app = Application(router: try buildRouter(deps))
            try await app.test(.router) { client in
                func entitlements() async throws -> [String: Any] {
                    try await client.execute(uri: "/v1/subscribers/bob", method: .get, headers: [.authorization: "Bearer \(key)"]) { response in
                        let json = try JSONSerialization.jsonObject(with: Data(String(buffer: response.body).utf8)) as? [String: Any]
                        return (json?["subscriber"] as? [String: Any])?["entitlements"] as? [String: Any] ?? ["missing": true]
                    }
                }
                #expect(try await entitlements().isEmpty)
                #expect(try await entitlements().isEmpty)  // now served from the cache
                let grant = PurchaseGrant(appID: appID, appUserID: try AppUserID(validating: "bob"), productID: "life", purchaseDate: clock.now())
                _ = try await otherStore.grant(grant, idempotency: nil, now: clock.now())
                #expect(try await entitlements().keys.sorted() == ["pro"])
                #expect(try await entitlements().keys.sorted() == ["pro"])  // cached again
                // A catalog change elsewhere (the product now also unlocks "extra") shows too.
                _ = try await other.createEntitlement(appID: appID, EntitlementInput(id: "extra"))
                _ = try await other.updateProduct(appID: appID, id: "life", ProductUpdate(entitlements: ["pro", "extra"]))
                #expect(try await entitlements().keys.sorted() == ["extra", "pro"])
                // So does a purchase moving to another customer (a redemption on another instance moves it this way).
                let bob = try await otherStore.customer(appID: appID, appUserID: try AppUserID(validating: "bob"), now: clock.now())
                let purchaseID = try #require(try await otherStore.purchases(customerID: bob.id).first?.id)
                let carol = try await otherStore.customer(appID: appID, appUserID: try AppUserID(validating: "carol"), now: clock.now())
                _ = try await otherStore.database.transaction { connection in
                    try await connection.query("UPDATE purchases SET customer_id = \(carol.id) WHERE id = \(purchaseID)")
                }
                #expect(try await entitlements().isEmpty)
            }
        }
    }

    /// On PostgreSQL the tag the cache is checked against stays the same until a write to the customer, and is nil for
    /// a customer not seen yet (nothing cached for it).
    @Test(.enabled(if: TestDatabases.postgresConfigured, "needs REDEEM_TEST_POSTGRES_URL")) func postgresTagsMoveOnlyWithWrites() async throws {
        try await TestServer.with(.postgres) { server in
            let app = try await server.createAppWithCatalog()
            _ = try await server.grant(app, #"{"app_user_id": "dora", "product_id": "lifetime"}"#)
            let first = try await server.send(.get, "/v1/subscribers/dora", key: app.publicSandbox)
            let tag = try await server.deps.store.customerInfoTag(appID: app.id, appUserID: .init(validating: "dora"))
            #expect(tag != nil)
            #expect(try await server.deps.store.customerInfoTag(appID: app.id, appUserID: .init(validating: "dora")) == tag)
            #expect(try await server.deps.store.customerInfoTag(appID: app.id, appUserID: .init(validating: "nobody")) == nil)
            let second = try await server.send(.get, "/v1/subscribers/dora", key: app.publicSandbox)
            #expect(try first.string("subscriber.first_seen") == (try second.string("subscriber.first_seen")))
            _ = try await server.grant(app, #"{"app_user_id": "dora", "product_id": "monthly"}"#)
            #expect(try await server.deps.store.customerInfoTag(appID: app.id, appUserID: .init(validating: "dora")) != tag)
        }
    }

    @Test(arguments: TestDatabases.available) func cachedBodiesMatchTheEncoderAndLastSeenStillRefreshes(_ backend: TestBackend) async throws {
        let clock = ManualClock(TestServer.start)
        try await TestServer.with(backend, clock: clock) { server in
            let app = try await server.createAppWithCatalog()
            _ = try await server.send(
                .post, "/v1/purchases", key: app.secret, json: #"{"app_user_id": "carol", "product_id": "monthly"}"#,
                headers: [HTTPField.Name("Idempotency-Key")!: "c1"])
            let first = try await server.send(.get, "/v1/subscribers/carol", key: app.publicSandbox)
            clock.advance(by: 30)
            let cached = try await server.send(.get, "/v1/subscribers/carol", key: app.publicSandbox)
            let info = try await server.deps.store.customerInfo(appID: app.id, appUserID: .init(validating: "carol"), now: clock.now())
            #expect(cached.body == String(decoding: try JSONCoding.encoder.encode(info), as: UTF8.self))
            #expect(try first.string("subscriber.last_seen") == "2026-06-01T00:00:00Z")
            #expect(try cached.string("request_date") == "2026-06-01T00:00:30Z")
            clock.advance(by: 31)
            let refreshed = try await server.send(.get, "/v1/subscribers/carol", key: app.publicSandbox)
            #expect(try refreshed.string("subscriber.last_seen") == "2026-06-01T00:01:01Z")
        }
    }
}

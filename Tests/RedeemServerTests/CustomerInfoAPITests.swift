import Foundation
import HTTPTypes
import RedeemTestSupport
import Testing

@Suite struct CustomerInfoAPITests {
    @Test(arguments: TestDatabases.available)
    func newCustomersAreCreatedOnFirstSight(_ backend: TestBackend) async throws {
        try await TestServer.with(backend) { server in
            let app = try await server.createApp()
            let reply = try await server.send(.get, "/v1/subscribers/alice", key: app.publicSandbox)
            #expect(reply.status == 200)
            let json = try reply.object()
            #expect(json["request_date"] as? String == "2026-06-01T00:00:00Z")
            #expect(json["request_date_ms"] as? Int == 1_780_272_000_000)
            #expect(try reply.string("subscriber.original_app_user_id") == "alice")
            #expect(try reply.string("subscriber.first_seen") == "2026-06-01T00:00:00Z")
            #expect((json.value(at: "subscriber.entitlements") as? [String: Any])?.isEmpty == true)
            let customer = try await server.deps.store.findCustomer(appID: app.id, appUserID: .init(validating: "alice"))
            #expect(customer != nil)
        }
    }

    @Test(arguments: TestDatabases.available)
    func anonymousAndEncodedIDs(_ backend: TestBackend) async throws {
        try await TestServer.with(backend) { server in
            let app = try await server.createApp()
            let anonymous = "$RCAnonymousID:0123456789abcdef0123456789abcdef"
            #expect(
                try await server.send(.get, "/v1/subscribers/\(anonymous)", key: app.publicSandbox).string("subscriber.original_app_user_id")
                    == anonymous)
            let encoded = "%24RCAnonymousID%3A0123456789abcdef0123456789abcdef"
            #expect(
                try await server.send(.get, "/v1/subscribers/\(encoded)", key: app.publicSandbox).string("subscriber.original_app_user_id")
                    == anonymous)
            #expect(
                try await server.send(.get, "/v1/subscribers/jane%20doe", key: app.publicSandbox).string("subscriber.original_app_user_id")
                    == "jane doe")
            for bad in ["null", "anonymous", "%24RCAnonymousID%3Axyz", String(repeating: "a", count: 101), "a%2Fb"] {
                let reply = try await server.send(.get, "/v1/subscribers/\(bad)", key: app.publicSandbox)
                #expect(reply.status == 400, "\(bad)")
                #expect(reply.code == 7256, "\(bad)")
            }
            // Only white space, ASCII or not (a tab, an ideographic space), is an empty ID.
            for blank in ["%20%20", "%09", "%E3%80%80"] {
                let reply = try await server.send(.get, "/v1/subscribers/\(blank)", key: app.publicSandbox)
                #expect(reply.status == 400 && reply.code == 7220, "\(blank)")
            }
            // Bytes that are not UTF-8 are refused naming the parameter, not stored as a customer's ID.
            let notUTF8 = try await server.send(.get, "/v1/subscribers/%C0%AF", key: app.publicSandbox)
            #expect(notUTF8.status == 400)
            #expect(try notUTF8.string("field") == "app_user_id")
            let override = try await server.send(.get, "/v1/subscribers/admin%E2%80%AEtxt", key: app.publicSandbox)
            #expect(override.status == 400 && override.code == 7256)
        }
    }

    @Test(arguments: TestDatabases.available)
    func customersOfOneAppAreInvisibleToAnother(_ backend: TestBackend) async throws {
        try await TestServer.with(backend) { server in
            let a = try await server.createAppWithCatalog()
            let b = try await server.createApp(#"{"name": "B"}"#)
            let grant = try await server.send(
                .post, "/v1/purchases", key: a.secret, json: #"{"app_user_id": "alice", "product_id": "lifetime"}"#,
                headers: [HTTPField.Name("Idempotency-Key")!: "order-1"])
            #expect(grant.status == 201)
            let inA = try await server.send(.get, "/v1/subscribers/alice", key: a.publicProduction).object()
            #expect(inA.value(at: "subscriber.entitlements.pro.product_identifier") as? String == "lifetime")
            let inB = try await server.send(.get, "/v1/subscribers/alice", key: b.publicProduction).object()
            #expect((inB.value(at: "subscriber.entitlements") as? [String: Any])?.isEmpty == true)
        }
    }
}

import Foundation
import RedeemTestSupport
import Testing

@Suite struct AuthTests {
    @Test(arguments: TestDatabases.available)
    func missingOrUnknownKeysAre401(_ backend: TestBackend) async throws {
        try await TestServer.with(backend) { server in
            for key in [nil, "", "rdm_pk_sbx_unknown"] as [String?] {
                let reply = try await server.send(.get, "/v1/subscribers/alice", key: key)
                #expect(reply.status == 401)
                #expect(reply.code == 7225)
            }
            let basic = try await server.send(.get, "/admin/v1/apps", key: nil, headers: [.authorization: "Basic Zm9vOmJhcg=="])
            #expect(basic.status == 401)
        }
    }

    @Test(arguments: TestDatabases.available)
    func publicKeysNeverReachAdminOrServerRoutes(_ backend: TestBackend) async throws {
        try await TestServer.with(backend) { server in
            let app = try await server.createAppWithCatalog()
            for key in [app.publicSandbox, app.publicProduction] {
                #expect(try await server.send(.get, "/admin/v1/apps/\(app.id)", key: key).status == 403)
                #expect(try await server.send(.get, "/admin/v1/apps", key: key).status == 403)
                #expect(try await server.send(.post, "/admin/v1/apps", key: key, json: #"{"name":"X"}"#).status == 403)
                let grant = try await server.send(
                    .post, "/v1/purchases", key: key, json: #"{"app_user_id":"a","product_id":"monthly"}"#,
                    headers: [.init("Idempotency-Key")!: "k1"])
                #expect(grant.status == 403)
                #expect(try await server.send(.get, "/v1/subscribers/alice", key: key).status == 200)
            }
        }
    }

    @Test(arguments: TestDatabases.available)
    func secretKeysReachOnlyTheirOwnApp(_ backend: TestBackend) async throws {
        try await TestServer.with(backend) { server in
            let a = try await server.createApp(#"{"name": "A"}"#)
            let b = try await server.createApp(#"{"name": "B"}"#)
            #expect(try await server.send(.get, "/admin/v1/apps/\(a.id)", key: a.secret).status == 200)
            #expect(try await server.send(.get, "/admin/v1/apps/\(b.id)", key: a.secret).status == 403)
            #expect(try await server.send(.post, "/admin/v1/apps", key: a.secret, json: #"{"name":"C"}"#).status == 403)
            let listed = try await server.send(.get, "/admin/v1/apps", key: a.secret).object()
            #expect((listed["apps"] as? [[String: Any]])?.compactMap { $0["id"] as? String } == [a.id])
            // The admin key is instance-wide but belongs to no app, so SDK routes refuse it.
            #expect(try await server.send(.get, "/v1/subscribers/alice", key: server.adminKey).status == 403)
        }
    }

    @Test(arguments: TestDatabases.available)
    func revokedKeysStopWorkingAtOnce(_ backend: TestBackend) async throws {
        try await TestServer.with(backend) { server in
            let app = try await server.createApp()
            #expect(try await server.send(.get, "/v1/subscribers/alice", key: app.publicSandbox).status == 200)
            let keys = try await server.send(.get, "/admin/v1/apps/\(app.id)/keys", key: server.adminKey).object()
            let list = try #require(keys["keys"] as? [[String: Any]])
            #expect(list.count == 3)
            #expect(!keys.description.contains(app.publicSandbox))
            let sandbox = try #require(list.first { $0["kind"] as? String == "public_sandbox" }?["id"] as? String)
            #expect(try await server.send(.delete, "/admin/v1/apps/\(app.id)/keys/\(sandbox)", key: app.secret).status == 204)
            #expect(try await server.send(.get, "/v1/subscribers/alice", key: app.publicSandbox).status == 401)
            #expect(try await server.send(.get, "/v1/subscribers/alice", key: app.publicProduction).status == 200)
        }
    }
}

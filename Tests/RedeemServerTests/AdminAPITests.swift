import Foundation
import RedeemTestSupport
import Testing

@Suite struct AdminAPITests {
    @Test(arguments: TestDatabases.available)
    func createdAppsCarryKeysOnceAndTheirSettings(_ backend: TestBackend) async throws {
        try await TestServer.with(backend) { server in
            let reply = try await server.send(
                .post, "/admin/v1/apps", key: server.adminKey,
                json: """
                    {"name": "Fitness", "ios_team_id": "ABCDE12345", "ios_bundle_id": "com.example.fit",
                     "redemption_link_policy": "sandbox_only", "app_store_url": "https://apps.apple.com/app/id1"}
                    """)
            #expect(reply.status == 201)
            let object = try reply.object()
            let id = try #require(object["id"] as? String)
            #expect((object["scheme"] as? String)?.wholeMatch(of: /rdm-[0-9a-f]{10}/) != nil)
            #expect(object["redemption_link_lifetime_seconds"] as? Int == 3600)
            #expect(object["restore_behavior"] as? String == "transfer")
            let shown = try await server.send(.get, "/admin/v1/apps/\(id)", key: server.adminKey).object()
            #expect(shown["redemption_link_policy"] as? String == "sandbox_only")
            #expect(shown["keys"] == nil)
        }
    }

    @Test(arguments: TestDatabases.available)
    func invalidInputNamesTheFieldAndWritesNothing(_ backend: TestBackend) async throws {
        try await TestServer.with(backend) { server in
            let cases: [(String, Int, String?)] = [
                (#"{"name": ""}"#, 422, "name"),
                (#"{}"#, 422, "name"),
                (#"{"name": "A", "support_email": "nope"}"#, 422, "support_email"),
                (#"{"name": "A", "redemption_link_lifetime_seconds": 10}"#, 422, "redemption_link_lifetime_seconds"),
                (#"{"name": "A", "restore_behavior": "share"}"#, 422, "restore_behavior"),
                (#"{"name": 5}"#, 400, "name"),
                (#"{"name": "A""#, 400, nil),
                ("", 400, nil),
            ]
            for (body, status, field) in cases {
                let reply = try await server.send(.post, "/admin/v1/apps", key: server.adminKey, json: body)
                #expect(reply.status == status, "\(body) → \(reply.body)")
                #expect((try? reply.object())?["field"] as? String == field, "\(body) → \(reply.body)")
            }
            let apps = try await server.send(.get, "/admin/v1/apps", key: server.adminKey).object()
            #expect((apps["apps"] as? [Any])?.isEmpty == true)
        }
    }

    @Test(arguments: TestDatabases.available)
    func updatesApplyOnlyValidChanges(_ backend: TestBackend) async throws {
        try await TestServer.with(backend) { server in
            let app = try await server.createApp()
            let bad = try await server.send(
                .patch, "/admin/v1/apps/\(app.id)", key: app.secret,
                json: #"{"name": "New", "android_package_name": "bad"}"#)
            #expect(bad.status == 422)
            #expect(try await server.send(.get, "/admin/v1/apps/\(app.id)", key: app.secret).string("name") == "Test App")
            let good = try await server.send(
                .patch, "/admin/v1/apps/\(app.id)", key: app.secret,
                json: #"{"name": "New", "restore_behavior": "keep_with_original"}"#)
            #expect(good.status == 200)
            #expect(try good.string("restore_behavior") == "keep_with_original")
            #expect(try await server.send(.patch, "/admin/v1/apps/app_missing", key: server.adminKey, json: "{}").status == 404)
            #expect(try await server.send(.get, "/admin/v1/apps/app_missing", key: server.adminKey).status == 404)
        }
    }

    @Test(arguments: TestDatabases.available)
    func productsAndEntitlements(_ backend: TestBackend) async throws {
        try await TestServer.with(backend) { server in
            let app = try await server.createAppWithCatalog()
            let base = "/admin/v1/apps/\(app.id)"
            let monthly = try await server.send(.get, "\(base)/products/monthly", key: app.secret).object()
            #expect(monthly["period"] as? String == "P1M")
            #expect(monthly["entitlements"] as? [String] == ["pro"])
            let duplicate = try await server.send(.post, "\(base)/products", key: app.secret, json: #"{"id": "monthly", "type": "consumable"}"#)
            #expect(duplicate.status == 409)
            for (body, field) in [
                (#"{"id": "x", "type": "subscription"}"#, "period"),
                (#"{"id": "x", "type": "subscription", "period": "monthly"}"#, "period"),
                (#"{"id": "x", "type": "consumable", "period": "P1M"}"#, "period"),
                (#"{"id": "x", "type": "bundle"}"#, "type"),
                (#"{"id": "has space", "type": "consumable"}"#, "id"),
            ] {
                let reply = try await server.send(.post, "\(base)/products", key: app.secret, json: body)
                #expect(reply.status == 422, "\(body)")
                #expect(try reply.object()["field"] as? String == field, "\(body) → \(reply.body)")
            }
            let patched = try await server.send(
                .patch, "\(base)/products/monthly", key: app.secret,
                json: #"{"display_name": "Monthly", "entitlements": ["pro", "gold"]}"#)
            #expect(try patched.object()["entitlements"] as? [String] == ["gold", "pro"])
            let products = try await server.send(.get, "\(base)/products", key: app.secret).object()
            #expect((products["products"] as? [[String: Any]])?.compactMap { $0["id"] as? String } == ["lifetime", "monthly"])
            #expect(
                try await server.send(.post, "\(base)/entitlements", key: app.secret, json: #"{"id": "vip", "display_name": "VIP"}"#).status == 201)
            #expect(try await server.send(.post, "\(base)/entitlements", key: app.secret, json: #"{"id": "vip"}"#).status == 409)
            let entitlements = try await server.send(.get, "\(base)/entitlements", key: app.secret).object()
            #expect((entitlements["entitlements"] as? [[String: Any]])?.compactMap { $0["id"] as? String } == ["extra", "gold", "pro", "vip"])
            let renamed = try await server.send(.patch, "\(base)/entitlements/vip", key: app.secret, json: #"{"display_name": "Very Important"}"#)
            #expect(try renamed.string("display_name") == "Very Important")
            let untouched = try await server.send(.patch, "\(base)/entitlements/vip", key: app.secret, json: "{}")
            #expect(try untouched.string("display_name") == "Very Important")
            let cleared = try await server.send(.patch, "\(base)/entitlements/vip", key: app.secret, json: #"{"display_name": ""}"#)
            #expect(try cleared.object()["display_name"] == nil)
            #expect(try await server.send(.get, "\(base)/entitlements/nope", key: app.secret).status == 404)
            #expect(try await server.send(.get, "/admin/v1/apps/app_missing/products", key: server.adminKey).status == 404)
        }
    }

    @Test(arguments: TestDatabases.available) func frameworkErrorsUseTheSameBody(_ backend: TestBackend) async throws {
        try await TestServer.with(backend) { server in
            let unknown = try await server.send(.get, "/no/such/route", key: nil)
            #expect(unknown.status == 404)
            #expect(unknown.code == 7004)
            let huge = String(repeating: "x", count: 3 * 1024 * 1024)
            let tooLarge = try await server.send(.post, "/admin/v1/apps", key: server.adminKey, json: #"{"name": "\#(huge)"}"#)
            #expect(tooLarge.status == 413)
            #expect(tooLarge.code == 7000)
        }
    }

    @Test(arguments: TestDatabases.available)
    func newKeysAreShownOnceAndWork(_ backend: TestBackend) async throws {
        try await TestServer.with(backend) { server in
            let app = try await server.createApp()
            let created = try await server.send(.post, "/admin/v1/apps/\(app.id)/keys", key: app.secret, json: #"{"kind": "public_production"}"#)
            #expect(created.status == 201)
            let key = try #require(try created.string("key"))
            #expect(key.hasPrefix("rdm_pk_prod_"))
            #expect(try await server.send(.get, "/v1/subscribers/alice", key: key).status == 200)
            let bad = try await server.send(.post, "/admin/v1/apps/\(app.id)/keys", key: app.secret, json: #"{"kind": "admin"}"#)
            #expect(bad.status == 422)
            let listed = try await server.send(.get, "/admin/v1/apps/\(app.id)/keys", key: app.secret)
            #expect(!listed.body.contains(key))
        }
    }

    /// The generated handlers answer input the runtime cannot read in our error body, naming what it can.
    @Test(arguments: TestDatabases.available)
    func unreadableInputGetsOurErrorBody(_ backend: TestBackend) async throws {
        try await TestServer.with(backend) { server in
            let app = try await server.createAppWithCatalog()
            let badDate = try await server.send(
                .post, "/admin/v1/apps/\(app.id)/offers", key: app.secret,
                json:
                    #"{"product_id": "monthly", "reference_name": "x", "payment_mode": "free", "duration": "P1M", "eligibility": ["new"], "starts_at": "soon"}"#
            )
            #expect(badDate.status == 400)
            #expect(try badDate.string("message")?.contains("'soon' is not an ISO-8601 date") == true, "\(badDate.body)")
            #expect(try badDate.object()["code"] as? Int == 7000)
            let noBody = try await server.send(.patch, "/admin/v1/apps/\(app.id)", key: app.secret)
            #expect(noBody.status == 400)
            #expect(try noBody.object()["code"] as? Int == 7000)
            let plainText = try await server.send(
                .patch, "/admin/v1/apps/\(app.id)", key: app.secret, raw: #"{"name": "x"}"#, headers: [.contentType: "text/plain"])
            #expect(plainText.status == 415)
        }
    }
}

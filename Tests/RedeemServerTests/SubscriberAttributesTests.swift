import Foundation
import HTTPTypes
import RedeemTestSupport
import Testing

/// `POST /v1/subscribers/{id}/attributes` as RevenueCat documents it (REST API v1, "Update a Customer's Attributes";
/// docs/customers/customer-attributes): last write wins by `updated_at_ms`, null or "" unsets, reserved `$` keys and
/// the limits on custom ones, 7263 with `attribute_errors` while the valid keys are saved, an unknown ID created.
@Suite struct SubscriberAttributesTests {
    static func post(
        _ server: TestServer, _ key: String, user: String = "alice", _ attributes: [String: Any]
    ) async throws -> TestServer.Reply {
        let body = String(decoding: try JSONSerialization.data(withJSONObject: ["attributes": attributes]), as: UTF8.self)
        return try await server.send(.post, "/v1/subscribers/\(user)/attributes", key: key, json: body)
    }

    static func attributes(_ server: TestServer, _ app: CreatedAppKeys, user: String = "alice") async throws -> [String: String] {
        let info = try await server.send(.get, "/v1/subscribers/\(user)", key: app.secret).object()
        let attributes = info.value(at: "subscriber.subscriber_attributes") as? [String: [String: Any]] ?? [:]
        return attributes.compactMapValues { $0["value"] as? String }
    }

    @Test(arguments: TestDatabases.available)
    func theLatestWriteWinsAndEmptyUnsets(_ backend: TestBackend) async throws {
        try await TestServer.with(backend) { server in
            let app = try await server.createApp()
            // An unknown app user ID is created, never a 404 (the SDKs would resend forever).
            let first = try await Self.post(
                server, app.publicSandbox,
                [
                    "$displayName": ["value": "Ada", "updated_at_ms": 2000], "favorite_color": ["value": "blue", "updated_at_ms": 2000],
                    "$phoneNumber": ["value": "+15550100", "updated_at_ms": 2000],
                ])
            #expect(first.status == 200, "\(first.body)")
            #expect(RevenueCatDecoding.customerInfoProblems(first.body) == [])
            // An SDK's answer carries no attributes; a backend's read does.
            #expect((try first.object().value(at: "subscriber.subscriber_attributes") as? [String: Any] ?? [:]).isEmpty)
            #expect(try await Self.attributes(server, app) == ["$displayName": "Ada", "favorite_color": "blue", "$phoneNumber": "+15550100"])

            // An older write loses; a newer one wins; null (Android) and "" (iOS) unset.
            _ = try await Self.post(server, app.publicSandbox, ["$displayName": ["value": "Old", "updated_at_ms": 1000]])
            _ = try await Self.post(server, app.publicSandbox, ["favorite_color": ["value": "green", "updated_at_ms": 3000]])
            _ = try await Self.post(server, app.publicSandbox, ["$phoneNumber": ["value": NSNull(), "updated_at_ms": 3000]])
            _ = try await Self.post(server, app.publicSandbox, ["$displayName": ["value": "", "updated_at_ms": 3000]])
            #expect(try await Self.attributes(server, app) == ["favorite_color": "green"])

            // The admin API lists them for support, by any of the customer's IDs, sorted, saying who set them.
            let listed = try await server.send(.get, "/admin/v1/apps/\(app.id)/customers/alice/attributes", key: server.adminKey)
            #expect(listed.status == 200, "\(listed.body)")
            let rows = try #require(try listed.object()["attributes"] as? [[String: Any]])
            #expect(rows.map { $0["key"] as? String } == ["favorite_color"])
            #expect(rows.first?["set_with_secret_key"] as? Bool == false && rows.first?["updated_at"] as? String == "1970-01-01T00:00:03Z")
            let nobody = try await server.send(.get, "/admin/v1/apps/\(app.id)/customers/nobody/attributes", key: app.secret)
            #expect(nobody.status == 200 && nobody.body == #"{"attributes":[]}"#)
            #expect(try await server.send(.get, "/admin/v1/apps/\(app.id)/customers/alice/attributes", key: app.publicSandbox).status == 403)

            // Through the secret key too, answering the CustomerInfo with the attributes, stamped as sent.
            let backend = try await Self.post(server, app.secret, ["plan_source": ["value": "crm", "updated_at_ms": 1_787_392_800_000]])
            #expect(backend.status == 200)
            let stamped = try backend.object().value(at: "subscriber.subscriber_attributes.plan_source") as? [String: Any]
            #expect(stamped?["value"] as? String == "crm" && stamped?["updated_at_ms"] as? Int == 1_787_392_800_000)
        }
    }

    @Test(arguments: TestDatabases.available)
    func invalidKeysAreRefusedWhileTheOthersAreSaved(_ backend: TestBackend) async throws {
        try await TestServer.with(backend) { server in
            let app = try await server.createApp()
            let reply = try await Self.post(
                server, app.publicSandbox,
                [
                    "$email": ["value": "not-an-address", "updated_at_ms": 1000], "$madeUp": ["value": "x", "updated_at_ms": 1000],
                    "9lives": ["value": "x", "updated_at_ms": 1000], String(repeating: "k", count: 41): ["value": "x", "updated_at_ms": 1000],
                    "bio": ["value": String(repeating: "é", count: 501), "updated_at_ms": 1000], "ok_key": ["value": "kept", "updated_at_ms": 1000],
                ])
            #expect(reply.status == 400 && reply.code == 7263, "\(reply.body)")
            let errors = try #require(try reply.object()["attribute_errors"] as? [[String: String]])
            #expect(Set(errors.compactMap { $0["key_name"] }) == ["$email", "$madeUp", "9lives", String(repeating: "k", count: 41), "bio"])
            #expect(errors.first { $0["key_name"] == "$email" }?["message"] == "Value is not a valid email address.")
            #expect(errors.allSatisfy { !($0["message"] ?? "").isEmpty })
            #expect(try await Self.attributes(server, app) == ["ok_key": "kept"])
            // A value of exactly 500 characters and a key of exactly 40 are fine.
            let limits = try await Self.post(
                server, app.publicSandbox, [String(repeating: "k", count: 40): ["value": String(repeating: "é", count: 500), "updated_at_ms": 1]])
            #expect(limits.status == 200, "\(limits.body)")
        }
    }

    @Test(arguments: TestDatabases.available)
    func fiftyCustomAttributesAtMostAndDeviceIdentifiersAreSetOnce(_ backend: TestBackend) async throws {
        try await TestServer.with(backend) { server in
            let app = try await server.createApp()
            var fifty: [String: Any] = [:]
            for index in 0..<50 { fifty["key_\(index)"] = ["value": "v", "updated_at_ms": 1000] }
            #expect(try await Self.post(server, app.publicSandbox, fifty).status == 200)
            let more = try await Self.post(
                server, app.publicSandbox,
                ["key_50": ["value": "v", "updated_at_ms": 1000], "$displayName": ["value": "Ada", "updated_at_ms": 1000]])
            #expect(more.status == 400 && more.code == 7263)
            #expect((try more.object()["attribute_errors"] as? [[String: String]])?.map { $0["key_name"] } == ["key_50"])
            // Reserved keys do not count; replacing one of the fifty is fine.
            #expect(try await Self.post(server, app.publicSandbox, ["key_0": ["value": "w", "updated_at_ms": 2000]]).status == 200)
            #expect(try await Self.attributes(server, app).count == 51)

            // `$gpsAdId` once set stays; `$ip` and `$deviceVersion` sent as "true" ask the server to fill them, and
            // Redeem keeps neither.
            _ = try await Self.post(server, app.publicSandbox, ["$gpsAdId": ["value": "first", "updated_at_ms": 1000]])
            _ = try await Self.post(
                server, app.publicSandbox,
                [
                    "$gpsAdId": ["value": "second", "updated_at_ms": 2000], "$ip": ["value": "true", "updated_at_ms": 2000],
                    "$deviceVersion": ["value": "true", "updated_at_ms": 2000],
                ])
            let stored = try await Self.attributes(server, app)
            #expect(stored["$gpsAdId"] == "first" && stored["$ip"] == nil && stored["$deviceVersion"] == nil)
        }
    }

    @Test(arguments: TestDatabases.available)
    func malformedBodiesAre7264NeverA5xx(_ backend: TestBackend) async throws {
        try await TestServer.with(backend) { server in
            let app = try await server.createApp()
            var oversized: [String: Any] = [:]
            for index in 0...200 { oversized["k\(index)"] = ["value": "v", "updated_at_ms": 1] }
            let oversizedBody = String(decoding: try JSONSerialization.data(withJSONObject: ["attributes": oversized]), as: UTF8.self)
            for body in [
                "{}", #"{"attributes": []}"#, #"{"attributes": "x"}"#, #"{"attributes": {"a": "plain"}}"#,
                #"{"attributes": {"a": {"value": 5, "updated_at_ms": 1}}}"#, #"{"attributes": {"a": {"value": "x", "updated_at_ms": "soon"}}}"#,
                #"{"attributes": {"a": {"value": ["x"]}}}"#, oversizedBody,
            ] {
                let reply = try await server.send(.post, "/v1/subscribers/alice/attributes", key: app.publicSandbox, json: body)
                #expect(reply.status == 400 && reply.code == 7264, "\(body.prefix(80)): \(reply.status) \(reply.body)")
            }
            for body in ["not json", "[1]"] {
                let reply = try await server.send(.post, "/v1/subscribers/alice/attributes", key: app.publicSandbox, json: body)
                #expect(reply.status == 400 && [7000, 7264].contains(reply.code ?? 0), "\(body): \(reply.body)")
            }
            let badID = try await server.send(.post, "/v1/subscribers/null/attributes", key: app.publicSandbox, json: #"{"attributes": {}}"#)
            #expect(badID.status == 400 && badID.code == 7256)
            // Nothing was created by the refused requests.
            #expect(try await server.deps.store.findCustomer(appID: app.id, appUserID: .init(validating: "alice")) == nil)
        }
    }

    /// `$email` makes a customer findable in the console; set by the backend (the secret key), it also opens the portal
    /// to that address. One set through the public key, which every copy of the app holds, opens nothing.
    @Test(arguments: TestDatabases.available)
    func anEmailAttributeFindsTheCustomerAndABackendsOneReachesThePortal(_ backend: TestBackend) async throws {
        try await TestServer.with(backend) { server in
            let app = try await server.createAppWithCatalog()
            _ = try await server.grant(app, #"{"app_user_id": "app-user", "product_id": "monthly", "store": "rc_billing"}"#)
            _ = try await Self.post(server, app.publicSandbox, user: "app-user", ["$email": ["value": "Ada@Example.com", "updated_at_ms": 1000]])
            let found = try await server.deps.store.searchCustomers(appID: app.id, query: "ada@example.com", limit: 10, offset: 0)
            #expect(found.map(\.originalAppUserID) == ["app-user"] && found.first?.matched == "e-mail attribute")
            #expect(try await server.deps.store.purchases(appID: app.id, email: "ada@example.com").isEmpty)

            _ = try await Self.post(server, app.secret, user: "app-user", ["$email": ["value": "Ada@Example.com", "updated_at_ms": 2000]])
            let reachable = try await server.deps.store.purchases(appID: app.id, email: "ada@example.com")
            #expect(reachable.map(\.productID) == ["monthly"])
            // The app overwriting it takes the portal's trust away again.
            _ = try await Self.post(server, app.publicSandbox, user: "app-user", ["$email": ["value": "ada@example.com", "updated_at_ms": 3000]])
            #expect(try await server.deps.store.purchases(appID: app.id, email: "ada@example.com").isEmpty)
        }
    }

    /// Webhook events carry the customer's attributes, as RevenueCat's do; a redemption's (the one-statement path on
    /// PostgreSQL) carries the claimant's.
    @Test(arguments: TestDatabases.available)
    func webhookEventsCarryTheCustomersAttributes(_ backend: TestBackend) async throws {
        try await WebhookReceiver.with { receiver in
            try await TestServer.with(backend) { server in
                let app = try await server.createAppWithCatalog()
                _ = try await WebhookTests.register(server, app, receiver)
                _ = try await Self.post(server, app.publicSandbox, user: "alice", ["plan_source": ["value": "crm", "updated_at_ms": 1000]])
                _ = try await server.grant(app, #"{"app_user_id": "alice", "product_id": "monthly"}"#)

                // An identified claimant: on PostgreSQL the one-statement path takes the redemption.
                let device = "ada-user"
                _ = try await Self.post(server, app.publicSandbox, user: device, ["$displayName": ["value": "Ada", "updated_at_ms": 2000]])
                let bought = try await server.grant(
                    app, #"{"app_user_id": "$RCAnonymousID:abcdefabcdefabcdefabcdefabcdef02", "product_id": "lifetime", "email": "ada@example.com"}"#)
                let token = try RedemptionAPITests.token(from: bought)
                #expect(try await RedemptionAPITests.redeem(server, app, user: device, token: token).status == 200)
                _ = await server.deps.webhooks.drain()

                let events = try receiver.received().map(WebhookTests.event)
                let purchase = try #require(events.first { $0["type"] as? String == "INITIAL_PURCHASE" })
                let attributes = purchase["subscriber_attributes"] as? [String: [String: Any]]
                #expect(attributes?["plan_source"]?["value"] as? String == "crm" && attributes?["plan_source"]?["updated_at_ms"] as? Int == 1000)
                let redemption = try #require(events.first { $0["type"] as? String == "REDEMPTION" })
                #expect((redemption["subscriber_attributes"] as? [String: [String: Any]])?["$displayName"]?["value"] as? String == "Ada")
            }
        }
    }
}

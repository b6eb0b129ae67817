import Foundation
import HTTPTypes
import RedeemTestSupport
import Testing

/// `POST /v1/subscribers/identify` (`Purchases.logIn`) and Android's restore alias, by RevenueCat's documented rules
/// (docs/customers/user-ids: "How logIn works"): from an anonymous ID the two become one customer; otherwise the app
/// switches user and nothing moves. 201 when the new ID was created, 200 when it existed.
@Suite struct LogInTests {
    static let anonymous = "$RCAnonymousID:0a1b2c3d4e5f40718293a4b5c6d7e8f9"
    static let otherAnonymous = "$RCAnonymousID:5e6f7a8b9c0d4e1f8a2b3c4d5e6f7a8b"

    static func logIn(_ server: TestServer, _ app: CreatedAppKeys, from current: String, to new: String) async throws -> TestServer.Reply {
        let body = String(decoding: try JSONSerialization.data(withJSONObject: ["app_user_id": current, "new_app_user_id": new]), as: UTF8.self)
        return try await server.send(.post, "/v1/subscribers/identify", key: app.publicProduction, json: body)
    }

    static func entitlements(_ server: TestServer, _ app: CreatedAppKeys, _ user: String) async throws -> [String] {
        let path = "/v1/subscribers/" + RevenueCatFixtures.pathID(user, .android)
        let info = try await server.send(.get, path, key: app.publicProduction).object()
        return ((info.value(at: "subscriber.entitlements") as? [String: Any]) ?? [:]).keys.sorted()
    }

    @Test(arguments: TestDatabases.available)
    func anAnonymousBuyerKeepsTheirPurchaseUnderANewID(_ backend: TestBackend) async throws {
        try await TestServer.with(backend) { server in
            let app = try await server.createAppWithCatalog()
            _ = try await server.grant(app, #"{"app_user_id": "\#(Self.anonymous)", "product_id": "lifetime"}"#)
            let reply = try await Self.logIn(server, app, from: Self.anonymous, to: "user-1")
            #expect(reply.status == 201, "\(reply.body)")
            #expect(RevenueCatDecoding.customerInfoProblems(reply.body) == [])
            #expect(try reply.string("subscriber.entitlements.pro.product_identifier") == "lifetime")
            #expect(try reply.string("subscriber.original_app_user_id") == Self.anonymous)
            // One customer under both IDs, and logging in again is a 200 that changes nothing.
            #expect(try await Self.entitlements(server, app, "user-1") == ["extra", "pro"])
            #expect(try await Self.entitlements(server, app, Self.anonymous) == ["extra", "pro"])
            #expect(try await Self.logIn(server, app, from: Self.anonymous, to: "user-1").status == 200)
            #expect(try await Self.logIn(server, app, from: "user-1", to: "user-1").status == 200)
        }
    }

    @Test(arguments: TestDatabases.available)
    func anAnonymousCustomerMergesIntoAnExistingID(_ backend: TestBackend) async throws {
        try await TestServer.with(backend) { server in
            let app = try await server.createAppWithCatalog()
            _ = try await server.grant(app, #"{"app_user_id": "user-2", "product_id": "monthly"}"#)
            _ = try await server.grant(app, #"{"app_user_id": "\#(Self.anonymous)", "product_id": "lifetime"}"#)
            let reply = try await Self.logIn(server, app, from: Self.anonymous, to: "user-2")
            #expect(reply.status == 200, "\(reply.body)")
            #expect(try reply.string("subscriber.original_app_user_id") == "user-2")
            let products = try reply.object().value(at: "subscriber.non_subscriptions") as? [String: Any]
            #expect(products?.keys.sorted() == ["lifetime"])
            #expect(try await Self.entitlements(server, app, Self.anonymous) == ["extra", "pro"])
        }
    }

    @Test(arguments: TestDatabases.available)
    func nothingMovesFromAnIdentifiedIDOrToAnIDWithAnAnonymousHistory(_ backend: TestBackend) async throws {
        try await TestServer.with(backend) { server in
            let app = try await server.createAppWithCatalog()
            // user-3 logged in on another device while anonymous there: its history stays apart from this device's.
            _ = try await server.grant(app, #"{"app_user_id": "\#(Self.otherAnonymous)", "product_id": "monthly"}"#)
            #expect(try await Self.logIn(server, app, from: Self.otherAnonymous, to: "user-3").status == 201)
            _ = try await server.grant(app, #"{"app_user_id": "\#(Self.anonymous)", "product_id": "lifetime"}"#)
            let switched = try await Self.logIn(server, app, from: Self.anonymous, to: "user-3")
            #expect(switched.status == 200, "\(switched.body)")
            #expect(try await Self.entitlements(server, app, "user-3") == ["pro"])
            #expect(try await Self.entitlements(server, app, Self.anonymous) == ["extra", "pro"])

            // From an identified ID the app only switches user: 201 for a new one, 200 for a known one; nothing moves.
            _ = try await server.grant(app, #"{"app_user_id": "user-4", "product_id": "lifetime"}"#)
            let fresh = try await Self.logIn(server, app, from: "user-4", to: "user-5")
            #expect(fresh.status == 201)
            #expect(try await Self.entitlements(server, app, "user-5") == [])
            #expect(try await Self.logIn(server, app, from: "user-4", to: "user-3").status == 200)
            #expect(try await Self.entitlements(server, app, "user-4") == ["extra", "pro"])
            #expect(try await Self.entitlements(server, app, "user-3") == ["pro"])
        }
    }

    @Test(arguments: TestDatabases.available)
    func badIDsAreRevenueCatsCodes(_ backend: TestBackend) async throws {
        try await TestServer.with(backend) { server in
            let app = try await server.createApp()
            for (current, new, code) in [
                (Self.anonymous, "", 7220), ("", "user-1", 7220), (Self.anonymous, "null", 7256), (Self.anonymous, "a/b", 7256),
                (Self.anonymous, String(repeating: "x", count: 101), 7256), ("$RCAnonymousID:zz", "user-1", 7256),
            ] {
                let reply = try await Self.logIn(server, app, from: current, to: new)
                #expect(reply.status == 400 && reply.code == code, "\(current) → \(new): \(reply.body)")
            }
            for body in [#"{"app_user_id": "a"}"#, #"{"new_app_user_id": 5, "app_user_id": "a"}"#, "[]", "not json"] {
                let reply = try await server.send(.post, "/v1/subscribers/identify", key: app.publicProduction, json: body)
                #expect(reply.status == 400 && reply.code == 7000, "\(body): \(reply.body)")
            }
            // The secret key belongs to backends, the admin key to no app.
            #expect(
                try await server.send(.post, "/v1/subscribers/identify", key: server.adminKey, json: #"{"app_user_id": "a", "new_app_user_id": "b"}"#)
                    .status == 403)
        }
    }

    /// Android's restore: the current anonymous ID joins the customer of the ID Block Store kept; an unknown old ID
    /// becomes an alias of the current customer; an identified current ID changes nothing.
    @Test(arguments: TestDatabases.available)
    func androidsRestoreAliasJoinsTheEarlierAnonymousCustomer(_ backend: TestBackend) async throws {
        try await TestServer.with(backend) { server in
            let app = try await server.createAppWithCatalog()
            _ = try await server.grant(app, #"{"app_user_id": "\#(Self.otherAnonymous)", "product_id": "lifetime"}"#)
            let alias = { (old: String, current: String) in
                let body = String(
                    decoding: try JSONSerialization.data(withJSONObject: ["app_user_id": old, "new_app_user_id": current]), as: UTF8.self)
                return try await server.send(
                    .post, "/v1/subscribers/\(RevenueCatFixtures.pathID(old, .android))/alias", key: app.publicProduction, json: body)
            }
            let reply = try await alias(Self.otherAnonymous, Self.anonymous)
            #expect(reply.status == 200, "\(reply.body)")
            #expect(try await Self.entitlements(server, app, Self.anonymous) == ["extra", "pro"])

            let unknown = "$RCAnonymousID:99999999999999999999999999999999"
            let third = "$RCAnonymousID:77777777777777777777777777777777"
            #expect(try await alias(unknown, third).status == 200)
            #expect(try await Self.entitlements(server, app, unknown) == [])

            _ = try await server.grant(app, #"{"app_user_id": "user-9", "product_id": "monthly"}"#)
            #expect(try await alias(Self.anonymous, "user-9").status == 200)
            #expect(try await Self.entitlements(server, app, "user-9") == ["pro"])
            let customer = try await server.deps.store.findCustomer(appID: app.id, appUserID: .init(validating: "user-9"))
            #expect(customer?.aliases == ["user-9"])
        }
    }

    /// Two IDs becoming one customer is `SUBSCRIBER_ALIAS` to webhooks, as a redemption's merge is; switching user is not.
    @Test(arguments: TestDatabases.available)
    func aliasingIsSentToWebhooks(_ backend: TestBackend) async throws {
        try await WebhookReceiver.with { receiver in
            try await TestServer.with(backend) { server in
                let app = try await server.createAppWithCatalog()
                _ = try await WebhookTests.register(server, app, receiver)
                let body = #"{"app_user_id": "\#(Self.anonymous)", "new_app_user_id": "user-1"}"#
                #expect(try await server.send(.post, "/v1/subscribers/identify", key: app.publicSandbox, json: body).status == 201)
                #expect(try await Self.logIn(server, app, from: "user-1", to: "user-2").status == 201)
                _ = await server.deps.webhooks.drain()
                let events = try receiver.received().map(WebhookTests.event)
                #expect(events.map { $0["type"] as? String } == ["SUBSCRIBER_ALIAS"])
                #expect(events.first?["aliases"] as? [String] == [Self.anonymous, "user-1"])
                #expect(events.first?["original_app_user_id"] as? String == Self.anonymous)
                #expect(events.first?["environment"] as? String == "SANDBOX")
            }
        }
    }

    /// Twenty devices logging in as one new user at once: one creates it (201) and brings its anonymous history; for the
    /// others the user exists and has an anonymous ID of its own, so they switch to it (200) and nothing moves. None fails.
    @Test(arguments: TestDatabases.available)
    func devicesLoggingInAsOneNewUserAtOnceAllSucceed(_ backend: TestBackend) async throws {
        try await TestServer.with(backend, setup: .live) { server in
            let app = try await server.createAppWithCatalog()
            let devices = (0..<20).map { String(format: "$RCAnonymousID:%032x", $0 + 1) }
            let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
                for device in devices { group.addTask { try await Self.logIn(server, app, from: device, to: "shared-user").status } }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(statuses.sorted() == [Int](repeating: 200, count: 19) + [201], "\(statuses)")
            let customer = try #require(try await server.deps.store.findCustomer(appID: app.id, appUserID: .init(validating: "shared-user")))
            #expect(customer.aliases.count == 2 && customer.aliases.contains("shared-user"))
            #expect(customer.aliases.filter { devices.contains($0) }.count == 1)
        }
    }
}

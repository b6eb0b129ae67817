import Foundation
import HTTPTypes
import Logging
import RedeemCore
import RedeemServer
import RedeemTestSupport
import RedeemWebhooks
import Testing

/// Server notifications to a real HTTP receiver on loopback.
@Suite struct WebhookTests {
    /// Registers the receiver for `app` and returns the signing secret.
    static func register(_ server: TestServer, _ app: CreatedAppKeys, _ receiver: WebhookReceiver) async throws -> String {
        let reply = try await server.send(
            .post, "/admin/v1/apps/\(app.id)/webhooks", key: app.secret,
            json: #"{"url": "\#(receiver.url)", "authorization": "Bearer hook-secret"}"#)
        #expect(reply.status == 201, "\(reply.body)")
        return try #require(try reply.string("signing_secret"))
    }

    static func event(_ request: WebhookReceiver.Received) throws -> [String: Any] {
        let json = try JSONSerialization.jsonObject(with: Data(request.body.utf8)) as? [String: Any]
        #expect(json?["api_version"] as? String == "1.0")
        return try #require(json?["event"] as? [String: Any])
    }

    @Test(arguments: TestDatabases.available)
    func purchasesAreDeliveredSignedWithTheAuthorizationHeader(_ backend: TestBackend) async throws {
        try await WebhookReceiver.with { receiver in
            try await TestServer.with(backend) { server in
                let app = try await server.createAppWithCatalog()
                let secret = try await Self.register(server, app, receiver)
                _ = try await server.grant(app, #"{"app_user_id": "alice", "product_id": "monthly", "price": {"amount": "4.99", "currency": "USD"}}"#)
                #expect(await server.deps.webhooks.drain() == 1)
                let request = try #require(try receiver.received().first)
                #expect(request.headers["authorization"] == "Bearer hook-secret")
                let signature = try #require(request.headers["redeem-signature"])
                try WebhookSignature.verify(body: Array(request.body.utf8), header: signature, secret: secret, now: server.deps.clock.now())
                #expect(throws: (any Error).self) {
                    try WebhookSignature.verify(
                        body: Array(request.body.utf8) + [0x20], header: signature, secret: secret, now: server.deps.clock.now())
                }
                let event = try Self.event(request)
                #expect(event["type"] as? String == "INITIAL_PURCHASE")
                #expect(event["app_user_id"] as? String == "alice")
                #expect(event["product_id"] as? String == "monthly")
                #expect(event["entitlement_ids"] as? [String] == ["pro"])
                #expect(await server.deps.webhooks.drain() == 0)
                let listed = try await server.send(.get, "/admin/v1/apps/\(app.id)/webhooks", key: app.secret)
                #expect(!listed.body.contains(secret))
            }
        }
    }

    @Test(arguments: TestDatabases.available) func failuresAreRetriedWithTheSameEventAndSurviveARestart(_ backend: TestBackend) async throws {
        let clock = ManualClock(TestServer.start)
        try await WebhookReceiver.with(failFirst: 1) { receiver in
            try await TestServer.with(backend, clock: clock) { server in
                let app = try await server.createAppWithCatalog()
                _ = try await Self.register(server, app, receiver)
                _ = try await server.grant(app, #"{"app_user_id": "bob", "product_id": "lifetime"}"#)
                #expect(await server.deps.webhooks.drain() == 0)  // 500
                #expect(await server.deps.webhooks.drain() == 0)  // not due yet
                #expect(try receiver.received().count == 1)
                // A fresh worker, as after a restart, finds the delivery once its retry is due (5 minutes).
                clock.advance(by: 300)
                let restarted = WebhookDeliveryWorker(store: server.deps.store, clock: clock, logger: Logger(label: "test"))
                #expect(await restarted.drain() == 1)
                let requests = try receiver.received()
                #expect(requests.map(\.status) == [500, 200])
                #expect(try Self.event(requests[0])["id"] as? String == (try Self.event(requests[1])["id"] as? String))
                let deliveries = try await server.send(.get, "/admin/v1/apps/\(app.id)/webhooks/deliveries", key: app.secret).object()
                let delivery = try #require((deliveries["deliveries"] as? [[String: Any]])?.first)
                let id = try #require(delivery["id"] as? String)
                let detail = try await server.send(.get, "/admin/v1/apps/\(app.id)/webhooks/deliveries/\(id)", key: app.secret).object()
                #expect((detail["attempts"] as? [[String: Any]])?.compactMap { $0["status_code"] as? Int } == [500, 200])
                // Replay sends the same event again.
                #expect(try await server.send(.post, "/admin/v1/apps/\(app.id)/webhooks/deliveries/\(id)/replay", key: app.secret).status == 202)
                #expect(await restarted.drain() == 1)
                #expect(try receiver.received().count == 3)
                #expect(try Self.event(try receiver.received()[2])["id"] as? String == (try Self.event(requests[0])["id"] as? String))
            }
        }
    }

    @Test(arguments: TestDatabases.available)
    func redemptionsReportTheirAssociation(_ backend: TestBackend) async throws {
        try await WebhookReceiver.with { receiver in
            try await TestServer.with(backend) { server in
                let app = try await server.createAppWithCatalog()
                _ = try await Self.register(server, app, receiver)
                let anonymous = "$RCAnonymousID:0123456789abcdef0123456789abcdef"
                let aliased = try RedemptionAPITests.token(
                    from: try await server.grant(app, #"{"app_user_id": "\#(anonymous)", "product_id": "lifetime"}"#))
                #expect(try await RedemptionAPITests.redeem(server, app, user: "alice", token: aliased).status == 200)
                let transferred = try RedemptionAPITests.token(from: try await server.grant(app, #"{"app_user_id": "bob", "product_id": "monthly"}"#))
                #expect(try await RedemptionAPITests.redeem(server, app, user: "carol", token: transferred).status == 200)
                #expect(await server.deps.webhooks.drain() == 6)
                let events = try receiver.received().map(Self.event)
                #expect(
                    events.compactMap { $0["type"] as? String }.sorted() == [
                        "INITIAL_PURCHASE", "NON_RENEWING_PURCHASE", "REDEMPTION", "REDEMPTION", "SUBSCRIBER_ALIAS", "TRANSFER",
                    ])
                let transfer = try #require(events.first { $0["type"] as? String == "TRANSFER" })
                #expect(transfer["transferred_from"] as? [String] == ["bob"])
                #expect(transfer["transferred_to"] as? [String] == ["carol"])
                let redemption = try #require(events.first { ($0["redemption"] as? [String: Any])?["association"] as? String == "alias" })
                #expect(redemption["app_user_id"] as? String == "alice")
            }
        }
    }

    @Test(arguments: TestDatabases.available) func endpointsMustBeHTTPSAndTestEventsArrive(_ backend: TestBackend) async throws {
        try await WebhookReceiver.with { receiver in
            try await TestServer.with(backend) { server in
                let app = try await server.createApp()
                #expect(
                    try await server.send(.post, "/admin/v1/apps/\(app.id)/webhooks", key: app.secret, json: #"{"url": "http://example.com/x"}"#)
                        .status == 422)
                _ = try await Self.register(server, app, receiver)
                #expect(try await server.send(.post, "/admin/v1/apps/\(app.id)/webhooks/test", key: app.secret).status == 202)
                #expect(await server.deps.webhooks.drain() == 1)
                #expect(try Self.event(try #require(try receiver.received().first))["type"] as? String == "TEST")
            }
        }
    }
}

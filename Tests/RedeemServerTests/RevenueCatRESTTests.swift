import Foundation
import HTTPTypes
import RedeemCore
import RedeemTestSupport
import Testing

/// RevenueCat's REST API v1 for backends (the secret key): erasure, promotional grants and their revocation, with
/// RevenueCat's statuses and bodies (api-v1.yaml: `DELETE /subscribers/{id}`, `…/entitlements/{id}/promotional`,
/// `…/revoke_promotionals`).
@Suite struct RevenueCatRESTTests {
    static let email = "Erase.Me@Example.com"

    /// Every text value in every table, lowercased, as one list: what an erased customer must be absent from.
    static func everyText(_ server: TestServer) async throws -> [String] {
        try await server.deps.store.database.read { connection in
            let tables =
                connection.engine == .postgres
                ? try await connection.query("SELECT table_name AS name FROM information_schema.tables WHERE table_schema = 'public'")
                : try await connection.query("SELECT name FROM sqlite_master WHERE type = 'table'")
            var texts: [String] = []
            for table in try tables.map({ try $0.string("name") }) {
                for row in try await connection.query("SELECT * FROM \(unsafeRaw: "\"\(table)\"")") {
                    for case .text(let text) in row.values { texts.append(table + ": " + text.lowercased()) }
                }
            }
            return texts
        }
    }

    @Test(arguments: TestDatabases.available)
    func anErasedCustomerLeavesNoAddressOrIDBehindAndThePurchasesStay(_ backend: TestBackend) async throws {
        try await WebhookReceiver.with { receiver in
            try await SMTPTestServer.with { smtp in
                try await TestServer.with(backend, mail: try EmailFlowTests.settings(port: smtp.port)) { server in
                    let app = try await server.createAppWithCatalog()
                    _ = try await WebhookTests.register(server, app, receiver)
                    let anonymous = "$RCAnonymousID:0e1d2c3b4a5968778695a4b3c2d1e0ff"
                    // A web purchase with a receipt e-mail and a link, redeemed into "user-erase"; attributes; a grant;
                    // a portal sign-in link; and a bystander whose data must stay.
                    let bought = try await server.grant(
                        app,
                        #"{"app_user_id": "\#(anonymous)", "product_id": "monthly", "email": "\#(Self.email)", "store": "rc_billing", "is_sandbox": true}"#
                    )
                    let token = try RedemptionAPITests.token(from: bought)
                    #expect(try await RedemptionAPITests.redeem(server, app, user: "user-erase", token: token).status == 200)
                    _ = try await SubscriberAttributesTests.post(
                        server, app.secret, user: "user-erase",
                        [
                            "$email": ["value": "erase.me@example.com", "updated_at_ms": 1],
                            "$displayName": ["value": "Ada Erasable", "updated_at_ms": 1],
                        ])
                    #expect(
                        try await server.send(
                            .post, "/v1/subscribers/user-erase/entitlements/extra/promotional", key: app.secret, json: #"{"duration": "weekly"}"#
                        ).status == 201)
                    #expect(try await PortalTests.ask(server, app.id, email: Self.email).status == 200)
                    _ = try await server.grant(
                        app, #"{"app_user_id": "bystander", "product_id": "lifetime", "email": "keep.me@example.com", "store": "rc_billing"}"#)
                    _ = await server.deps.mailer?.drain()
                    let before = try await Self.everyText(server)
                    #expect(before.contains { $0.contains("erase.me@example.com") } && before.contains { $0.contains("user-erase") })
                    let purchasesBefore = try await server.deps.store.database.read { try await $0.query("SELECT id FROM purchases") }.count

                    let public_ = try await server.send(.delete, "/v1/subscribers/user-erase", key: app.publicProduction)
                    #expect(public_.status == 403)
                    let reply = try await server.send(.delete, "/v1/subscribers/user-erase", key: app.secret)
                    #expect(reply.status == 200 && reply.body == #"{"app_user_id":"user-erase","deleted":true}"#, "\(reply.body)")

                    let after = try await Self.everyText(server)
                    for trace in ["erase.me@example.com", "user-erase", anonymous.lowercased(), "ada erasable"] {
                        #expect(!after.contains { $0.contains(trace) }, "\(trace): \(after.filter { $0.contains(trace) })")
                    }
                    #expect(after.contains { $0.contains("keep.me@example.com") } && after.contains { $0.contains("bystander") })
                    // The purchases stay for the books; the erasure is audited; the subscription renews no more.
                    let purchases = try await server.deps.store.database.read { try await $0.query("SELECT * FROM purchases") }
                    #expect(purchases.count == purchasesBefore)
                    let monthly = try #require(purchases.first { $0.optionalString("product_id") == "monthly" })
                    #expect(monthly.optionalString("email") == nil && monthly.optionalInt("unsubscribe_detected_at") != nil)
                    let audit = try await server.deps.store.database.read { try await $0.query("SELECT action FROM audit_log") }
                    #expect(try audit.map { try $0.string("action") }.contains("customer.erase"))

                    // The ID is free again; a second erasure finds no one.
                    let fresh = try await server.send(.get, "/v1/subscribers/user-erase", key: app.secret)
                    #expect((try fresh.object().value(at: "subscriber.entitlements") as? [String: Any])?.isEmpty == true)
                    let again = try await server.send(.delete, "/v1/subscribers/nobody-here", key: app.secret)
                    #expect(again.status == 404 && again.code == 7004)
                }
            }
        }
    }

    @Test(arguments: TestDatabases.available)
    func promotionalGrantsAnswer201AndRevokingEndsThemAll(_ backend: TestBackend) async throws {
        let clock = ManualClock(TestServer.start)
        try await TestServer.with(backend, clock: clock) { server in
            let app = try await server.createAppWithCatalog()
            let grant = { (body: String) in
                try await server.send(.post, "/v1/subscribers/carol/entitlements/pro/promotional", key: app.secret, json: body)
            }
            let monthly = try await grant(try RevenueCatFixtures.text("rest/promotional.request.duration.json"))
            #expect(monthly.status == 201, "\(monthly.body)")
            #expect(RevenueCatDecoding.customerInfoProblems(monthly.body) == [])
            #expect(try monthly.string("subscriber.entitlements.pro.product_identifier") == "rc_promo_pro_monthly")
            // Its older `start_time_ms` (2026-08-22T10:00Z) moves the end of the month, not the start.
            #expect(try monthly.string("subscriber.entitlements.pro.expires_date") == "2026-09-22T10:00:00Z")
            #expect(try monthly.string("subscriber.subscriptions.rc_promo_pro_monthly.store") == "promotional")
            // A backend's answer carries the attributes object.
            #expect(try monthly.object().value(at: "subscriber.subscriber_attributes") as? [String: Any] != nil)

            // `end_time_ms` wins over `duration`.
            let until = try await server.send(
                .post, "/v1/subscribers/frank/entitlements/pro/promotional", key: app.secret,
                json: #"{"end_time_ms": 1785542400000, "duration": "daily"}"#)
            #expect(try until.string("subscriber.entitlements.pro.expires_date") == "2026-08-01T00:00:00Z")
            let started = try await server.send(
                .post, "/v1/subscribers/dave/entitlements/pro/promotional", key: app.secret,
                json: #"{"duration": "weekly", "start_time_ms": 1780185600000}"#)
            #expect(try started.string("subscriber.entitlements.pro.expires_date") == "2026-06-07T00:00:00Z")
            let lifetime = try await server.send(
                .post, "/v1/subscribers/erin/entitlements/extra/promotional", key: app.secret, json: #"{"duration": "lifetime"}"#)
            #expect(lifetime.status == 201)
            #expect(try lifetime.object().value(at: "subscriber.entitlements.extra.expires_date") is NSNull)

            for (body, field) in [
                ("{}", "duration"), (#"{"duration": "fortnightly"}"#, "duration"), (#"{"end_time_ms": 1000}"#, "end_time_ms"),
                (#"{"duration": "daily", "start_time_ms": 1000}"#, "start_time_ms"), (#"{"end_time_ms": "soon"}"#, "end_time_ms"),
                (#"{"duration": "monthly", "start_time_ms": 9223372036854775806}"#, "start_time_ms"),
                (#"{"end_time_ms": 9223372036854775806}"#, "end_time_ms"),
            ] {
                let reply = try await grant(body)
                #expect(reply.status == 400 && reply.code == 7000, "\(body): \(reply.status) \(reply.body)")
                #expect(reply.body.contains(field), "\(body): \(reply.body)")
            }
            let badEntitlement = try await server.send(
                .post, "/v1/subscribers/carol/entitlements/no%20spaces/promotional", key: app.secret, json: #"{"duration": "daily"}"#)
            #expect(badEntitlement.status == 400, "\(badEntitlement.body)")
            #expect(try await grant(#"{"duration": "daily"}"#).status == 201)
            #expect(
                try await server.send(
                    .post, "/v1/subscribers/carol/entitlements/pro/promotional", key: app.publicProduction, json: #"{"duration": "daily"}"#
                )
                .status == 403)

            let revoked = try await server.send(.post, "/v1/subscribers/carol/entitlements/pro/revoke_promotionals", key: app.secret)
            #expect(revoked.status == 200, "\(revoked.body)")
            #expect(RevenueCatDecoding.customerInfoProblems(revoked.body) == [])
            // Ended now: CustomerInfo keeps an ended entitlement, with its end date.
            #expect(try revoked.string("subscriber.entitlements.pro.expires_date") == "2026-06-01T00:00:00Z")
            // Revoking what is not there is a 200 that changes nothing, for a known or a new ID.
            #expect(try await server.send(.post, "/v1/subscribers/carol/entitlements/pro/revoke_promotionals", key: app.secret).status == 200)
            #expect(try await server.send(.post, "/v1/subscribers/zed/entitlements/pro/revoke_promotionals", key: app.secret).status == 200)
            // The other customers' grants are untouched.
            #expect(try await LogInTests.entitlements(server, app, "dave") == ["pro"])
        }
    }
}

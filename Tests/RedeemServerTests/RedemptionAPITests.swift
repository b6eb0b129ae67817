import Foundation
import HTTPTypes
import HummingbirdTesting
import RedeemCore
import RedeemTestSupport
import Testing

@Suite struct RedemptionAPITests {
    static func token(from reply: TestServer.Reply) throws -> String {
        let url = try #require(try reply.string("redemption_https_url"))
        return String(try #require(url.split(separator: "/").last))
    }

    static func redeem(_ server: TestServer, _ app: CreatedAppKeys, user: String, token: String) async throws -> TestServer.Reply {
        try await server.send(
            .post, "/v1/subscribers/redeem_purchase", key: app.publicProduction,
            json: #"{"app_user_id": "\#(user)", "redemption_token": "\#(token)"}"#)
    }

    @Test(arguments: TestDatabases.available)
    func grantsCarryBothLinkForms(_ backend: TestBackend) async throws {
        try await TestServer.with(backend) { server in
            let app = try await server.createAppWithCatalog()
            let reply = try await server.grant(
                app, #"{"app_user_id": "$RCAnonymousID:0123456789abcdef0123456789abcdef", "product_id": "monthly", "email": "buyer@example.com"}"#)
            let token = try Self.token(from: reply)
            #expect(token.count == 43)
            #expect(try reply.string("redemption_url") == "\(app.scheme)://redeem_web_purchase?redemption_token=\(token)")
            #expect(try reply.string("redemption_https_url") == "https://pay.example.com/r/\(token)")
            #expect(try reply.string("redemption_expires_at") == "2026-06-01T01:00:00Z")
            // Only the hash is stored.
            let stored = try await server.deps.store.database.read { try await $0.query("SELECT token_hash FROM redemption_tokens") }
            #expect(try stored.map { try $0.string("token_hash") } == [SecretToken.hash(token)])
        }
    }

    @Test(arguments: TestDatabases.available)
    func successReturnsCustomerInfoAndRedemptionInfo(_ backend: TestBackend) async throws {
        try await TestServer.with(backend) { server in
            let app = try await server.createAppWithCatalog()
            let anonymous = "$RCAnonymousID:0123456789abcdef0123456789abcdef"
            let token = try Self.token(
                from: try await server.grant(
                    app,
                    #"{"app_user_id": "\#(anonymous)", "product_id": "monthly", "email": "buyer@example.com", "store": "stripe", "store_transaction_id": "sub_123"}"#
                ))
            let reply = try await Self.redeem(server, app, user: "alice", token: token)
            #expect(reply.status == 200, "\(reply.body)")
            let json = try reply.object()
            #expect(json.value(at: "subscriber.entitlements.pro.product_identifier") as? String == "monthly")
            #expect(json.value(at: "subscriber.original_app_user_id") as? String == "alice")
            #expect(json.value(at: "redemption_info.purchaser_email") as? String == "buyer@example.com")
            #expect(json.value(at: "redemption_info.owner_app_user_id") as? String == "alice")
            #expect(json.value(at: "redemption_info.store_identifiers.store_transaction_id") as? String == "sub_123")
            #expect(json.value(at: "redemption_info.entitlements") as? [String] == ["pro"])
            // The anonymous buyer and alice are now one customer.
            let info = try await server.send(.get, "/v1/subscribers/\(anonymous)", key: app.publicProduction).object()
            #expect(info.value(at: "subscriber.original_app_user_id") as? String == "alice")
            // Presenting it again as alice is fine; as anyone else, 7852.
            #expect(try await Self.redeem(server, app, user: "alice", token: token).status == 200)
            let other = try await Self.redeem(server, app, user: "bob", token: token)
            #expect(other.status == 403)
            #expect(other.code == 7852)
            // Support sees every attempt.
            let purchaseID = try #require(json.value(at: "redemption_info.purchase_id") as? String)
            let detail = try await server.send(.get, "/admin/v1/apps/\(app.id)/purchases/\(purchaseID)", key: app.secret).object()
            let attempts = try #require(detail["redemption_attempts"] as? [[String: Any]])
            // (All three share one instant on the test clock, so compare without order.)
            #expect(attempts.compactMap { $0["outcome"] as? String }.sorted() == ["belongs_to_other_user", "redeemed", "redeemed"])
            #expect(attempts.compactMap { $0["app_user_id"] as? String }.sorted() == ["alice", "alice", "bob"])
        }
    }

    @Test(arguments: TestDatabases.available)
    func failuresUseRevenueCatCodes(_ backend: TestBackend) async throws {
        let clock = ManualClock(TestServer.start)
        try await TestServer.with(backend, clock: clock) { server in
            let app = try await server.createAppWithCatalog()
            let unknown = try await Self.redeem(server, app, user: "alice", token: RedemptionLink.newToken())
            #expect(unknown.status == 400)
            #expect(unknown.code == 7849)
            let malformed = try await Self.redeem(server, app, user: "alice", token: "not a token")
            #expect(malformed.code == 7849)
            #expect(
                try await server.send(.post, "/v1/subscribers/redeem_purchase", key: app.publicProduction, json: #"{"app_user_id": "a"}"#).status
                    == 400)
            #expect(try await Self.redeem(server, app, user: "null", token: RedemptionLink.newToken()).code == 7256)
            #expect(try await server.send(.post, "/v1/subscribers/redeem_purchase", key: nil, json: "{}").status == 401)
            // A token of another app is refused with 403.
            let other = try await server.createAppWithCatalog()
            let foreign = try Self.token(from: try await server.grant(other, #"{"app_user_id": "x", "product_id": "lifetime"}"#))
            #expect(try await Self.redeem(server, app, user: "alice", token: foreign).status == 403)
            // Expired: 7853 with the masked purchase e-mail.
            let token = try Self.token(
                from: try await server.grant(app, #"{"app_user_id": "b", "product_id": "lifetime", "email": "john@example.com"}"#))
            clock.advance(by: 3601)
            let expired = try await Self.redeem(server, app, user: "alice", token: token)
            #expect(expired.status == 403)
            #expect(expired.code == 7853)
            #expect(try expired.object().value(at: "purchase_redemption_error_info.obfuscated_email") as? String == "j***@e***.com")
        }
    }

    @Test(arguments: TestDatabases.available)
    func twoHundredConcurrentRedemptionsOneWinner(_ backend: TestBackend) async throws {
        try await TestServer.with(backend, setup: .live) { server in
            let app = try await server.createAppWithCatalog()
            let token = try Self.token(from: try await server.grant(app, #"{"app_user_id": "buyer", "product_id": "lifetime"}"#))
            let statuses = try await withThrowingTaskGroup(of: (Int, Int?).self) { group in
                for i in 0..<200 {
                    group.addTask {
                        let reply = try await Self.redeem(server, app, user: "user-\(i)", token: token)
                        return (reply.status, reply.code)
                    }
                }
                return try await group.reduce(into: [(Int, Int?)]()) { $0.append($1) }
            }
            #expect(statuses.filter { $0.0 == 200 }.count == 1)
            #expect(statuses.filter { $0.0 == 403 && $0.1 == 7852 }.count == 199)
            let attempts = try await server.deps.store.database.read { try await $0.query("SELECT COUNT(*) AS n FROM redemption_attempts") }
            #expect(try attempts[0].int("n") == 200)
        }
    }
}

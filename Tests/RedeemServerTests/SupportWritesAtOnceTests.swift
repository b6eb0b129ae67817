import Foundation
import RedeemCore
import RedeemServer
import RedeemStore
import RedeemTestSupport
import Testing

/// Support writes sent again while the first is in flight (a double click, a retried API call): each change is made,
/// audited and announced once. On PostgreSQL two transactions read the purchase at once; the first to write decides.
@Suite struct SupportWritesAtOnceTests {
    static func audited(_ server: TestServer, _ app: CreatedAppKeys, _ action: String) async throws -> [String] {
        try await server.deps.store.auditLog(appID: app.id, limit: 100).filter { $0.action == action }.map(\.objectID)
    }

    @Test(arguments: TestDatabases.available)
    func revokingAnEntitlementsGrantsAtOnceRevokesEachOnce(_ backend: TestBackend) async throws {
        try await TestServer.with(backend) { server in
            let app = try await server.createAppWithCatalog()
            let grants = "/admin/v1/apps/\(app.id)/customers/carol/grants"
            var ids: [String: String] = [:]
            for (entitlement, duration) in [("pro", "monthly"), ("pro", "weekly"), ("extra", "monthly")] {
                let made = try await server.send(
                    .post, grants, key: app.secret, json: #"{"entitlement_id": "\#(entitlement)", "duration": "\#(duration)"}"#)
                #expect(made.status == 201, "\(made.body)")
                ids[entitlement + duration] = try made.string("id")
            }
            let replies = try await TestServer.atOnce {
                try await server.send(.post, "/v1/subscribers/carol/entitlements/pro/revoke_promotionals", key: app.secret)
            }
            for reply in replies { #expect(reply.status == 200, "\(reply.status): \(reply.body)") }
            // Each of the entitlement's grants once; another entitlement's grant stays.
            #expect(Set(try await Self.audited(server, app, "grant.revoke")) == Set([ids["promonthly"], ids["proweekly"]].compactMap { $0 }))
            #expect(try await Self.audited(server, app, "grant.revoke").count == 2)
            #expect(try await SupportActionsTests.entitlement(server, app, "carol", "pro")?["expires_date"] as? String == "2026-06-01T00:00:00Z")
            #expect(try await SupportActionsTests.entitlement(server, app, "carol", "extra")?["expires_date"] as? String == "2026-07-01T00:00:00Z")
            // A purchase unlocking the entitlement is not a grant: it is kept, and the entitlement with it.
            _ = try await server.grant(app, #"{"app_user_id": "carol", "product_id": "lifetime", "is_sandbox": true}"#)
            #expect(try await server.send(.post, "/v1/subscribers/carol/entitlements/pro/revoke_promotionals", key: app.secret).status == 200)
            #expect(try await Self.audited(server, app, "grant.revoke").count == 2)
            #expect(try await SupportActionsTests.entitlement(server, app, "carol", "pro")?["expires_date"] is NSNull)
        }
    }

    @Test(arguments: TestDatabases.available)
    func oneGrantRevokedAtOnceIsRevokedOnce(_ backend: TestBackend) async throws {
        try await TestServer.with(backend) { server in
            let app = try await server.createAppWithCatalog()
            let made = try await server.send(
                .post, "/admin/v1/apps/\(app.id)/customers/dave/grants", key: app.secret, json: #"{"entitlement_id": "pro", "duration": "monthly"}"#)
            let id = try #require(try made.string("id"))
            let revoke = "/admin/v1/apps/\(app.id)/grants/\(id)/revoke"
            let replies = try await TestServer.atOnce { try await server.send(.post, revoke, key: app.secret) }
            #expect(replies.map(\.status).sorted() == [200, 409, 409, 409], "\(replies.map(\.body))")
            #expect(try await Self.audited(server, app, "grant.revoke") == [id])
        }
    }

    @Test(arguments: TestDatabases.available)
    func aPurchaseRefundedOrCancelledAtOnceChangesOnce(_ backend: TestBackend) async throws {
        try await TestServer.with(backend) { server in
            let app = try await server.createAppWithCatalog()
            try await SupportActionsTests.withEndpoint(server, app)
            for (user, action, route) in [("erin", "purchase.cancel", "cancel"), ("frank", "purchase.refund", "refund")] {
                let bought = try await server.grant(app, #"{"app_user_id": "\#(user)", "product_id": "monthly", "is_sandbox": true}"#)
                let id = try #require(try bought.string("purchase.id"))
                let transaction = try #require(try bought.string("purchase.store_transaction_id"))
                let before = try await SupportActionsTests.events(server, app, transaction: transaction).count
                let path = "/admin/v1/apps/\(app.id)/purchases/\(id)/\(route)"
                let replies = try await TestServer.atOnce { try await server.send(.post, path, key: app.secret) }
                #expect(replies.contains { $0.status == 200 }, "\(route): \(replies.map(\.body))")
                let events = try await SupportActionsTests.events(server, app, transaction: transaction).dropFirst(before)
                #expect(events.map { $0["type"] as? String } == ["CANCELLATION"], "\(route)")
                #expect(try await Self.audited(server, app, action).count == 1, "\(route)")
            }
        }
    }
}

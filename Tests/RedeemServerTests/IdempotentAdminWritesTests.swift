import Foundation
import HTTPTypes
import RedeemCore
import RedeemServer
import RedeemStore
import RedeemTestSupport
import Testing

/// The admin API's grant and webhook routes with an `Idempotency-Key`: a retry, or the same request sent at once, does
/// its work once and answers as the first did; the same key sent for something else is refused.
@Suite struct IdempotentAdminWritesTests {
    static let idempotencyKey = HTTPField.Name("Idempotency-Key")!

    /// `times` POSTs of one body under one key at once, then one more after them.
    static func sendRepeatedly(
        _ server: TestServer, _ path: String, secret: String, json: String, key: String, times: Int = 4
    ) async throws -> [TestServer.Reply] {
        let send = { @Sendable in try await server.send(.post, path, key: secret, json: json, headers: [idempotencyKey: key]) }
        return try await TestServer.atOnce(times, send) + [try await send()]
    }

    @Test(arguments: TestDatabases.available)
    func aGrantSentAgainUnderItsKeyGrantsOnce(_ backend: TestBackend) async throws {
        try await TestServer.with(backend) { server in
            let app = try await server.createAppWithCatalog()
            let path = "/admin/v1/apps/\(app.id)/customers/vip-1/grants"
            let monthly = #"{"entitlement_id": "pro", "duration": "monthly"}"#
            let replies = try await Self.sendRepeatedly(server, path, secret: app.secret, json: monthly, key: "grant-1")
            let ids = try replies.map { reply in
                #expect(reply.status == 201, "\(reply.body)")
                return try reply.string("id") ?? "none"
            }
            let customer = try #require(try await server.deps.store.findCustomer(appID: app.id, appUserID: AppUserID(validating: "vip-1")))
            let grants = { try await server.deps.store.purchases(customerID: customer.id).filter { $0.store == .promotional } }
            #expect(try await grants().map(\.id) == [ids[0]])
            #expect(Set(ids) == [ids[0]])
            let audited = { try await server.deps.store.auditLog(appID: app.id, limit: 50).filter { $0.action == "grant.create" }.count }
            #expect(try await audited() == 1)
            // The same key for another grant: refused, nothing granted.
            let weekly = #"{"entitlement_id": "pro", "duration": "weekly"}"#
            let refused = try await server.send(.post, path, key: app.secret, json: weekly, headers: [Self.idempotencyKey: "grant-1"])
            #expect(refused.status == 409 && refused.body.contains("This Idempotency-Key already granted something else"), "\(refused.body)")
            #expect(try refused.object()["code"] as? Int == 7009)
            // Another key grants again, and so does each request without one.
            #expect(try await server.send(.post, path, key: app.secret, json: weekly, headers: [Self.idempotencyKey: "grant-2"]).status == 201)
            for _ in 0..<2 { #expect(try await server.send(.post, path, key: app.secret, json: weekly).status == 201) }
            #expect(try await grants().count == 4)
            #expect(try await audited() == 4)
            let long = try await server.send(
                .post, path, key: app.secret, json: weekly, headers: [Self.idempotencyKey: String(repeating: "k", count: 256)])
            #expect(long.status == 400 && long.body.contains("Idempotency-Key"), "\(long.body)")
            #expect(try await grants().count == 4)
        }
    }

    @Test(arguments: TestDatabases.available)
    func anEndpointSentAgainUnderItsKeyIsAddedOnce(_ backend: TestBackend) async throws {
        try await TestServer.with(backend) { server in
            let app = try await server.createApp()
            let path = "/admin/v1/apps/\(app.id)/webhooks"
            let body = #"{"url": "https://hooks.example.com/once", "authorization": "Bearer t"}"#
            let replies = try await Self.sendRepeatedly(server, path, secret: app.secret, json: body, key: "hook-1")
            let answers = try replies.map { reply in
                #expect(reply.status == 201, "\(reply.body)")
                return [try reply.string("id") ?? "none", try reply.string("signing_secret") ?? "none"]
            }
            let endpoints = try await server.deps.store.webhookEndpoints(appID: app.id)
            #expect(endpoints.count == 1)
            #expect(Set(answers) == [[endpoints.first?.id ?? "", endpoints.first?.signingSecret ?? ""]])
            #expect(try await server.deps.store.auditLog(appID: app.id, limit: 50).filter { $0.action == "webhook.create" }.count == 1)
            // The same key for another URL: refused, nothing added.
            let other = #"{"url": "https://hooks.example.com/other"}"#
            let refused = try await server.send(.post, path, key: app.secret, json: other, headers: [Self.idempotencyKey: "hook-1"])
            #expect(refused.status == 409, "\(refused.body)")
            #expect(try refused.string("message")?.hasPrefix("This Idempotency-Key already added https://hooks.example.com/once") == true)
            #expect(try await server.deps.store.webhookEndpoints(appID: app.id).count == 1)
            // Keys belong to their app: another app's same key adds its own endpoint.
            let second = try await server.createApp(#"{"name": "Second App"}"#)
            let theirs = try await server.send(
                .post, "/admin/v1/apps/\(second.id)/webhooks", key: second.secret, json: body, headers: [Self.idempotencyKey: "hook-1"])
            #expect(theirs.status == 201, "\(theirs.body)")
            #expect(try theirs.string("id") != endpoints.first?.id)
            #expect(try await server.deps.store.webhookEndpoints(appID: second.id).count == 1)
            let empty = try await server.send(.post, path, key: app.secret, json: other, headers: [Self.idempotencyKey: ""])
            #expect(empty.status == 400, "\(empty.body)")
        }
    }
}

import Foundation
import RedeemCore
import RedeemServer
import RedeemStore
import RedeemTestSupport
import Testing

/// An audited action commits its rows and its audit entry together: when one of its writes fails, none of it is left.
@Suite struct AuditAtomicityTests {
    /// Makes every insert into the e-mail outbox fail, as a full disk or a constraint would.
    static func failMail(_ store: SQLStore) async throws {
        if store.database.engine == .postgres {
            try await store.database.transaction { connection in
                try await connection.query(
                    "CREATE FUNCTION fail_mail() RETURNS trigger AS $$ BEGIN RAISE EXCEPTION 'mail insert failed'; END $$ LANGUAGE plpgsql")
                try await connection.query("CREATE TRIGGER fail_mail BEFORE INSERT ON email_outbox FOR EACH ROW EXECUTE FUNCTION fail_mail()")
            }
        } else {
            _ = try await store.database.transaction { connection in
                try await connection.query(
                    "CREATE TRIGGER fail_mail BEFORE INSERT ON email_outbox BEGIN SELECT RAISE(ABORT, 'mail insert failed'); END")
            }
        }
    }

    static func mailWorks(_ store: SQLStore) async throws {
        _ = try await store.database.transaction {
            try await $0.query("DROP TRIGGER fail_mail\(unsafeRaw: store.database.engine == .postgres ? " ON email_outbox" : "")")
        }
    }

    /// "Send a new link" writes a token, an e-mail and an audit entry: with the e-mail's insert failing, neither the
    /// token nor the audit entry is there; once e-mail works, all three are.
    @Test(arguments: TestDatabases.available)
    func aNewLinkWhoseEmailFailsLeavesNoTokenAndNoAuditEntry(_ backend: TestBackend) async throws {
        try await SMTPTestServer.with { smtp in
            try await TestServer.with(backend, mail: try EmailFlowTests.settings(port: smtp.port)) { server in
                let app = try await server.createAppWithCatalog()
                let reply = try await server.grant(app, #"{"app_user_id": "buyer-9", "product_id": "lifetime", "email": "buyer9@example.com"}"#)
                let purchaseID = try #require(try reply.string("purchase.id"))
                let store = server.deps.store
                let linksBefore = try await store.redemptionLinks(appID: app.id, purchaseID: purchaseID).count
                let path = "/admin/v1/apps/\(app.id)/purchases/\(purchaseID)/links"

                try await Self.failMail(store)
                let failed = try await server.send(.post, path, key: app.secret)
                #expect(failed.status == 500)
                #expect(try await store.redemptionLinks(appID: app.id, purchaseID: purchaseID).count == linksBefore)
                #expect(try await store.auditLog(appID: app.id, limit: 50).filter { $0.action == "purchase.link" }.isEmpty)

                try await Self.mailWorks(store)
                let sent = try await server.send(.post, path, key: app.secret)
                #expect(sent.status == 201, "\(sent.body)")
                #expect(try await store.redemptionLinks(appID: app.id, purchaseID: purchaseID).count == linksBefore + 1)
                let entries = try await store.auditLog(appID: app.id, limit: 50).filter { $0.action == "purchase.link" }
                #expect(entries.map(\.detail) == ["shown and e-mailed"])
                #expect(entries.first?.actor.hasPrefix("key:") == true)
                #expect(await server.deps.mailer?.drain() == 1)
            }
        }
    }

    /// A write with no actor to record it under is refused, and nothing of it is written.
    @Test(arguments: TestDatabases.available)
    func aWriteWithNoActorIsRefused(_ backend: TestBackend) async throws {
        try await TestServer.with(backend) { server in
            var changes = AppChanges()
            changes.name = "Nobody's"
            await #expect(throws: APIError.self) { try await server.deps.admin.createApp(changes) }
            #expect(try await server.deps.store.apps().contains { $0.name == "Nobody's" } == false)
            let made = try await server.deps.admin.acting(as: "operator:o@example.com").createApp(changes)
            let entry = try #require(try await server.deps.store.auditLog(appID: made.app.id, limit: 5).first)
            #expect(entry.action == "app.create" && entry.actor == "operator:o@example.com" && entry.objectID == made.app.id)
        }
    }
}

import Foundation
import HTTPTypes
import RedeemCore
import RedeemServer
import RedeemStore
import RedeemTestSupport
import Testing

/// The console's forms that make a secret shown once (a new app's keys, a new key, a batch of codes): the same form
/// sent again, at once or after a reload, makes nothing more, and says that its secret was shown on the first answer
/// only or goes to the batch it started.
@Suite struct ConsoleSecretFormsTests {
    /// The answers to `fields` sent 4 times at once and once more after: each the secret page (201) or the repeat's (200).
    static func sendRepeatedly(_ server: TestServer, _ path: String, _ fields: [String: String], cookie: String) async throws -> [TestServer.Reply] {
        let replies = try await ConsoleTests.postAtOnce(server, path, fields, cookie: cookie)
        return replies + [try await ConsoleTests.post(server, path, fields, cookie: cookie)]
    }

    @Test(arguments: TestDatabases.available)
    func submitsOfOneNewAppFormCreateOneApp(_ backend: TestBackend) async throws {
        try await TestServer.with(backend) { server in
            let owner = try await ConsoleTests.signedInOwner(server)
            let page = try await server.send(.get, "/console/new-app", key: nil, headers: [.cookie: owner])
            let fields = ["csrf": try ConsoleOperationsTests.csrf(page), "form_id": try ConsoleTests.formID(page), "name": "Kitchen"]
            // A refused form comes back with its ID, so that sending it fixed is still one app.
            var bad = fields
            bad["icon_url"] = "ftp://x/icon.png"
            let refused = try await ConsoleTests.post(server, "/console/new-app", bad, cookie: owner)
            #expect(refused.status == 422 && (try? ConsoleTests.formID(refused)) == fields["form_id"], "\(refused.body)")
            let replies = try await Self.sendRepeatedly(server, "/console/new-app", fields, cookie: owner)
            let shown = replies.filter { $0.status == 201 }
            #expect(shown.count == 1, "\(replies.map(\.status))")
            for reply in replies where reply.status != 201 {
                #expect(reply.status == 200 && reply.body.contains("Kitchen already created"), "\(reply.status) \(reply.body)")
                #expect(!reply.body.contains("rdm_sk_") && reply.headers[.cacheControl] == "no-store")
            }
            let apps = try await server.deps.store.apps()
            #expect(apps.map(\.name) == ["Kitchen"])
            let app = try #require(apps.first)
            #expect(try await server.deps.store.keys(appID: app.id).count == 3)
            #expect(try await server.deps.store.auditLog(appID: app.id, limit: 50).filter { $0.action == "app.create" }.count == 1)
            // The secret key the one 201 showed is the app's.
            let secret = String(try #require(shown.first?.body.firstMatch(of: /(rdm_sk_[A-Za-z0-9_-]+)/)?.1))
            #expect(try await server.send(.get, "/admin/v1/apps/\(app.id)/products", key: secret).status == 200)
            // A new page's form creates another app.
            let next = try await server.send(.get, "/console/new-app", key: nil, headers: [.cookie: owner])
            var second = fields
            second["form_id"] = try ConsoleTests.formID(next)
            #expect(try await ConsoleTests.post(server, "/console/new-app", second, cookie: owner).status == 201)
            #expect(try await server.deps.store.apps().count == 2)
        }
    }

    @Test(arguments: TestDatabases.available)
    func submitsOfOneKeyFormCreateOneKey(_ backend: TestBackend) async throws {
        try await TestServer.with(backend) { server in
            let app = try await server.createApp()
            let owner = try await ConsoleTests.signedInOwner(server)
            let path = "/console/apps/\(app.id)/keys"
            let page = try await server.send(.get, path, key: nil, headers: [.cookie: owner])
            let fields = [
                "csrf": try ConsoleOperationsTests.csrf(page), "form_id": try ConsoleTests.formID(page), "kind": "secret", "label": "billing",
            ]
            let before = try await server.deps.store.keys(appID: app.id).count
            let replies = try await Self.sendRepeatedly(server, path, fields, cookie: owner)
            #expect(replies.filter { $0.status == 201 }.count == 1, "\(replies.map(\.status))")
            for reply in replies where reply.status != 201 {
                #expect(reply.status == 200 && reply.body.contains("Key already created") && !reply.body.contains("rdm_sk_"), "\(reply.body)")
            }
            let keys = try await server.deps.store.keys(appID: app.id)
            #expect(keys.count == before + 1)
            #expect(keys.filter { $0.label == "billing" }.count == 1)
            #expect(try await server.deps.store.auditLog(appID: app.id, limit: 50).filter { $0.action == "key.create" }.count == 1)
            var bad = fields
            bad["form_id"] = "not a form id"
            #expect(try await ConsoleTests.post(server, path, bad, cookie: owner).status == 400)
            // A new page's form creates another key.
            let next = try await server.send(.get, path, key: nil, headers: [.cookie: owner])
            var second = fields
            second["form_id"] = try ConsoleTests.formID(next)
            #expect(try await ConsoleTests.post(server, path, second, cookie: owner).status == 201)
            #expect(try await server.deps.store.keys(appID: app.id).count == before + 2)
        }
    }

    @Test(arguments: TestDatabases.available)
    func submitsOfOneBatchFormStartOneBatch(_ backend: TestBackend) async throws {
        try await TestServer.with(backend) { server in
            let app = try await server.createAppWithCatalog()
            let offerID = try await OfferCodeAPITests.offer(server, app, OfferCodeAPITests.trial)
            let owner = try await ConsoleTests.signedInOwner(server)
            let page = try await ConsoleOffersTests.page(server, app.id, cookie: owner)
            let fields = [
                "csrf": try ConsoleOperationsTests.csrf(page), "form_id": try ConsoleTests.formID(page), "offer_id": offerID, "count": "500",
                "expires_on": "2026-09-01",
            ]
            let path = "/console/apps/\(app.id)/batches"
            let replies = try await Self.sendRepeatedly(server, path, fields, cookie: owner)
            let jobs = Set(replies.map { $0.headers[.location] ?? "\($0.status) \($0.body)" })
            #expect(jobs.count == 1 && replies.allSatisfy { $0.status == 303 }, "\(jobs)")
            let jobPath = try #require(jobs.first)
            var job = try await server.send(.get, jobPath, key: nil, headers: [.cookie: owner])
            // Ends when the job is done, however long that takes here; the suite's time limit is the hang guard.
            while job.status == 200 && !job.body.contains("Download the CSV") {
                try await Task.sleep(for: .milliseconds(50))
                job = try await server.send(.get, jobPath, key: nil, headers: [.cookie: owner])
            }
            #expect(job.status == 200 && job.body.contains("A batch of 500 codes"), "\(job.body)")
            // Sent again once it is done: its page again, still one batch.
            #expect(try await ConsoleTests.post(server, path, fields, cookie: owner).headers[.location] == jobPath)
            #expect(try await server.deps.store.codeBatches(appID: app.id, offerID: nil).map(\.count) == [500])
            #expect(try await server.deps.store.auditLog(appID: app.id, limit: 50).filter { $0.action == "code_batch.create" }.count == 1)
        }
    }
}

import Foundation
import HTTPTypes
import RedeemCore
import RedeemTestSupport
import Testing

/// The admin API's `GET …/customers/{app_user_id}/export`: the console owner's export (a data-access request) for
/// backends and `redeem customers export --server`, audited under the key.
@Suite struct CustomerExportAPITests {
    @Test(arguments: TestDatabases.available)
    func theAdminAPIExportsWhatTheConsoleDoesAndAuditsIt(_ backend: TestBackend) async throws {
        try await TestServer.with(backend) { server in
            let app = try await server.createAppWithCatalog()
            let other = try await server.createAppWithCatalog()
            let bought = try await server.grant(
                app,
                #"{"app_user_id": "export-user", "product_id": "monthly", "email": "Export.Person@Example.com", "store": "rc_billing", "is_sandbox": true}"#
            )
            let purchaseID = try #require(try bought.string("purchase.id"))
            let path = "/admin/v1/apps/\(app.id)/customers/export-user/export"

            let exported = try await server.send(.get, path, key: app.secret)
            #expect(exported.status == 200 && exported.headers[.cacheControl] == "no-store", "\(exported.body)")
            let json = try exported.object()
            #expect(try exported.string("customer.original_app_user_id") == "export-user" && json["app_id"] as? String == app.id)
            let purchases = try #require(json["purchases"] as? [[String: Any]])
            #expect(purchases.map { $0["id"] as? String } == [purchaseID] && purchases.first?["email"] as? String == "Export.Person@Example.com")
            #expect(!exported.body.contains("token_hash") && !exported.body.contains("/r/"))

            // The same file the console's owner downloads, but for when it was made and the audit entries since.
            _ = try await ConsoleTests.owner(server)
            let owner = "redeem_console=\(try await ConsoleTests.signIn(server))"
            let page = try await ConsoleCustomerTests.customerPath(server, appID: app.id, query: "export-user", cookie: owner)
            var console = try await ConsoleCustomerTests.get(server, page + "/export", cookie: owner).object()
            var api = json
            for key in ["exported_at", "audit_entries"] {
                console[key] = nil
                api[key] = nil
            }
            #expect(NSDictionary(dictionary: api).isEqual(to: console), "\(api) \(console)")

            // Audited under the key, naming the customer and no address.
            let audit = try await server.deps.store.auditLog(appID: app.id, limit: 20).filter { $0.action == "customer.export" }
            let customerID = try #require(try exported.string("customer.id"))
            #expect(audit.count == 2 && audit.allSatisfy { $0.objectID == customerID && $0.detail == nil })
            #expect(audit.contains { $0.actor.hasPrefix("key:") } && audit.contains { $0.actor == "operator:owner@example.com" })

            // Refused, and nothing audited: a public key, another app's secret key, an unknown user, an unknown app.
            #expect(try await server.send(.get, path, key: app.publicProduction).status == 403)
            #expect(try await server.send(.get, path, key: other.secret).status == 403)
            let unknown = try await server.send(.get, "/admin/v1/apps/\(app.id)/customers/nobody/export", key: server.adminKey)
            #expect(unknown.status == 404 && unknown.body.contains("nobody"), "\(unknown.body)")
            #expect(try await server.send(.get, "/admin/v1/apps/app_nope/customers/export-user/export", key: server.adminKey).status == 404)
            #expect(try await server.deps.store.auditLog(appID: app.id, limit: 20).filter { $0.action == "customer.export" }.count == 2)
        }
    }
}

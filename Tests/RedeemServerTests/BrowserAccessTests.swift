import Foundation
import HTTPTypes
import RedeemTestSupport
import Testing

@testable import RedeemServer

/// A web page on another origin calls the `/v1` API with an app's key (CORS), as a web app starting a checkout from
/// the buyer's browser does; the buyer pages and the admin API do not answer other origins.
@Suite struct BrowserAccessTests {
    @Test(arguments: TestDatabases.available) func aPageOnAnotherOriginCallsTheSDKAPI(_ backend: TestBackend) async throws {
        try await TestServer.with(backend) { server in
            let app = try await CheckoutTests.shop(server)
            let origin: HTTPFields = [.origin: "https://shop.example"]
            var preflight = origin
            preflight[.accessControlRequestMethod] = "POST"
            preflight[.accessControlRequestHeaders] = "authorization,content-type,x-platform"
            let allowed = try await server.send(.options, "/v1/web_checkouts", key: nil, headers: preflight)
            #expect(allowed.status == 204 && allowed.headers[.accessControlAllowOrigin] == "*", "\(allowed.headers)")
            #expect(allowed.headers[.accessControlAllowMethods]?.contains("POST") == true)
            let headers = Set((allowed.headers[.accessControlAllowHeaders] ?? "").lowercased().split(separator: ",").map { $0.trimmed })
            #expect(headers.isSuperset(of: ["authorization", "content-type", "x-platform"]), "\(headers)")
            #expect(allowed.headers[.accessControlAllowCredentials] == nil, "a key authorises, never a cookie")

            let started = try await server.send(
                .post, "/v1/web_checkouts", key: app.publicSandbox, json: #"{"product_id": "monthly"}"#, headers: origin)
            #expect(started.status == 201 && started.headers[.accessControlAllowOrigin] == "*")
            #expect(started.headers[.accessControlExposeHeaders]?.contains("X-RevenueCat-Request-Time") == true)
            let refused = try await server.send(.get, "/v1/subscribers/alice", key: "wrong", headers: origin)
            #expect(refused.status == 401 && refused.headers[.accessControlAllowOrigin] == "*", "the page can read why")

            let admin = try await server.send(.options, "/admin/v1/apps", key: nil, headers: preflight)
            #expect(admin.headers[.accessControlAllowOrigin] == nil, "secret keys belong on servers")
            // Nor the server API's `/v1` routes, nor the support form, which sends e-mail: a page's preflight is refused,
            // and an answer carries nothing a page could read.
            for path in [
                "/v1/purchases", "/v1/customercenter/support/create-ticket", "/v1/subscribers/alice/entitlements/pro/promotional",
                "/v1/subscribers/alice/entitlements/pro/revoke_promotionals", "/v1/subscribers/alice/offerings/main/override",
            ] {
                let refused = try await server.send(.options, path, key: nil, headers: preflight)
                #expect(refused.headers[.accessControlAllowOrigin] == nil, "\(path)")
            }
            let ticket = try await server.send(
                .post, "/v1/customercenter/support/create-ticket", key: app.publicSandbox,
                json: #"{"app_user_id": "alice", "customer_email": "alice@example.com", "issue_description": "Help"}"#, headers: origin)
            #expect(ticket.headers[.accessControlAllowOrigin] == nil, "\(ticket.status)")
            var deleting = origin
            deleting[.accessControlRequestMethod] = "DELETE"
            let delete = try await server.send(.options, "/v1/subscribers/alice", key: nil, headers: deleting)
            #expect(delete.headers[.accessControlAllowMethods]?.contains("DELETE") != true, "a customer's deletion is a secret key's")
            let page = try await server.send(.get, "/sandbox/p/\(app.id)/monthly", key: nil, headers: origin)
            #expect(page.status == 200 && page.headers[.accessControlAllowOrigin] == nil)
            let sameOrigin = try await server.send(.get, "/v1/subscribers/alice", key: app.publicSandbox)
            #expect(sameOrigin.headers[.accessControlAllowOrigin] == nil, "no Origin, no CORS headers")
        }
    }
}

extension Substring {
    fileprivate var trimmed: String { String(self).trimmingCharacters(in: .whitespaces) }
}

import Foundation
import RedeemTestSupport
import Testing

@Suite struct WellKnownTests {
    @Test(arguments: TestDatabases.available) func associationFilesListConfiguredApps(_ backend: TestBackend) async throws {
        try await TestServer.with(backend) { server in
            let fingerprint = Array(repeating: "AB", count: 32).joined(separator: ":")
            _ = try await server.createApp(#"{"name": "iOS", "ios_team_id": "ABCDE12345", "ios_bundle_id": "com.example.ios"}"#)
            _ = try await server.createApp(
                #"{"name": "Android", "android_package_name": "com.example.android", "android_cert_fingerprints": ["\#(fingerprint)"]}"#)
            _ = try await server.createApp(#"{"name": "Bare"}"#)

            let aasa = try await server.send(.get, "/.well-known/apple-app-site-association", key: nil)
            #expect(aasa.status == 200)
            #expect(aasa.headers[.contentType] == "application/json")
            let details = try #require(try aasa.object().value(at: "applinks.details") as? [[String: Any]])
            #expect(details.count == 1)
            #expect(details.first?["appIDs"] as? [String] == ["ABCDE12345.com.example.ios"])
            #expect((details.first?["components"] as? [[String: Any]])?.first?["/"] as? String == "/r/*")
            #expect(details.first?["paths"] as? [String] == ["/r/*"])

            let links = try await server.send(.get, "/.well-known/assetlinks.json", key: nil)
            #expect(links.status == 200)
            let statements = try #require(try JSONSerialization.jsonObject(with: Data(links.body.utf8)) as? [[String: Any]])
            #expect(statements.count == 1)
            let target = try #require(statements.first?["target"] as? [String: Any])
            #expect(target["package_name"] as? String == "com.example.android")
            #expect(target["sha256_cert_fingerprints"] as? [String] == [fingerprint])
            #expect(statements.first?["relation"] as? [String] == ["delegate_permission/common.handle_all_urls"])
        }
    }
}

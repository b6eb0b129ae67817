import Foundation
import HTTPTypes
import RedeemTestSupport
import Testing

/// The iOS SDK's health report (`GET /v1/subscribers/{id}/health_report`, `PurchasesDiagnostics.healthReport()` and the
/// debug overlay): decoded as the SDK decodes it, it tells which packages the iOS SDK leaves out, whether the bundle
/// IDs match, and an app without offerings, each as the SDK reports it.
@Suite struct SDKHealthReportTests {
    typealias Decoding = RevenueCatHealthReportDecoding

    static func report(_ server: TestServer, _ key: String, bundleID: String?) async throws -> TestServer.Reply {
        var headers: HTTPFields = [:]
        if let bundleID { headers[HTTPField.Name("X-Client-Bundle-ID")!] = bundleID }
        return try await server.send(
            .get, "/v1/subscribers/%24RCAnonymousID%3A0a1b2c3d4e5f40718293a4b5c6d7e8f9/health_report", key: key, headers: headers)
    }

    @Test(arguments: TestDatabases.available)
    func theReportTellsWhatTheIOSSDKWillSee(_ backend: TestBackend) async throws {
        try await TestServer.with(backend) { server in
            let app = try await server.createRevenueCatApp()
            let patched = try await server.send(.patch, "/admin/v1/apps/\(app.id)", key: app.secret, json: #"{"ios_bundle_id": "app.example.ios"}"#)
            #expect(patched.status == 200, "\(patched.body)")
            let reply = try await Self.report(server, app.publicProduction, bundleID: "app.example.ios")
            #expect(reply.status == 200 && reply.headers[.contentType]?.hasPrefix("application/json") == true, "\(reply.body)")
            let report = try Decoding.ios(reply.body)
            // Healthy, with one warning: the current offering has a package the iOS SDK leaves out.
            #expect(Decoding.verdict(report) == .healthy(warnings: [.offeringsProducts]))
            #expect(report.status == .warning && report.projectId == nil && report.appId == nil)
            #expect(report.checks.map(\.name) == [.apiKey, .bundleId, .products, .offerings, .offeringsProducts])

            let ids = try #require(report.checks[1].bundleIDs, "\(reply.body)")
            #expect(ids.sdkBundleId == "app.example.ios" && ids.appBundleId == "app.example.ios" && report.checks[1].status == .passed)
            // The products the App Store can sell, by their App Store IDs: Redeem cannot know their store status.
            let products = try #require(report.checks[2].products, "\(reply.body)")
            #expect(products.products.map(\.identifier) == ["app.example.founders", "app.example.pro.annual", "app.example.pro.monthly"])
            #expect(products.products.allSatisfy { $0.status == .couldNotCheck })
            #expect(products.products.last?.description.contains("In Redeem it is 'pro_monthly', which unlocks pro.") == true)

            let offerings = try #require(report.checks[4].offerings, "\(reply.body)")
            #expect(offerings.offerings.map(\.identifier) == ["main", "winback"] && offerings.offerings.map(\.status) == [.warning, .passed])
            let main = offerings.offerings[0].packages
            #expect(main.map(\.productIdentifier) == ["app.example.pro.monthly", "app.example.pro.annual", "app.example.founders", "web_pack"])
            #expect(main.allSatisfy { $0.status == .couldNotCheck && $0.title == nil })
            #expect(main[0].productTitle == nil && main[3].description.hasPrefix("The iOS SDK leaves this package out: its product 'web_pack'"))

            // Another bundle ID is the configuration's error, with both IDs.
            let other = try Decoding.ios(try await Self.report(server, app.publicProduction, bundleID: "com.other.app").body)
            #expect(Decoding.verdict(other) == .unhealthy(.bundleId))
            let mismatch = try #require(other.checks[1].bundleIDs)
            #expect(mismatch.sdkBundleId == "com.other.app" && mismatch.appBundleId == "app.example.ios")
            // Without the SDK's bundle ID there is nothing to compare.
            let unsent = try Decoding.ios(try await Self.report(server, app.secret, bundleID: nil).body)
            #expect(!unsent.checks.map(\.name).contains(.bundleId) && Decoding.verdict(unsent) == .healthy(warnings: [.offeringsProducts]))

            // A current offering the iOS SDK sees nothing of fails the report.
            let webOnly = try await server.send(
                .post, "/admin/v1/apps/\(app.id)/offerings", key: app.secret,
                json:
                    #"{"identifier": "web", "description": "Web only", "is_current": true, "packages": [{"identifier": "extra", "product_id": "web_pack"}]}"#
            )
            #expect(webOnly.status == 201, "\(webOnly.body)")
            let failing = try Decoding.ios(try await Self.report(server, app.publicProduction, bundleID: "app.example.ios").body)
            #expect(Decoding.verdict(failing) == .unhealthy(.offeringsProducts) && failing.status == .failed)
        }
    }

    @Test(arguments: TestDatabases.available)
    func anAppWithoutOfferingsIsUnhealthyAndKeysAreChecked(_ backend: TestBackend) async throws {
        try await TestServer.with(backend) { server in
            let app = try await server.createApp()
            let report = try Decoding.ios(try await Self.report(server, app.publicSandbox, bundleID: "app.example.ios").body)
            // No bundle ID set on the app: only the SDK's is known, so it is not judged.
            #expect(report.checks.map(\.name) == [.apiKey, .products, .offerings, .offeringsProducts])
            #expect(Decoding.verdict(report) == .unhealthy(.offerings))
            #expect(try await server.send(.get, "/v1/subscribers/alice/health_report", key: nil).status == 401)
            #expect(try await server.send(.get, "/v1/subscribers/null/health_report", key: app.publicProduction).status == 400)
            let admin = try await server.send(.get, "/v1/subscribers/alice/health_report", key: server.adminKey)
            #expect(admin.status == 403, "\(admin.body)")
        }
    }
}

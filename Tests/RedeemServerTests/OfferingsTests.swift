import Foundation
import HTTPTypes
import RedeemTestSupport
import Testing

/// Offerings and the product-entitlement mapping as RevenueCat's SDKs read them: each store sees its own product IDs
/// (Play subscriptions with their base plan), packages carry the product's purchase link, optional keys are left out
/// rather than null, and a change to the catalog shows at once though answers are kept in memory.
@Suite struct OfferingsTests {
    static func offerings(_ server: TestServer, _ key: String, platform: String?) async throws -> TestServer.Reply {
        var headers: HTTPFields = [:]
        if let platform { headers[HTTPField.Name("X-Platform")!] = platform }
        return try await server.send(
            .get, "/v1/subscribers/%24RCAnonymousID%3A0a1b2c3d4e5f40718293a4b5c6d7e8f9/offerings", key: key, headers: headers)
    }

    static func packages(_ reply: TestServer.Reply, offering: String = "main") throws -> [[String: String]] {
        let offerings = try #require(try reply.object()["offerings"] as? [[String: Any]])
        let main = try #require(offerings.first { $0["identifier"] as? String == offering })
        return (main["packages"] as? [[String: Any]] ?? []).map { $0.compactMapValues { $0 as? String } }
    }

    @Test(arguments: TestDatabases.available)
    func eachStoreSeesItsOwnProducts(_ backend: TestBackend) async throws {
        try await TestServer.with(backend) { server in
            let app = try await server.createRevenueCatApp()
            let ios = try await Self.offerings(server, app.publicProduction, platform: "iOS")
            #expect(ios.status == 200 && ios.headers[.contentType] == "application/json")
            #expect(RevenueCatDecoding.offeringsProblems(ios.body) == [])
            #expect(try ios.object()["current_offering_id"] as? String == "main")
            let main = try #require((try ios.object()["offerings"] as? [[String: Any]])?.first)
            #expect(main["description"] as? String == "Main paywall")
            #expect((main["metadata"] as? [String: Any])?["headline"] as? String == "Go Pro")
            #expect((main["metadata"] as? [String: Any])?["show_badge"] as? Bool == true)
            #expect(
                try Self.packages(ios) == [
                    [
                        "identifier": "$rc_monthly", "platform_product_identifier": "app.example.pro.monthly",
                        "web_checkout_url": "https://pay.example.com/p/\(app.id)/pro_monthly",
                    ],
                    [
                        "identifier": "$rc_annual", "platform_product_identifier": "app.example.pro.annual",
                        "web_checkout_url": "https://pay.example.com/p/\(app.id)/pro_annual",
                    ],
                    // Sold only in the stores: no purchase link, and the key is left out rather than null.
                    ["identifier": "founders_lifetime", "platform_product_identifier": "app.example.founders"],
                ])
            let android = try await Self.offerings(server, app.publicProduction, platform: "android")
            #expect(RevenueCatDecoding.offeringsProblems(android.body) == [])
            #expect(
                try Self.packages(android).map { [$0["platform_product_identifier"] ?? "", $0["platform_product_plan_identifier"] ?? "-"] }
                    == [["pro", "monthly"], ["pro", "annual"], ["founders", "-"]])
            // The plan key is absent, not null, for the in-app product (Android reads null as the product "null").
            #expect(!android.body.contains("null,") && !android.body.contains(":null}"))

            // The web (a Redeem or Stripe-only app, no X-Platform) sees Redeem's own product IDs, every product included,
            // and a sandbox key links to the sandbox checkout.
            let web = try await Self.offerings(server, app.publicSandbox, platform: nil)
            #expect(try Self.packages(web).map { $0["platform_product_identifier"] } == ["pro_monthly", "pro_annual", "founders", "web_pack"])
            #expect(try Self.packages(web).first?["web_checkout_url"] == "https://pay.example.com/sandbox/p/\(app.id)/pro_monthly")
        }
    }

    @Test(arguments: TestDatabases.available)
    func currentOfferingIDIsAlwaysThereAndChangesShowAtOnce(_ backend: TestBackend) async throws {
        try await TestServer.with(backend) { server in
            let app = try await server.createApp()
            let empty = try await Self.offerings(server, app.publicProduction, platform: "iOS")
            #expect(empty.status == 200 && empty.body == #"{"current_offering_id":null,"offerings":[]}"#)
            #expect(
                try await server.send(.get, "/v1/product_entitlement_mapping", key: app.publicProduction).body
                    == #"{"product_entitlement_mapping":{}}"#)

            // Answers are cached per app; a product or offering change is seen by the next request.
            let product = #"{"id": "p1", "type": "non_consumable", "entitlements": ["pro"], "store_identifiers": {"app_store": "com.x.p1"}}"#
            #expect(try await server.send(.post, "/admin/v1/apps/\(app.id)/products", key: app.secret, json: product).status == 201)
            let offering = #"{"identifier": "o1", "is_current": true, "packages": [{"identifier": "$rc_lifetime", "product_id": "p1"}]}"#
            #expect(try await server.send(.post, "/admin/v1/apps/\(app.id)/offerings", key: app.secret, json: offering).status == 201)
            let one = try await Self.offerings(server, app.publicProduction, platform: "iOS")
            #expect(try one.object()["current_offering_id"] as? String == "o1")
            #expect(try Self.packages(one, offering: "o1").map { $0["platform_product_identifier"] } == ["com.x.p1"])
            #expect(try one.object().value(at: "offerings") as? [[String: Any]] != nil)
            // An offering's description defaults to "", which iOS requires to be a string.
            #expect((try one.object()["offerings"] as? [[String: Any]])?.first?["description"] as? String == "")

            let patch = #"{"store_identifiers": {"app_store": "com.x.p1.v2"}}"#
            #expect(try await server.send(.patch, "/admin/v1/apps/\(app.id)/products/p1", key: app.secret, json: patch).status == 200)
            #expect(
                try Self.packages(try await Self.offerings(server, app.publicProduction, platform: "iOS"), offering: "o1").first?[
                    "platform_product_identifier"] == "com.x.p1.v2")
            let mapping = try await server.send(.get, "/v1/product_entitlement_mapping", key: app.publicProduction)
            #expect(RevenueCatDecoding.mappingProblems(mapping.body) == [])
            #expect(try mapping.object().value(at: "product_entitlement_mapping") as? [String: Any] != nil)
            #expect(mapping.body.contains(#""com.x.p1.v2":{"entitlements":["pro"],"product_identifier":"com.x.p1.v2"}"#))

            let replaced = #"{"identifier": "o1", "is_current": false, "packages": []}"#
            #expect(try await server.send(.put, "/admin/v1/apps/\(app.id)/offerings/o1", key: app.secret, json: replaced).status == 200)
            #expect(try await Self.offerings(server, app.publicProduction, platform: "iOS").body == #"{"current_offering_id":null,"offerings":[]}"#)
            #expect(try await server.send(.delete, "/admin/v1/apps/\(app.id)/offerings/o1", key: app.secret).status == 204)
            #expect(try await server.send(.delete, "/admin/v1/apps/\(app.id)/offerings/o1", key: app.secret).status == 404)
        }
    }

    @Test(arguments: TestDatabases.available)
    func theMappingListsStoreProductsWithTheirEntitlements(_ backend: TestBackend) async throws {
        try await TestServer.with(backend) { server in
            let app = try await server.createRevenueCatApp()
            let reply = try await server.send(.get, "/v1/product_entitlement_mapping", key: app.publicProduction)
            #expect(RevenueCatDecoding.mappingProblems(reply.body) == [])
            let mapping = try #require(try reply.object()["product_entitlement_mapping"] as? [String: [String: Any]])
            #expect(
                mapping.keys.sorted() == [
                    "app.example.founders", "app.example.pro.annual", "app.example.pro.monthly", "founders", "pro:annual", "pro:monthly",
                ])
            #expect(mapping["pro:annual"]?["base_plan_id"] as? String == "annual")
            #expect(mapping["pro:annual"]?["product_identifier"] as? String == "pro")
            #expect(mapping["founders"]?["entitlements"] as? [String] == ["founder", "pro"])
            #expect(mapping["founders"]?["base_plan_id"] == nil)
        }
    }

    @Test(arguments: TestDatabases.available)
    func badOfferingsAreRefusedWithCodes(_ backend: TestBackend) async throws {
        try await TestServer.with(backend) { server in
            let app = try await server.createRevenueCatApp()
            let path = "/admin/v1/apps/\(app.id)/offerings"
            for (body, status) in [
                (#"{"identifier": "main"}"#, 409),
                (#"{"identifier": "x", "packages": [{"identifier": "$rc_monthly", "product_id": "nope"}]}"#, 422),
                (#"{"identifier": "x", "packages": [{"identifier": "$rc_made_up", "product_id": "pro_monthly"}]}"#, 422),
                (
                    #"{"identifier": "x", "packages": [{"identifier": "a", "product_id": "pro_monthly"}, {"identifier": "a", "product_id": "pro_annual"}]}"#,
                    422
                ),
                (#"{"identifier": "bad id!"}"#, 422),
                (#"{"identifier": "x", "metadata": [1]}"#, 400),
                (#"{"identifier": "x", "description": 5}"#, 400),
            ] {
                let reply = try await server.send(.post, path, key: app.secret, json: body)
                #expect(reply.status == status && reply.code != nil, "\(body): \(reply.status) \(reply.body)")
            }
            // Store identifiers: a Play subscription needs its base plan, an in-app product has none.
            for (body, status) in [
                (#"{"id": "s", "type": "subscription", "period": "P1M", "entitlements": ["pro"], "store_identifiers": {"play_store": "s"}}"#, 422),
                (
                    #"{"id": "n", "type": "non_consumable", "entitlements": ["pro"], "store_identifiers": {"play_store": "n", "play_base_plan": "b"}}"#,
                    422
                ),
                (#"{"id": "e", "type": "non_consumable", "entitlements": ["pro"], "store_identifiers": {"app_store": ""}}"#, 422),
            ] {
                let reply = try await server.send(.post, "/admin/v1/apps/\(app.id)/products", key: app.secret, json: body)
                #expect(reply.status == status && reply.code != nil, "\(body): \(reply.status) \(reply.body)")
            }
            // The SDK routes take the app's keys only.
            #expect(try await Self.offerings(server, server.adminKey, platform: "iOS").status == 403)
            #expect(try await server.send(.get, "/v1/product_entitlement_mapping", key: nil).status == 401)
        }
    }
}

import Foundation
import HTTPTypes
import RedeemCore
import RedeemTestSupport
import Testing

/// The calls RevenueCat's SDKs make that Redeem answers without work, the headers every `/v1` answer carries, and app
/// user IDs in paths as each SDK encodes them.
@Suite struct SDKCompatibilityTests {
    static let requestTime = HTTPField.Name("X-RevenueCat-Request-Time")!

    @Test(arguments: TestDatabases.available)
    func theCallsWithNothingToDoAnswerAsTheSDKsNeed(_ backend: TestBackend) async throws {
        try await TestServer.with(backend) { server in
            let app = try await server.createApp()
            let key = app.publicProduction
            // Remote configuration: 204 with no body ("not modified" to both SDKs), whatever the domain.
            for domain in ["app", "app_workflows"] {
                let config = try await server.send(
                    .post, "/v1/config/\(domain)", key: key, json: try RevenueCatFixtures.text("sdk/config_app.request.json"))
                #expect(config.status == 204 && config.body.isEmpty && config.headers[.contentType] == nil)
            }
            // iOS's health checks carry no key.
            let health = try await server.send(.get, "/v1/health", key: nil)
            #expect(health.status == 200 && health.body == "{}" && health.headers[.contentType] == "application/json")
            let report = try await server.send(.get, "/v1/subscribers/%24RCAnonymousID%3Aabc/health_report_availability", key: nil)
            #expect(report.status == 200 && report.body == #"{"report_logs":false}"#)
            for path in ["/v1/events", "/v1/diagnostics"] {
                let reply = try await server.send(.post, path, key: key, json: #"{"events": [{"id": "e1", "type": "paywall_impression"}]}"#)
                #expect(reply.status == 200 && reply.body == "{}", "\(path): \(reply.body)")
            }
            let currencies = try await server.send(.get, "/v1/subscribers/alice/virtual_currencies", key: key)
            #expect(currencies.status == 200 && currencies.body == #"{"virtual_currencies":{}}"#)
            // Without a key these answer RevenueCat's 401, like every other SDK route.
            let noKey = try await server.send(.post, "/v1/events", key: nil, json: "{}")
            #expect(noKey.status == 401 && noKey.code == 7225)
        }
    }

    /// iOS's calls for what Redeem cannot know or do (App Store introductory-offer eligibility, Apple Search Ads and
    /// network attribution, promotional-offer signatures): each answered as the SDK parses a "no" without an error, so
    /// none is logged as an error or sent again at every foreground. Bodies as the SDK sends them (fixtures).
    @Test(arguments: TestDatabases.available)
    func whatRedeemCannotKnowIsAnsweredAsTheSDKParsesIt(_ backend: TestBackend) async throws {
        try await TestServer.with(backend) { server in
            let app = try await server.createApp()
            let user = "/v1/subscribers/%24RCAnonymousID%3A8b4e2cbb6c1c4a1f9c0d2f1b3a6e7d90"
            let eligibility = try await server.send(
                .post, "\(user)/intro_eligibility", key: app.publicProduction, json: try RevenueCatFixtures.text("sdk/intro_eligibility.request.json")
            )
            #expect(eligibility.status == 200 && eligibility.body == "{}", "\(eligibility.body)")
            #expect(RevenueCatDecoding.introEligibilityProblems(eligibility.body) == [])
            for (path, fixture) in [
                ("adservices_attribution", "sdk/adservices_attribution.request.json"), ("attribution", "sdk/attribution.request.json"),
            ] {
                let reply = try await server.send(.post, "\(user)/\(path)", key: app.publicProduction, json: try RevenueCatFixtures.text(fixture))
                #expect(reply.status == 200 && reply.body == "{}", "\(path): \(reply.body)")
            }
            // Nothing about the user was kept: no customer was made.
            #expect(
                try await server.deps.store.findCustomer(
                    appID: app.id, appUserID: AppUserID(validating: "$RCAnonymousID:8b4e2cbb6c1c4a1f9c0d2f1b3a6e7d90")) == nil)

            let signing = try await server.send(
                .post, "/v1/offers", key: app.publicProduction, json: try RevenueCatFixtures.text("sdk/offers.request.json"))
            #expect(signing.status == 200, "\(signing.body)")
            #expect(RevenueCatDecoding.offerSigningProblems(signing.body) == [])
            let offer = try #require((try signing.object()["offers"] as? [[String: Any]])?.first)
            #expect(offer["offer_id"] as? String == "winback_50" && offer["product_id"] as? String == "com.example.pro.monthly")
            // 7232 is RevenueCat's "user ineligible for promotional offer": the SDK's `ineligibleError`.
            #expect((offer["signature_error"] as? [String: Any])?["code"] as? Int == 7232)
            #expect(offer["signature_data"] == nil)

            // Bad requests are refused as such, never a 5xx; no key is RevenueCat's 401.
            for body in [
                "{}", #"{"app_user_id": "", "generate_offers": []}"#, #"{"app_user_id": "a", "generate_offers": [{"offer_id": "x"}]}"#, "nope",
            ] {
                let reply = try await server.send(.post, "/v1/offers", key: app.publicProduction, json: body)
                #expect(reply.status == 400 && reply.code != nil, "\(body): \(reply.status) \(reply.body)")
            }
            let many = (0..<101).map { #"{"offer_id": "o\#($0)", "product_id": "p"}"# }.joined(separator: ",")
            let tooMany = try await server.send(
                .post, "/v1/offers", key: app.publicProduction, json: #"{"app_user_id": "a", "generate_offers": [\#(many)]}"#)
            #expect(tooMany.status == 400 && tooMany.body.contains("generate_offers"), "\(tooMany.body)")
            #expect(try await server.send(.post, "/v1/subscribers/null/intro_eligibility", key: app.publicProduction, json: "{}").status == 400)
            #expect(try await server.send(.post, "\(user)/attribution", key: nil, json: "{}").status == 401)
        }
    }

    /// A store purchase is refused with Redeem's own code; a restore that carries no purchase (iOS's for a buyer who
    /// bought only on the web) answers the CustomerInfo, so "Restore purchases" works.
    @Test(arguments: TestDatabases.available)
    func receiptsAreRefusedUnlessThereIsNothingToValidate(_ backend: TestBackend) async throws {
        try await TestServer.with(backend) { server in
            let app = try await server.createAppWithCatalog()
            _ = try await server.grant(app, #"{"app_user_id": "alice", "product_id": "lifetime"}"#)
            let store = try await server.send(
                .post, "/v1/receipts", key: app.publicProduction,
                json: #"{"app_user_id": "alice", "fetch_token": "MIIT…", "product_ids": ["com.x.pro"], "is_restore": false}"#)
            #expect(store.status == 400 && store.code == 7990, "\(store.body)")
            #expect(RevenueCatDecoding.errorProblems(store.body) == [])
            let restore = try await server.send(
                .post, "/v1/receipts", key: app.publicProduction,
                json: #"{"app_user_id": "alice", "is_restore": true, "app_transaction": "eyJ…", "initiation_source": "restore"}"#)
            #expect(restore.status == 200, "\(restore.body)")
            #expect(RevenueCatDecoding.customerInfoProblems(restore.body) == [])
            #expect(try restore.string("subscriber.entitlements.pro.product_identifier") == "lifetime")
            for body in ["{}", #"{"app_user_id": ""}"#, #"{"app_user_id": "null", "fetch_token": "x"}"#, "nope"] {
                let reply = try await server.send(.post, "/v1/receipts", key: app.publicProduction, json: body)
                #expect(reply.status == 400 && reply.code != nil, "\(body): \(reply.body)")
            }
        }
    }

    /// `X-RevenueCat-Request-Time` (epoch milliseconds) on every `/v1` answer, errors included; never an ETag or a 304,
    /// even when the SDK sends its empty `X-RevenueCat-ETag`.
    @Test(arguments: TestDatabases.available)
    func everyV1AnswerCarriesTheRequestTimeAndNoETag(_ backend: TestBackend) async throws {
        let clock = ManualClock(TestServer.start.addingTimeInterval(0.25))
        try await TestServer.with(backend, clock: clock) { server in
            let app = try await server.createApp()
            let etag: HTTPFields = [HTTPField.Name("X-RevenueCat-ETag")!: ""]
            for (method, path, key) in [
                (HTTPRequest.Method.get, "/v1/subscribers/alice", app.publicProduction), (.get, "/v1/subscribers/alice", app.publicProduction),
                (.get, "/v1/subscribers/alice/offerings", app.publicProduction), (.get, "/v1/product_entitlement_mapping", app.publicProduction),
                (.get, "/v1/subscribers/alice", nil), (.get, "/v1/subscribers/null", app.publicProduction),
                (.get, "/v1/nowhere", app.publicProduction),
            ] {
                let reply = try await server.send(method, path, key: key, headers: etag)
                #expect(reply.headers[Self.requestTime] == "1780272000250", "\(path) \(reply.status)")
                #expect(reply.headers[HTTPField.Name("X-RevenueCat-ETag")!] == nil && reply.status != 304)
            }
            // Pages and the admin API are not RevenueCat's: no such header there.
            #expect(try await server.send(.get, "/admin/v1/apps", key: server.adminKey).headers[Self.requestTime] == nil)
        }
    }

    /// iOS escapes only the colon (`$RCAnonymousID%3A…`), Android the dollar too; `+` is a plus, never a space; no ID
    /// brings a 5xx (on a 5xx the SDKs compute entitlements from the stores alone and lose the web's).
    @Test(arguments: TestDatabases.available)
    func idsInPathsAreDecodedStrictly(_ backend: TestBackend) async throws {
        try await TestServer.with(backend, setup: .live) { server in
            let app = try await server.createApp()
            let anonymous = "$RCAnonymousID:0123456789abcdef0123456789abcdef"
            for platform in RevenueCatDecoding.Platform.allCases {
                let path = "/v1/subscribers/\(RevenueCatFixtures.pathID(anonymous, platform))"
                #expect(try await server.send(.get, path, key: app.publicProduction).string("subscriber.original_app_user_id") == anonymous)
            }
            _ = try await SubscriberAttributesTests.post(server, app.publicProduction, user: "a+b", ["tag": ["value": "plus", "updated_at_ms": 1]])
            let plus = try await server.send(.get, "/v1/subscribers/a+b", key: app.secret)
            #expect(try plus.string("subscriber.original_app_user_id") == "a+b")
            #expect(try plus.object().value(at: "subscriber.subscriber_attributes.tag.value") as? String == "plus")
            #expect(try await server.send(.get, "/v1/subscribers/a%2Bb", key: app.secret).string("subscriber.original_app_user_id") == "a+b")
            #expect(try await server.deps.store.findCustomer(appID: app.id, appUserID: .init(validating: "a b")) == nil)

            for path in [
                "%00", "%FF%FE", "%", "%zz", "..%2F..%2Fetc", String(repeating: "%41", count: 200), "a%0Ab", "%E2%80%AE", "%F0%9F%98%80", "''%3B--",
                "$RCAnonymousID%3A", "%24RCAnonymousID", "a%2Fb", "%20", "x?y=1",
            ] {
                for suffix in ["", "/offerings", "/attributes", "/virtual_currencies"] {
                    let method: HTTPRequest.Method = suffix == "/attributes" ? .post : .get
                    let reply = try await server.send(
                        method, "/v1/subscribers/\(path)\(suffix)", key: app.publicProduction, json: method == .post ? #"{"attributes": {}}"# : nil)
                    #expect(reply.status < 500, "\(path)\(suffix) → \(reply.status) \(reply.body)")
                    if reply.status >= 400 { #expect(RevenueCatDecoding.errorProblems(reply.body) == [], "\(path)\(suffix)") }
                }
            }
        }
    }
}

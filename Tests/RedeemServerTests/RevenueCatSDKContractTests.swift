import Foundation
import HTTPTypes
import RedeemTestSupport
import Testing

/// RevenueCat's own SDKs pointed at Redeem with `proxyURL`: every request purchases-ios and purchases-android make at
/// start, in the foreground and background, on restore, redemption, `logIn` and `logOut` (`Tests/Fixtures/revenuecat/
/// sequences/`), replayed over real HTTP with their headers and ID encodings. Each answer must be one their decoding
/// models accept (`RevenueCatDecoding`) or the documented error, never a 404, 405, 304 or 5xx.
@Suite struct RevenueCatSDKContractTests {
    static let newAnonymous = "$RCAnonymousID:f0e1d2c3b4a5968778695a4b3c2d1e0f"
    /// The fixtures' stand-in for a real redemption token.
    static let fixtureToken = "rt_1f0c4b7e9a"

    /// The order an app's life takes them in: the restore runs while the buyer is still anonymous, so the redemption and
    /// `logIn` that follow carry the web purchase to the new ID.
    static func rank(_ flow: String) -> Int {
        ["cold_start", "first_background", "foreground", "background", "restorePurchases", "redeemWebPurchase", "logIn", "sync", "logOut"]
            .firstIndex { flow.hasPrefix($0) } ?? 99
    }

    static var cases: [(TestBackend, RevenueCatDecoding.Platform)] {
        TestDatabases.available.flatMap { backend in RevenueCatDecoding.Platform.allCases.map { (backend, $0) } }
    }

    @Test(arguments: cases)
    func everyCallOfTheSDKsFlowsIsAnswered(_ backend: TestBackend, _ platform: RevenueCatDecoding.Platform) async throws {
        try await TestServer.with(backend, setup: .live) { server in
            let app = try await server.createRevenueCatApp()
            let sequence = try #require(try RevenueCatFixtures.json("sequences/\(platform.rawValue).json") as? [String: Any])
            let ids = try #require(sequence["ids"] as? [String: String])
            let anonymous = try #require(ids["anon"])
            let flows = try #require(sequence["flows"] as? [String: [[String: Any]]])
            // A web purchase the anonymous buyer redeems with the link's token.
            let granted = try await server.grant(
                app, #"{"app_user_id": "$RCAnonymousID:00000000000040008000000000000001", "product_id": "pro_annual", "email": "ada@example.test"}"#)
            let token = try RedemptionAPITests.token(from: granted)

            var current = anonymous
            var answered = 0
            for name in flows.keys.sorted(by: { (Self.rank($0), $0) < (Self.rank($1), $1) }) {
                for step in flows[name]! {
                    if step["method"] == nil {
                        if name.hasPrefix("logOut") { current = Self.newAnonymous }  // the SDK makes a new ID locally
                        continue
                    }
                    let method = HTTPRequest.Method(rawValue: try #require(step["method"] as? String))!
                    let rawPath = try #require(step["path"] as? String)
                    let path = rawPath.replacingOccurrences(of: "{anon_path}", with: RevenueCatFixtures.pathID(anonymous, platform))
                        .replacingOccurrences(of: "{new_anon_path}", with: RevenueCatFixtures.pathID(Self.newAnonymous, platform))
                        .replacingOccurrences(of: "{current}", with: RevenueCatFixtures.pathID(current, platform))
                    let body = try Self.body(of: step, path: path, platform: platform, current: current, token: token)
                    let noKey = path == "/v1/health" || path.hasSuffix("/health_report_availability")
                    let isConfig = path.hasPrefix("/v1/config/")
                    var headers = RevenueCatFixtures.headers(platform, etag: !noKey && !isConfig)
                    for (field, value) in step["headers"] as? [String: String] ?? [:] { headers[HTTPField.Name(field)!] = value }
                    let reply = try await server.send(method, path, key: noKey ? nil : app.publicSandbox, json: body, headers: headers)
                    let what = "\(platform) \(backend) \(name): \(method) \(path) → \(reply.status) \(reply.body.prefix(300))"

                    #expect(![304, 404, 405].contains(reply.status) && reply.status < 500, "\(what)")
                    if let accepted = (step["expect"] as? [String: Any])?["status"] as? [Int] {
                        #expect(accepted.contains(reply.status), "\(what)")
                    }
                    #expect(reply.headers[HTTPField.Name("X-RevenueCat-Request-Time")!] == "1780272000000", "\(what)")
                    #expect(reply.headers[HTTPField.Name("X-RevenueCat-ETag")!] == nil, "\(what)")
                    if reply.status == 204 {
                        #expect(reply.body.isEmpty, "\(what)")
                    } else {
                        #expect(reply.headers[.contentType]?.hasPrefix("application/json") == true, "\(what)")
                    }
                    #expect(Self.problems(reply, path: path, platform: platform, body: body) == [], "\(what)")
                    if path == "/v1/subscribers/identify", reply.status < 300 {
                        // The link was redeemed anonymously: the new ID, created now (201), keeps what it unlocked.
                        #expect(reply.status == 201, "\(what)")
                        #expect(try reply.string("subscriber.entitlements.pro.product_identifier") == "pro_annual", "\(what)")
                        current = try #require((RevenueCatDecoding.object(body ?? "")?["new_app_user_id"]) as? String)
                    }
                    answered += 1
                }
            }
            #expect(answered >= 20)
            // After logOut, the new anonymous ID owns nothing; the logged-in user keeps the web purchase.
            let anonymousAgain = try await server.send(
                .get, "/v1/subscribers/\(RevenueCatFixtures.pathID(Self.newAnonymous, platform))", key: app.publicSandbox)
            #expect((try anonymousAgain.object().value(at: "subscriber.entitlements") as? [String: Any])?.isEmpty == true)
            let user = try await server.send(.get, "/v1/subscribers/user-4711", key: app.publicSandbox)
            #expect(try user.string("subscriber.entitlements.pro.product_identifier") == "pro_annual")
        }
    }

    /// A step's body: a fixture file, an inline object, or (when the flow leaves it out) what the SDK would send.
    static func body(
        of step: [String: Any], path: String, platform: RevenueCatDecoding.Platform, current: String, token: String
    ) throws -> String? {
        var text: String?
        switch step["body"] {
        case let file as String: text = try RevenueCatFixtures.text(file)
        case let object as [String: Any]: text = String(decoding: try JSONSerialization.data(withJSONObject: object), as: UTF8.self)
        default:
            if path.hasSuffix("/attributes") {
                text = try RevenueCatFixtures.text("sdk/attributes.request.\(platform.rawValue).json")
            } else if path == "/v1/receipts" {
                // A store purchase (a Play token, a StoreKit transaction): Redeem validates none.
                text = #"{"app_user_id": "{current}", "fetch_token": "store-purchase-token", "product_ids": ["pro"], "is_restore": false}"#
            } else if step["method"] as? String == "POST" {
                text = "{}"
            }
        }
        let escapedCurrent = String(String(decoding: try JSONSerialization.data(withJSONObject: [current]), as: UTF8.self).dropFirst(2).dropLast(2))
        return text?.replacingOccurrences(of: "{current}", with: escapedCurrent).replacingOccurrences(of: fixtureToken, with: token)
    }

    /// What the SDK's decoder for this route would reject.
    static func problems(_ reply: TestServer.Reply, path: String, platform: RevenueCatDecoding.Platform, body: String?) -> [String] {
        if reply.status == 204 { return [] }
        if reply.status >= 400 {
            var problems = RevenueCatDecoding.errorProblems(reply.body)
            // The only refusal in these flows: a store purchase, with Redeem's own code.
            if path != "/v1/receipts" || reply.code != 7990 || body?.contains("fetch_token") != true {
                problems.append("unexpected refusal")
            }
            return problems
        }
        if path.hasSuffix("/offerings") {
            var problems = RevenueCatDecoding.offeringsProblems(reply.body)
            // Each store sees its own product IDs; Play subscriptions carry their base plan; store-less products are left out.
            let packages = (RevenueCatDecoding.object(reply.body)?["offerings"] as? [[String: Any]] ?? []).flatMap {
                $0["packages"] as? [[String: Any]] ?? []
            }
            let products = Set(packages.map { "\($0["platform_product_identifier"] ?? "")|\($0["platform_product_plan_identifier"] ?? "-")" })
            let expected: Set<String> =
                platform == .ios
                ? ["app.example.pro.monthly|-", "app.example.pro.annual|-", "app.example.founders|-"]
                : ["pro|monthly", "pro|annual", "founders|-"]
            if products != expected { problems.append("packages \(products.sorted()), expected \(expected.sorted())") }
            return problems
        }
        if path == "/v1/product_entitlement_mapping" { return RevenueCatDecoding.mappingProblems(reply.body) }
        if path.hasSuffix("/health_report_availability") {
            return RevenueCatDecoding.object(reply.body)?["report_logs"] as? Bool == false ? [] : ["report_logs is not false"]
        }
        if path.hasPrefix("/v1/subscribers/") && !path.hasSuffix("/alias") || path == "/v1/receipts" {
            return RevenueCatDecoding.customerInfoProblems(reply.body)
        }
        return RevenueCatDecoding.object(reply.body) == nil ? ["not a JSON object"] : []
    }

    /// The checks are honest: the fixtures written from the SDKs' models pass them, and each breakage they name fails.
    @Test func theDecodingRulesAcceptTheFixturesAndRejectTheirBreakages() throws {
        for file in ["sdk/customer_info.empty.json", "sdk/customer_info.web_entitlement.json"] {
            #expect(RevenueCatDecoding.customerInfoProblems(try RevenueCatFixtures.text(file)) == [], "\(file)")
        }
        for file in ["sdk/offerings.ios.json", "sdk/offerings.android.json", "sdk/offerings.empty.json"] {
            #expect(RevenueCatDecoding.offeringsProblems(try RevenueCatFixtures.text(file)) == [], "\(file)")
        }
        #expect(RevenueCatDecoding.mappingProblems(try RevenueCatFixtures.text("sdk/product_entitlement_mapping.json")) == [])
        #expect(RevenueCatDecoding.errorProblems(try RevenueCatFixtures.text("sdk/receipts.not_supported.json")) == [])

        let offerings = try RevenueCatFixtures.text("sdk/offerings.android.json")
        for (broken, why) in [
            (offerings.replacingOccurrences(of: #""current_offering_id""#, with: #""current""#), "current_offering_id"),
            (offerings.replacingOccurrences(of: #""description": "Main paywall""#, with: #""description": null"#), "description"),
            (
                offerings.replacingOccurrences(
                    of: #""platform_product_plan_identifier": "monthly""#, with: #""platform_product_plan_identifier": null"#), "plan"
            ),
        ] {
            #expect(RevenueCatDecoding.offeringsProblems(broken) != [], "\(why)")
        }
        let info = try RevenueCatFixtures.text("sdk/customer_info.web_entitlement.json")
        #expect(RevenueCatDecoding.customerInfoProblems(info.replacingOccurrences(of: #""non_subscriptions""#, with: #""other""#)) != [])
        #expect(RevenueCatDecoding.customerInfoProblems(info.replacingOccurrences(of: #""first_seen""#, with: #""seen""#)) != [])
        #expect(info.contains(#""amount": 4.99"#))
        #expect(RevenueCatDecoding.customerInfoProblems(info.replacingOccurrences(of: #""amount": 4.99"#, with: #""amount": "4.99""#)) != [])
    }
}

import Foundation
import HTTPTypes
import Testing

/// The fixtures under `Tests/Fixtures/revenuecat` (their README cites the SDK sources each is written from), and an
/// app whose catalog serves both stores and the web, as an app moving from RevenueCat would set it up.
enum RevenueCatFixtures {
    static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/revenuecat")

    static func text(_ name: String) throws -> String {
        try String(contentsOf: directory.appendingPathComponent(name), encoding: .utf8)
    }

    static func json(_ name: String) throws -> Any {
        try JSONSerialization.jsonObject(with: Data(try text(name).utf8))
    }

    /// An app user ID as each SDK puts it in a path: iOS escapes the colon only (`$RCAnonymousID%3A…`), Android both
    /// (`%24RCAnonymousID%3A…`) (purchases-ios `String+Extensions.swift`, purchases-android `Endpoint.kt`).
    static func pathID(_ id: String, _ platform: RevenueCatDecoding.Platform) -> String {
        var allowed = CharacterSet.urlPathAllowed
        allowed.remove(charactersIn: ":/?#")
        if platform == .android { allowed.remove(charactersIn: "$+&=;,@") }
        return id.addingPercentEncoding(withAllowedCharacters: allowed)!
    }

    /// The headers both SDKs send on every call (purchases-ios `HTTPClient.swift`, purchases-android `HTTPClient.kt`):
    /// an empty `X-RevenueCat-ETag` is normal and must not bring a 304.
    static func headers(_ platform: RevenueCatDecoding.Platform, etag: Bool = true) -> HTTPFields {
        var fields: HTTPFields = [
            HTTPField.Name("X-Platform")!: platform.header, HTTPField.Name("X-Platform-Flavor")!: "native",
            HTTPField.Name("X-Version")!: platform == .ios ? "5.83.0" : "10.16.0", HTTPField.Name("X-Retry-Count")!: "0",
            HTTPField.Name("X-Is-Sandbox")!: "true", HTTPField.Name("X-Client-Locale")!: "en-US",
        ]
        if etag { fields[HTTPField.Name("X-RevenueCat-ETag")!] = "" }
        return fields
    }
}

extension TestServer {
    /// Products with App Store and Google Play identifiers and web prices, in two offerings (`main` current):
    /// `$rc_monthly` and `$rc_annual` (Play subscriptions with base plans), a lifetime product sold only in the stores,
    /// and a web-only product no store can show.
    func createRevenueCatApp() async throws -> CreatedAppKeys {
        let app = try await createApp()
        for product in [
            #"{"id": "pro_monthly", "type": "subscription", "period": "P1M", "entitlements": ["pro"], "price": {"amount": "4.99", "currency": "USD"}, "store_identifiers": {"app_store": "app.example.pro.monthly", "play_store": "pro", "play_base_plan": "monthly"}}"#,
            #"{"id": "pro_annual", "type": "subscription", "period": "P1Y", "entitlements": ["pro"], "price": {"amount": "39.99", "currency": "USD"}, "store_identifiers": {"app_store": "app.example.pro.annual", "play_store": "pro", "play_base_plan": "annual"}}"#,
            #"{"id": "founders", "type": "non_consumable", "entitlements": ["pro", "founder"], "store_identifiers": {"app_store": "app.example.founders", "play_store": "founders"}}"#,
            #"{"id": "web_pack", "type": "non_consumable", "entitlements": ["extra"], "price": {"amount": "9.99", "currency": "USD"}}"#,
        ] {
            let reply = try await send(.post, "/admin/v1/apps/\(app.id)/products", key: app.secret, json: product)
            #expect(reply.status == 201, "\(reply.body)")
        }
        for offering in [
            #"{"identifier": "main", "description": "Main paywall", "metadata": {"headline": "Go Pro", "show_badge": true}, "is_current": true, "packages": [{"identifier": "$rc_monthly", "product_id": "pro_monthly"}, {"identifier": "$rc_annual", "product_id": "pro_annual"}, {"identifier": "founders_lifetime", "product_id": "founders"}, {"identifier": "web_extra", "product_id": "web_pack"}]}"#,
            #"{"identifier": "winback", "description": "Win-back offer", "packages": [{"identifier": "$rc_annual", "product_id": "pro_annual"}]}"#,
        ] {
            let reply = try await send(.post, "/admin/v1/apps/\(app.id)/offerings", key: app.secret, json: offering)
            #expect(reply.status == 201, "\(reply.body)")
        }
        return app
    }
}

import Foundation

@testable import RedeemKit

/// JSON bodies and instances for tests.
enum Fixture {
    /// 2023-11-14T22:13:20Z.
    static let requestDate = Date(timeIntervalSince1970: 1_700_000_000)
    static let baseURL = URL(string: "https://pay.example.com")!
    static let day: TimeInterval = 24 * 60 * 60

    struct Entitlement {
        var id: String
        var product: String = "monthly"
        var expires: Date?
        var grace: Date?
    }

    static func iso(_ date: Date) -> String {
        date.formatted(.iso8601)
    }

    static func customerInfoObject(
        requestDate: Date = requestDate,
        originalAppUserID: String = "user-1",
        entitlements: [Entitlement] = [Entitlement(id: "pro", expires: requestDate + 30 * day)],
        store: String = "stripe"
    ) -> [String: Any] {
        var entitlementObjects: [String: Any] = [:]
        var subscriptions: [String: Any] = [:]
        for entitlement in entitlements {
            entitlementObjects[entitlement.id] =
                [
                    "product_identifier": entitlement.product,
                    "purchase_date": iso(requestDate - day),
                    "expires_date": entitlement.expires.map(iso) ?? NSNull(),
                    "grace_period_expires_date": entitlement.grace.map(iso) ?? NSNull(),
                ] as [String: Any]
            subscriptions[entitlement.product] =
                [
                    "purchase_date": iso(requestDate - day),
                    "expires_date": entitlement.expires.map(iso) ?? NSNull(),
                    "store": store,
                    "is_sandbox": false,
                    "period_type": "normal",
                    "price": ["currency": "USD", "amount": 4.99],
                ] as [String: Any]
        }
        return [
            "request_date": iso(requestDate),
            "request_date_ms": Int(requestDate.timeIntervalSince1970 * 1000),
            "subscriber": [
                "original_app_user_id": originalAppUserID,
                "first_seen": iso(requestDate - 10 * day),
                "entitlements": entitlementObjects,
                "subscriptions": subscriptions,
                "non_subscriptions": [String: Any](),
            ] as [String: Any],
        ]
    }

    static var redemptionInfoObject: [String: Any] {
        [
            "purchaser_email": "jane@example.com",
            "store": "stripe",
            "store_identifiers": [
                "stripe_customer_id": "cus_123",
                "stripe_subscription_id": "sub_456",
                "checkout_session_id": "cs_789",
            ],
            "owner_app_user_id": "user-1",
            "product_identifier": "monthly",
            "entitlements": ["pro"],
            "purchase_id": "pur_1",
        ]
    }

    static func json(_ object: [String: Any]) -> Data {
        try! JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])
    }

    static func customerInfoResponse(
        status: Int = 200,
        requestDate: Date = requestDate,
        entitlements: [Entitlement] = [Entitlement(id: "pro", expires: requestDate + 30 * day)]
    ) -> HTTPResponse {
        HTTPResponse(statusCode: status, body: json(customerInfoObject(requestDate: requestDate, entitlements: entitlements)))
    }

    static func redeemSuccess(
        requestDate: Date = requestDate,
        entitlements: [Entitlement] = [Entitlement(id: "pro", expires: requestDate + 30 * day)]
    ) -> HTTPResponse {
        var object = customerInfoObject(requestDate: requestDate, entitlements: entitlements)
        object["redemption_info"] = redemptionInfoObject
        return HTTPResponse(statusCode: 200, body: json(object))
    }

    static func error(status: Int, code: Any?, extra: [String: Any] = [:], headers: [String: String] = [:]) -> HTTPResponse {
        var object: [String: Any] = ["message": "Something happened."]
        if let code { object["code"] = code }
        object.merge(extra) { $1 }
        return HTTPResponse(statusCode: status, headers: headers, body: json(object))
    }

    static func decodeCustomerInfo(_ object: [String: Any]) throws -> CustomerInfo {
        try JSONCoding.decoder().decode(CustomerInfo.self, from: json(object))
    }

    static func temporaryDirectory() -> URL {
        FileManager.default.temporaryDirectory.appendingPathComponent("redeemkit-tests-\(UUID().uuidString)", isDirectory: true)
    }

    /// A `Redeem` on a fake transport, an instant clock and a fresh temporary directory.
    static func redeem(
        transport: FakeTransport,
        clock: TestClock = TestClock(),
        appUserID: String? = "user-1",
        storage: (any KeyValueStorage)? = InMemoryStorage(),
        directory: URL = temporaryDirectory(),
        retryPolicy: RetryPolicy = RetryPolicy(random: { 0 }),
        cacheMaxAge: TimeInterval = day,
        redemptionLinkHosts: [String]? = nil,
        urlScheme: String? = nil
    ) -> Redeem {
        Redeem(
            configuration: Redeem.Configuration(
                apiKey: "pk_test_123",
                baseURL: baseURL,
                appUserID: appUserID,
                redemptionLinkHosts: redemptionLinkHosts,
                urlScheme: urlScheme,
                storageDirectory: directory,
                keyValueStorage: storage,
                transport: transport,
                clock: clock,
                retryPolicy: retryPolicy,
                cacheMaxAge: cacheMaxAge,
                refreshOnConfigure: false
            ))
    }

    static let redemption = WebPurchaseRedemption(redemptionToken: "tok_abc")
}

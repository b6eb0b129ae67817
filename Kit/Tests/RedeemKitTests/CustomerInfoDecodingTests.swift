import Foundation
import Testing

@testable import RedeemKit

@Suite("CustomerInfo decoding")
struct CustomerInfoDecodingTests {
    /// Condensed from RevenueCat's documented payload.
    static let payload = """
        {"request_date": "2019-08-16T10:30:42Z", "request_date_ms": 1565951442879,
         "subscriber": {
           "original_app_user_id": "$RCAnonymousID:abc", "original_application_version": "2083",
           "original_purchase_date": "2019-07-26T23:30:41Z", "first_seen": "2019-06-17T16:05:33Z",
           "management_url": "https://billing.example.com", "other_purchases": {},
           "subscriptions": {
             "pro_monthly": {"purchase_date": "2019-07-26T23:30:41Z", "expires_date": "2100-04-06T20:54:45Z",
               "store": "rc_billing", "is_sandbox": true, "period_type": "normal", "ownership_type": "PURCHASED",
               "unsubscribe_detected_at": null, "billing_issues_detected_at": null, "grace_period_expires_date": null,
               "price": {"currency": "USD", "amount": 4.99}},
             "old_weekly": {"purchase_date": "2019-07-01T00:00:00.000Z", "expires_date": "2019-08-01T00:00:00.000Z",
               "store": "hologram_store", "period_type": "quantum", "price": {"currency": "EUR", "amount": "2.49"}}
           },
           "non_subscriptions": {"lifetime_access": [{"id": "b6c007ba74", "purchase_date": "2019-07-26T23:30:41Z",
               "store": "play_store", "is_sandbox": true, "price": {"currency": "USD", "amount": "99.99"}}]},
           "entitlements": {
             "pro": {"expires_date": "2100-04-06T20:54:45Z", "purchase_date": "2019-07-26T23:30:41Z",
               "product_identifier": "pro_monthly", "product_plan_identifier": "monthly", "grace_period_expires_date": null},
             "forever_pro": {"expires_date": null, "product_identifier": "lifetime_access", "purchase_date": "2019-07-26T23:30:41Z"},
             "weekly": {"expires_date": "2019-08-01T00:00:00Z", "product_identifier": "old_weekly"},
             "graceful": {"expires_date": "2019-08-15T00:00:00Z", "grace_period_expires_date": "2019-08-20T00:00:00Z",
               "product_identifier": "pro_monthly"},
             "tomorrow": {"expires_date": "2019-08-17T10:30:42Z", "product_identifier": "pro_monthly"},
             "garbled": {"expires_date": "not a date", "product_identifier": "pro_monthly"}
           },
           "subscriber_attributes": {"$email": {"value": "jane@example.com", "updated_at_ms": 1581121853000}}}}
        """

    func decode(_ json: String) throws -> CustomerInfo {
        try JSONCoding.decoder().decode(CustomerInfo.self, from: Data(json.utf8))
    }

    @Test func decodesTheDocumentedPayload() throws {
        let info = try decode(Self.payload)
        #expect(info.requestDate == Date(timeIntervalSince1970: 1_565_951_442))
        #expect(info.originalAppUserID == "$RCAnonymousID:abc")
        #expect(info.managementURL == URL(string: "https://billing.example.com"))
        #expect(info.subscriptions["pro_monthly"]?.store == .rcBilling)
        #expect(info.subscriptions["pro_monthly"]?.isSandbox == true)
        #expect(info.subscriptions["pro_monthly"]?.ownershipType == .purchased)
        #expect(info.nonSubscriptions["lifetime_access"]?.first?.transactionIdentifier == "b6c007ba74")
        #expect(info.entitlements["pro"]?.productPlanIdentifier == "monthly")
        #expect(info.entitlements["pro"]?.store == .rcBilling)
        #expect(info.entitlements["forever_pro"]?.store == .playStore)
    }

    @Test func activityIsComputedAgainstTheRequestDate() throws {
        let info = try decode(Self.payload)
        #expect(info.entitlements["pro"]?.isActive == true)
        #expect(info.entitlements["forever_pro"]?.isActive == true)
        #expect(info.entitlements["forever_pro"]?.isLifetime == true)
        #expect(info.entitlements["weekly"]?.isActive == false)
        // Expired, but the grace period runs past the request date.
        #expect(info.entitlements["graceful"]?.isActive == true)
        // Expires a day after the 2019 request date: active, although that is long past today.
        #expect(info.entitlements["tomorrow"]?.isActive == true)
        #expect(info.activeEntitlementIDs == ["pro", "forever_pro", "graceful", "tomorrow"])
    }

    @Test func unknownValuesAreKept() throws {
        let info = try decode(Self.payload)
        let store = try #require(info.subscriptions["old_weekly"]?.store)
        #expect(store == Store(rawValue: "hologram_store"))
        #expect(!store.isKnown)
        #expect(Store.stripe.isKnown)
        #expect(info.subscriptions["old_weekly"]?.periodType == PeriodType(rawValue: "quantum"))
    }

    @Test func priceAmountMayBeAStringOrANumber() throws {
        let info = try decode(Self.payload)
        #expect(info.subscriptions["pro_monthly"]?.price == Price(currency: "USD", amount: Decimal(string: "4.99")!))
        #expect(info.subscriptions["old_weekly"]?.price == Price(currency: "EUR", amount: Decimal(string: "2.49")!))
        #expect(info.nonSubscriptions["lifetime_access"]?.first?.price?.amount == Decimal(string: "99.99")!)
    }

    @Test func aGarbledExpiryDropsThatEntitlementNotTheResponse() throws {
        let info = try decode(Self.payload)
        #expect(info.entitlements["garbled"] == nil)
        #expect(info.entitlements.count == 5)
    }

    @Test func requestDateFallsBackToMilliseconds() throws {
        let info = try decode(#"{"request_date_ms": 1565951442879, "subscriber": {}}"#)
        #expect(abs(info.requestDate.timeIntervalSince1970 - 1_565_951_442.879) < 0.001)
        #expect(info.entitlements.isEmpty)
    }

    @Test func fractionalSecondsAreAccepted() throws {
        let info = try decode(#"{"request_date": "2019-08-16T10:30:42.500Z", "subscriber": {}}"#)
        #expect(info.requestDate == Date(timeIntervalSince1970: 1_565_951_442.5))
    }

    @Test(arguments: [
        ("2019-08-16T10:30:42Z", 1_565_951_442.0),
        ("2019-08-16T10:30:42.250Z", 1_565_951_442.25),
        ("2019-08-16T12:30:42+02:00", 1_565_951_442.0),
        ("2019-08-16T10:30:42.250+00:00", 1_565_951_442.25),
    ])
    func acceptsISO8601Variants(string: String, seconds: Double) {
        #expect(JSONCoding.parseDate(string) == Date(timeIntervalSince1970: seconds))
    }

    @Test func largeAndPreciseAmountsKeepTheirDigits() throws {
        let data = Data(#"[{"currency": "JPY", "amount": 1200}, {"currency": "USD", "amount": 0.1}, {"currency": "USD", "amount": " 19.99 "}]"#.utf8)
        let prices = try JSONDecoder().decode([Price].self, from: data)
        #expect(prices.map(\.amount) == [Decimal(1200), Decimal(string: "0.1")!, Decimal(string: "19.99")!])
    }

    @Test(arguments: [
        #"{"subscriber": {}}"#,
        #"{"request_date": "2019-08-16T10:30:42Z"}"#,
        #"[]"#,
        #"{"request_date": "yesterday", "subscriber": {}}"#,
    ])
    func rejectsResponsesWithoutTheEssentials(json: String) {
        #expect(throws: (any Error).self) { try decode(json) }
    }

    @Test func roundTripsThroughTheCacheEncoding() throws {
        let info = try decode(Self.payload)
        let data = try JSONCoding.encoder().encode(info)
        let again = try JSONCoding.decoder().decode(CustomerInfo.self, from: data)
        #expect(again == info)
    }

    @Test func reevaluationKeepsEntitlementsButUpdatesActivity() throws {
        let info = try decode(Self.payload)
        let later = info.evaluated(at: Date(timeIntervalSince1970: 1_565_951_442 + 2 * 86_400))
        #expect(later.entitlements.count == info.entitlements.count)
        #expect(later.entitlements["tomorrow"]?.isActive == false)
        #expect(later.entitlements["pro"]?.isActive == true)
    }
}

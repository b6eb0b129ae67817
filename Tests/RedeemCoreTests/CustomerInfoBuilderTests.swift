import Foundation
import RedeemCore
import Testing

@Suite struct CustomerInfoBuilderTests {
    let now = ISODate.parse("2026-06-01T00:00:00Z")!
    let customer = Customer(
        id: "cus_1", appID: "app_1", originalAppUserID: "alice", aliases: ["alice"],
        firstSeen: ISODate.parse("2026-01-01T00:00:00Z")!, lastSeen: ISODate.parse("2026-05-01T00:00:00Z")!
    )
    let products: [String: Product] = [
        "monthly": Product(
            appID: "app_1", id: "monthly", type: .subscription, period: "P1M", displayName: "Monthly", entitlements: ["pro"], createdAt: .distantPast),
        "yearly": Product(
            appID: "app_1", id: "yearly", type: .subscription, period: "P1Y", displayName: nil, entitlements: ["pro", "extra"],
            createdAt: .distantPast),
        "lifetime": Product(
            appID: "app_1", id: "lifetime", type: .nonConsumable, period: nil, displayName: nil, entitlements: ["pro"], createdAt: .distantPast),
        "coins": Product(
            appID: "app_1", id: "coins", type: .consumable, period: nil, displayName: "Coins", entitlements: [], createdAt: .distantPast),
    ]

    func purchase(_ product: String, _ start: String, expires: String?, refunded: Bool = false, grace: String? = nil) -> Purchase {
        Purchase(
            id: "pur_\(product)_\(start)", appID: "app_1", customerID: "cus_1", productID: product, store: .rcBilling, isSandbox: false,
            purchaseDate: ISODate.parse(start)!, originalPurchaseDate: ISODate.parse(start)!, expiresDate: expires.flatMap(ISODate.parse),
            gracePeriodExpiresDate: grace.flatMap(ISODate.parse), storeTransactionID: "txn_\(product)",
            price: Price(amountMicros: 4_990_000, currency: "USD"), email: nil,
            refundedAt: refunded ? ISODate.parse("2026-05-02T00:00:00Z") : nil, createdAt: now
        )
    }

    func info(_ purchases: [Purchase]) -> CustomerInfo {
        CustomerInfo(customer: customer, purchases: purchases, products: products, requestDate: now)
    }

    @Test func activeSubscriptionGrantsItsEntitlements() {
        let info = info([purchase("yearly", "2026-01-01T00:00:00Z", expires: "2027-01-01T00:00:00Z")])
        #expect(info.subscriber.entitlements.keys.sorted() == ["extra", "pro"])
        #expect(info.subscriber.entitlements["pro"]?.expiresDate == "2027-01-01T00:00:00Z")
        #expect(info.subscriber.entitlements["pro"]?.productIdentifier == "yearly")
        #expect(info.subscriber.subscriptions["yearly"]?.store == "rc_billing")
        #expect(info.subscriber.subscriptions["yearly"]?.price?.amount == 4.99)
        #expect(info.requestDateMs == 1_780_272_000_000)
    }

    @Test func expiredSubscriptionStillListsTheEntitlementWithItsPastExpiry() {
        let info = info([purchase("monthly", "2026-03-01T00:00:00Z", expires: "2026-04-01T00:00:00Z")])
        #expect(info.subscriber.entitlements["pro"]?.expiresDate == "2026-04-01T00:00:00Z")
    }

    @Test func lifetimeBeatsAnySubscriptionAndHasNullExpiry() {
        let info = info([
            purchase("yearly", "2026-01-01T00:00:00Z", expires: "2027-01-01T00:00:00Z"),
            purchase("lifetime", "2026-02-01T00:00:00Z", expires: nil),
        ])
        #expect(info.subscriber.entitlements["pro"]?.productIdentifier == "lifetime")
        #expect(info.subscriber.entitlements["pro"]?.expiresDate == nil)
        #expect(info.subscriber.entitlements["extra"]?.productIdentifier == "yearly")
        #expect(info.subscriber.nonSubscriptions["lifetime"]?.count == 1)
    }

    @Test func laterExpiryWinsAcrossProducts() {
        let info = info([
            purchase("yearly", "2025-01-01T00:00:00Z", expires: "2026-01-01T00:00:00Z"),
            purchase("monthly", "2026-05-15T00:00:00Z", expires: "2026-06-15T00:00:00Z"),
        ])
        #expect(info.subscriber.entitlements["pro"]?.productIdentifier == "monthly")
    }

    @Test func refundedPurchasesGrantNothingButStayVisible() {
        let info = info([purchase("yearly", "2026-01-01T00:00:00Z", expires: "2027-01-01T00:00:00Z", refunded: true)])
        #expect(info.subscriber.entitlements.isEmpty)
        #expect(info.subscriber.subscriptions["yearly"]?.refundedAt == "2026-05-02T00:00:00Z")
    }

    @Test func gracePeriodExtendsTheEntitlementRank() {
        let info = info([
            purchase("monthly", "2026-04-01T00:00:00Z", expires: "2026-05-01T00:00:00Z", grace: "2026-07-01T00:00:00Z"),
            purchase("yearly", "2025-06-15T00:00:00Z", expires: "2026-06-15T00:00:00Z"),
        ])
        #expect(info.subscriber.entitlements["pro"]?.productIdentifier == "monthly")
        #expect(info.subscriber.entitlements["pro"]?.gracePeriodExpiresDate == "2026-07-01T00:00:00Z")
    }

    @Test func consumablesAreTransactionsWithoutEntitlements() {
        let info = info([purchase("coins", "2026-05-01T00:00:00Z", expires: nil), purchase("coins", "2026-05-02T00:00:00Z", expires: nil)])
        #expect(info.subscriber.nonSubscriptions["coins"]?.map(\.purchaseDate) == ["2026-05-01T00:00:00Z", "2026-05-02T00:00:00Z"])
        #expect(info.subscriber.entitlements.isEmpty)
        #expect(info.subscriber.subscriptions.isEmpty)
    }

    @Test func encodesRevenueCatKeysWithExplicitNulls() throws {
        let data = try JSONEncoder().encode(info([purchase("monthly", "2026-05-15T00:00:00Z", expires: "2026-06-15T00:00:00Z")]))
        let json = try #require(JSONSerialization.jsonObject(with: data) as? [String: Any])
        let subscriber = try #require(json["subscriber"] as? [String: Any])
        for key in [
            "original_app_user_id", "first_seen", "last_seen", "management_url", "subscriptions", "non_subscriptions",
            "entitlements", "other_purchases", "subscriber_attributes",
        ] {
            #expect(subscriber.keys.contains(key), "missing \(key)")
        }
        let subscription = try #require((subscriber["subscriptions"] as? [String: Any])?["monthly"] as? [String: Any])
        #expect(subscription["unsubscribe_detected_at"] is NSNull)
        #expect(subscription["is_sandbox"] as? Bool == false)
        let entitlement = try #require((subscriber["entitlements"] as? [String: Any])?["pro"] as? [String: Any])
        #expect(entitlement["grace_period_expires_date"] is NSNull)
        #expect(json["request_date"] as? String == "2026-06-01T00:00:00Z")
    }
}

import Foundation
import RedeemCore
import Testing

@testable import RedeemServer
@testable import RedeemStore

/// The redeem routes' answers, written by `JSONWriter`, is byte for byte what the server's `JSONEncoder` writes for it.
@Suite struct WrittenJSONTests {
    static let info = CustomerInfo(
        customer: Customer(
            id: "cus_1", appID: "app_1", originalAppUserID: "alice/\"ü\"", aliases: ["alice"],
            firstSeen: ISODate.parse("2026-01-01T00:00:00Z")!, lastSeen: ISODate.parse("2026-05-01T00:00:00Z")!),
        purchases: [purchase(email: nil)], products: [:], requestDate: ISODate.parse("2026-06-01T00:00:00Z")!)

    static func purchase(email: String?) -> Purchase {
        Purchase(
            id: "pur_1", appID: "app_1", customerID: "cus_1", productID: "lifetime\n", store: .rcBilling, isSandbox: true,
            purchaseDate: ISODate.parse("2026-05-01T00:00:00Z")!, originalPurchaseDate: ISODate.parse("2026-05-01T00:00:00Z")!,
            expiresDate: nil, storeTransactionID: "txn_1", price: Price(amountMicros: 9_990_000, currency: "USD"), email: email,
            createdAt: ISODate.parse("2026-05-01T00:00:00Z")!)
    }

    @Test(arguments: [nil, "buyer+1@example.com"])
    func theRedemptionAnswerIsWhatJSONEncoderWrites(email: String?) async throws {
        let redemption = RedemptionInfo(purchase: Self.purchase(email: email), owner: "alice", entitlements: ["pro", "b\\eta"])
        let body = CustomerInfoWith(Self.info.withManagementURL("https://example.com/portal"), "redemption_info", redemption)
        var writer = JSONWriter()
        body.writeJSON(to: &writer)
        let expected = try JSONCoding.encoder.encode(body)
        #expect(String(decoding: writer.bytes, as: UTF8.self) == String(decoding: expected, as: UTF8.self))
        #expect(String(decoding: writer.bytes, as: UTF8.self).contains("purchaser_email") == (email != nil))
    }

    @Test(arguments: [nil, ISODate.parse("2026-07-01T00:00:00Z")])
    func theOfferCodeAnswerIsWhatJSONEncoderWrites(expires: Date?) async throws {
        var purchase = Self.purchase(email: nil)
        purchase.expiresDate = expires
        let product = Product(
            appID: "app_1", id: "monthly", type: .subscription, period: "P1M", displayName: nil, entitlements: ["pro"], createdAt: .distantPast)
        let offer = Offer(
            id: "ofr_1", appID: "app_1", productID: "monthly", referenceName: "Spring \"50\"", paymentMode: .freeTrial, duration: nil,
            eligibility: [.new], createdAt: .distantPast)
        let redemption = OfferCodeRedemption(purchase: purchase, offer: offer, product: product, kind: .initialBuy)
        let body = CustomerInfoWith(Self.info, "offer_redemption", OfferRedemptionInfo(redemption))
        var writer = JSONWriter()
        body.writeJSON(to: &writer)
        let expected = try JSONCoding.encoder.encode(body)
        #expect(String(decoding: writer.bytes, as: UTF8.self) == String(decoding: expected, as: UTF8.self))
        #expect(String(decoding: writer.bytes, as: UTF8.self).contains("expires_date\":\"2026") == (expires != nil))
    }
}

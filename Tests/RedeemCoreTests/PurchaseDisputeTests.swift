import Foundation
import RedeemCore
import Testing

/// What a dispute means for the purchase: a chargeback ends it, an inquiry does not; its term says which ended it.
@Suite struct PurchaseDisputeTests {
    static let opened = Date(timeIntervalSince1970: 1_780_000_000)

    static func dispute(_ status: String, endedAccessAt: Date? = nil) -> PurchaseDispute {
        PurchaseDispute(
            id: "du_1", openedAt: opened, reason: "product_not_received", status: status, amount: Price(amountMicros: 4_990_000, currency: "USD"),
            endedAccessAt: endedAccessAt)
    }

    @Test func onlyAnInquiryIsNotAChargeback() {
        for status in ["needs_response", "under_review", "won", "lost", "a_status_stripe_adds_later"] {
            #expect(Self.dispute(status).isChargeback, "\(status)")
        }
        for status in ["warning_needs_response", "warning_under_review", "warning_closed"] {
            #expect(!Self.dispute(status).isChargeback, "\(status)")
        }
    }

    @Test func inWords() {
        #expect(Self.dispute("needs_response").reasonLabel == "product not received")
        #expect(Self.dispute("under_review").statusLabel == "under review")
        #expect(Self.dispute("warning_needs_response").statusLabel == "inquiry, needs response")
        #expect(Self.dispute("warning_closed").statusLabel == "inquiry closed")
        #expect(Self.dispute("lost").statusLabel == "lost" && Self.dispute("won").statusLabel == "won")
    }

    /// A refunded purchase is charged back only when the chargeback is what ended it, not when a refund came first.
    @Test func theTermSaysWhatEndedIt() {
        var purchase = Purchase(
            id: "pur_1", appID: "app_1", customerID: "cus_1", productID: "monthly", store: .stripe, isSandbox: false,
            purchaseDate: Self.opened, originalPurchaseDate: Self.opened, expiresDate: Self.opened.addingTimeInterval(86_400 * 30),
            storeTransactionID: "sub_1", price: Price(amountMicros: 4_990_000, currency: "USD"), email: nil, refundedAt: Self.opened,
            createdAt: Self.opened)
        let now = Self.opened.addingTimeInterval(60)
        #expect(PurchaseTerm(purchase, at: now) == .refunded(Self.opened))
        purchase.dispute = Self.dispute("needs_response")
        #expect(PurchaseTerm(purchase, at: now) == .refunded(Self.opened), "refunded first, disputed after")
        purchase.dispute = Self.dispute("needs_response", endedAccessAt: Self.opened)
        #expect(PurchaseTerm(purchase, at: now) == .chargedBack(Self.opened))
        #expect(!purchase.isActive(at: now))
        #expect(throws: SupportRules.Refusal("This purchase was charged back: its payment went back to the buyer.")) {
            try SupportRules.refund(purchase).get()
        }
    }
}

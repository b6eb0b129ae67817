import Foundation
import RedeemCore
import Testing

@Suite struct BuyerNoticesTests {
    func purchase(_ store: Store, email: String?) -> Purchase {
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        return Purchase(
            id: "x", appID: "a", customerID: "c", productID: "p", store: store, isSandbox: false, purchaseDate: now, originalPurchaseDate: now,
            expiresDate: now, storeTransactionID: "t", price: nil, email: email, createdAt: now)
    }

    /// Stripe Checkout's and the sandbox checkout's buyers hear of changes; another store's, a grant's and a buyer
    /// without an address do not.
    @Test func onlyRedeemsCheckoutsBuyersWithAnAddress() {
        #expect(BuyerNotices.recipient(of: purchase(.stripe, email: "a@example.com")) == "a@example.com")
        #expect(BuyerNotices.recipient(of: purchase(.rcBilling, email: "b@example.com")) == "b@example.com")
        #expect(BuyerNotices.recipient(of: purchase(.external, email: "c@example.com")) == nil)
        #expect(BuyerNotices.recipient(of: purchase(.promotional, email: "d@example.com")) == nil)
        #expect(BuyerNotices.recipient(of: purchase(Store(rawValue: "app_store"), email: "e@example.com")) == nil)
        #expect(BuyerNotices.recipient(of: purchase(.stripe, email: nil)) == nil)
    }

    /// An e-mail speaks the language of the page that asks for it, else the purchase's, else English (nil).
    @Test func theAskingPagesLanguageWinsOverThePurchases() {
        var bought = purchase(.stripe, email: "a@example.com")
        #expect(bought.emailLanguage(requested: nil) == nil)
        bought.language = "de"
        #expect(bought.emailLanguage(requested: nil) == "de")
        #expect(bought.emailLanguage(requested: "ja") == "ja")
    }
}

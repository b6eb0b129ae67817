import Foundation
import RedeemCore
import Testing

@Suite struct RenewalReminderTests {
    let now = Date(timeIntervalSince1970: 1_800_000_000)
    let day: TimeInterval = 86_400

    func purchase(
        store: Store = .stripe, bought daysAgo: Double = 340, expiresIn days: Double, period: PeriodType = .normal, email: String? = "a@example.com"
    ) -> Purchase {
        Purchase(
            id: "x", appID: "a", customerID: "c", productID: "p", store: store, isSandbox: false, purchaseDate: now - daysAgo * day,
            originalPurchaseDate: now - daysAgo * day, expiresDate: now + days * day, periodType: period, storeTransactionID: "t",
            price: nil, email: email, createdAt: now)
    }

    /// A year or longer: from 30 days before the renewal until 15 days before (the law's 15 to 45), not after.
    @Test func aYearlyRenewalIsRemindedInItsWindow() {
        #expect(RenewalReminder.due(purchase(expiresIn: 30), productPeriod: "P1Y", now: now) == .renewal)
        #expect(RenewalReminder.due(purchase(expiresIn: 16), productPeriod: "P12M", now: now) == .renewal)
        #expect(RenewalReminder.due(purchase(expiresIn: 20), productPeriod: "P2Y", now: now) == .renewal)
        #expect(RenewalReminder.due(purchase(expiresIn: 31), productPeriod: "P1Y", now: now) == nil, "not yet")
        #expect(RenewalReminder.due(purchase(expiresIn: 15), productPeriod: "P1Y", now: now) == nil, "too late to count as notice")
        #expect(RenewalReminder.due(purchase(expiresIn: 20), productPeriod: "P6M", now: now) == nil, "shorter than a year")
        #expect(RenewalReminder.due(purchase(expiresIn: 20), productPeriod: "P1M", now: now) == nil)
        #expect(RenewalReminder.due(purchase(expiresIn: 20), productPeriod: nil, now: now) == nil, "a one-time product never renews")
    }

    /// A free trial longer than 31 days: from 7 days before it ends until 3 days before; a short trial gets none.
    @Test func aLongTrialsEndIsRemindedInItsWindow() {
        #expect(RenewalReminder.due(purchase(bought: 55, expiresIn: 5, period: .trial), productPeriod: "P1M", now: now) == .trialEnding)
        #expect(RenewalReminder.due(purchase(bought: 53, expiresIn: 7, period: .trial), productPeriod: "P1Y", now: now) == .trialEnding)
        #expect(RenewalReminder.due(purchase(bought: 52, expiresIn: 8, period: .trial), productPeriod: "P1M", now: now) == nil)
        #expect(RenewalReminder.due(purchase(bought: 57, expiresIn: 3, period: .trial), productPeriod: "P1M", now: now) == nil)
        #expect(RenewalReminder.due(purchase(bought: 9, expiresIn: 5, period: .trial), productPeriod: "P1M", now: now) == nil, "14 days")
        #expect(RenewalReminder.due(purchase(bought: 26, expiresIn: 5, period: .trial), productPeriod: "P1Y", now: now) == nil, "31 days")
    }

    /// Only a subscription that will renew, sold by Redeem's checkouts to an address, not an offer code's.
    @Test func onlyWhatWillRenewOnRedeemsCheckouts() {
        var cancelled = purchase(expiresIn: 20)
        cancelled.unsubscribeDetectedAt = now - day
        #expect(RenewalReminder.due(cancelled, productPeriod: "P1Y", now: now) == nil)
        var refunded = purchase(expiresIn: 20)
        refunded.refundedAt = now - day
        #expect(RenewalReminder.due(refunded, productPeriod: "P1Y", now: now) == nil)
        #expect(RenewalReminder.due(purchase(store: .external, expiresIn: 20), productPeriod: "P1Y", now: now) == nil)
        #expect(RenewalReminder.due(purchase(store: .rcBilling, expiresIn: 20), productPeriod: "P1Y", now: now) == .renewal)
        #expect(RenewalReminder.due(purchase(expiresIn: 20, email: nil), productPeriod: "P1Y", now: now) == nil)
        var offer = purchase(bought: 55, expiresIn: 5, period: .trial)
        offer.offer = PurchaseOffer(offerID: "o", referenceName: "Free 2 months", discountType: .freeTrial, period: "P2M")
        #expect(RenewalReminder.due(offer, productPeriod: "P1M", now: now) == nil, "an offer code's trial lapses; it does not renew")
    }

    /// What it renews at: the product's price in the purchase's currency, else the default, else what was paid.
    @Test func theRenewalPriceFollowsThePurchasesCurrency() throws {
        let usd = try Price(text: "49.99", currency: "USD", field: "price")
        let eur = try Price(text: "44.99", currency: "EUR", field: "price")
        let billing = ProductBilling(prices: [
            ProductPrice(appID: "a", productID: "p", price: usd, isDefault: true),
            ProductPrice(appID: "a", productID: "p", price: eur, isDefault: false),
        ])
        var bought = purchase(expiresIn: 20)
        bought.price = try Price(text: "0", currency: "EUR", field: "price")
        #expect(billing.renewalPrice(of: bought) == eur)
        bought.price = try Price(text: "0", currency: "JPY", field: "price")
        #expect(billing.renewalPrice(of: bought) == usd)
        #expect(ProductBilling(prices: []).renewalPrice(of: bought) == bought.price)
    }
}

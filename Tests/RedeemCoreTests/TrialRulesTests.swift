import Foundation
import RedeemCore
import Testing

/// One free trial per buyer and product, decided from their earlier purchases; trial and conversion dates.
@Suite struct TrialRulesTests {
    static let now = ISODate.parse("2026-06-01T00:00:00Z")!
    static let monthly = Product(appID: "app", id: "monthly", type: .subscription, period: "P1M", displayName: nil, entitlements: [], createdAt: now)

    static func purchase(_ productID: String, _ type: PeriodType = .trial) -> Purchase {
        Purchase(
            id: "pur_1", appID: "app", customerID: "cus_1", productID: productID, store: .rcBilling, isSandbox: true, purchaseDate: now,
            originalPurchaseDate: now, expiresDate: now, periodType: type, storeTransactionID: "txn", price: nil, email: "a@example.com",
            createdAt: now)
    }

    @Test func aFirstBuyerGetsTheTrial() {
        let facts = TrialFacts(trialDays: 7, customerPurchases: [], emailPurchases: [Self.purchase("yearly")])
        #expect(TrialRules.decide(productID: "monthly", facts: facts) == .trial(days: 7))
    }

    @Test func aProductWithoutATrialHasNone() {
        #expect(TrialRules.decide(productID: "monthly", facts: TrialFacts(trialDays: nil, customerPurchases: [], emailPurchases: [])) == .noTrial)
        #expect(TrialRules.decide(productID: "monthly", facts: TrialFacts(trialDays: 0, customerPurchases: [], emailPurchases: [])) == .noTrial)
    }

    @Test(arguments: [PeriodType.trial, .normal])
    func anEarlierPurchaseByTheCustomerOrTheAddressPaysAtOnce(_ type: PeriodType) {
        let byCustomer = TrialFacts(trialDays: 7, customerPurchases: [Self.purchase("monthly", type)], emailPurchases: [])
        let byEmail = TrialFacts(trialDays: 7, customerPurchases: [], emailPurchases: [Self.purchase("monthly", type)])
        #expect(TrialRules.decide(productID: "monthly", facts: byCustomer) == .alreadyUsed)
        #expect(TrialRules.decide(productID: "monthly", facts: byEmail) == .alreadyUsed)
    }

    @Test func trialAndConversionDates() throws {
        #expect(TrialRules.trialEnd(days: 7, from: Self.now) == ISODate.parse("2026-06-08T00:00:00Z")!)
        let end = TrialRules.trialEnd(days: 14, from: ISODate.parse("2026-01-25T00:00:00Z")!)
        #expect(end == ISODate.parse("2026-02-08T00:00:00Z")!)
        #expect(try TrialRules.paidPeriodEnd(trialEnd: end, period: "P1M") == ISODate.parse("2026-03-08T00:00:00Z")!)
        // Sandbox: five minutes of trial, then the period's accelerated length from the trial's end.
        let sandboxEnd = SandboxClock.trialEnd(from: Self.now)
        #expect(sandboxEnd == Self.now.addingTimeInterval(300))
        #expect(try SandboxClock.paidPeriodEnd(trialEnd: sandboxEnd, period: "P1M") == sandboxEnd.addingTimeInterval(300))
        #expect(SandboxClock.trialEnd(from: Self.now, length: 6) == Self.now.addingTimeInterval(6))
    }

    @Test func trialsAreForSubscriptionsOfAtMostAYear() throws {
        #expect(try ProductPriceRules.validateTrial(days: 7, product: Self.monthly) == 7)
        #expect(try ProductPriceRules.validateTrial(days: 0, product: Self.monthly) == nil)
        #expect(throws: ValidationError.self) { try ProductPriceRules.validateTrial(days: 366, product: Self.monthly) }
        var lifetime = Self.monthly
        lifetime.type = .nonConsumable
        lifetime.period = nil
        #expect(throws: ValidationError(field: "trial_days", reason: "only subscriptions have a free trial")) {
            try ProductPriceRules.validateTrial(days: 3, product: lifetime)
        }
    }
}

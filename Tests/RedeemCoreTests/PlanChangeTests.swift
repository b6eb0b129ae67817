import Foundation
import RedeemCore
import Testing

@Suite struct PlanChangeTests {
    let now = Date(timeIntervalSince1970: 1_800_000_000)

    func product(_ id: String, app: String = "a", type: ProductType = .subscription) -> Product {
        Product(appID: app, id: id, type: type, period: type == .subscription ? "P1Y" : nil, displayName: nil, entitlements: ["pro"], createdAt: now)
    }

    var monthly: Purchase {
        Purchase(
            id: "x", appID: "a", customerID: "c", productID: "monthly", store: .stripe, isSandbox: false, purchaseDate: now,
            originalPurchaseDate: now, expiresDate: now + 86_400 * 30, storeTransactionID: "sub_1", price: nil, email: nil, createdAt: now)
    }

    /// Another subscription of the same app is what the purchase becomes.
    @Test func anotherSubscriptionOfTheAppIsTheTarget() {
        #expect(PlanChange.target(of: monthly, named: product("annual"))?.id == "annual")
    }

    /// Nothing changes for the same product, an unknown price, another app's product, or a product that does not renew.
    @Test func nothingElseMovesThePurchase() {
        #expect(PlanChange.target(of: monthly, named: product("monthly")) == nil)
        #expect(PlanChange.target(of: monthly, named: nil) == nil)
        #expect(PlanChange.target(of: monthly, named: product("annual", app: "b")) == nil)
        #expect(PlanChange.target(of: monthly, named: product("lifetime", type: .nonConsumable)) == nil)
    }

    /// A refunded purchase keeps its product: its access is gone, and a switch in Stripe does not bring it back.
    @Test func aRefundedPurchaseIsNotMoved() {
        var refunded = monthly
        refunded.refundedAt = now
        #expect(PlanChange.target(of: refunded, named: product("annual")) == nil)
    }

    func grouped(
        _ id: String, level: Int?, group: String? = "pro", prices: [String: Int64] = ["USD": 9_990_000]
    ) -> (product: Product, billing: ProductBilling) {
        var product = product(id)
        product.subscriptionGroup = group
        product.groupLevel = level
        let billing = ProductBilling(
            prices: prices.map {
                ProductPrice(appID: "a", productID: id, price: Price(amountMicros: $0.value, currency: $0.key), isDefault: $0.key == "USD")
            })
        return (product, billing)
    }

    /// The other subscriptions of the group with a price in the purchase's currency, highest level first.
    @Test func optionsAreTheGroupsOtherPlansInTheSameCurrency() {
        var purchase = monthly
        purchase.price = Price(amountMicros: 4_990_000, currency: "USD")
        let current = grouped("monthly", level: 2).product
        let catalog = [
            grouped("monthly", level: 2), grouped("weekly", level: 3), grouped("premium", level: 1),
            grouped("euro_only", level: 1, prices: ["EUR": 9_990_000]), grouped("elsewhere", level: 1, group: "other"),
            grouped("loose", level: nil, group: nil),
        ]
        let options = PlanChange.options(for: purchase, product: current, catalog: catalog)
        #expect(options.map(\.product.id) == ["premium", "weekly"])
        #expect(options.first?.price.price == Price(amountMicros: 9_990_000, currency: "USD"))
        var euro = purchase
        euro.price = Price(amountMicros: 4_490_000, currency: "EUR")
        #expect(PlanChange.options(for: euro, product: current, catalog: catalog).map(\.product.id) == ["euro_only"])
        #expect(PlanChange.options(for: purchase, product: product("monthly"), catalog: catalog).isEmpty, "a product outside a group")
        // Recorded without its price: the product's default currency.
        var unpriced = current
        unpriced.price = Price(amountMicros: 4_490_000, currency: "EUR")
        #expect(PlanChange.options(for: monthly, product: unpriced, catalog: catalog).map(\.product.id) == ["euro_only"])
        #expect(PlanChange.options(for: monthly, product: current, catalog: catalog).isEmpty, "no price, no currency")
    }

    /// When a switch takes effect, as the App Store decides it: an upgrade now, a downgrade at the period's end; within a
    /// level (or without levels) now for the same period, at the period's end for another.
    @Test func upgradesStartNowDowngradesWaitForTheRenewal() {
        func plan(_ id: String, level: Int?, period: String) -> Product {
            var plan = grouped(id, level: level).product
            plan.period = period
            return plan
        }
        let monthlyPro = plan("monthly_pro", level: 2, period: "P1M")
        #expect(PlanChange.timing(from: monthlyPro, to: plan("premium", level: 1, period: "P1M")) == .now, "an upgrade")
        #expect(PlanChange.timing(from: monthlyPro, to: plan("premium_year", level: 1, period: "P1Y")) == .now, "an upgrade, whatever its period")
        #expect(PlanChange.timing(from: monthlyPro, to: plan("basic", level: 3, period: "P1M")) == .atRenewal, "a downgrade")
        #expect(PlanChange.timing(from: monthlyPro, to: plan("pro_b", level: 2, period: "P1M")) == .now, "a crossgrade, same period")
        #expect(PlanChange.timing(from: monthlyPro, to: plan("pro_year", level: 2, period: "P1Y")) == .atRenewal, "a crossgrade, another period")
        #expect(PlanChange.timing(from: plan("a", level: nil, period: "P1M"), to: plan("b", level: 1, period: "P1M")) == .now)
        #expect(PlanChange.timing(from: plan("a", level: nil, period: "P1M"), to: plan("b", level: nil, period: "P1Y")) == .atRenewal)
        // The options carry it.
        var purchase = monthly
        purchase.price = Price(amountMicros: 4_990_000, currency: "USD")
        let options = PlanChange.options(
            for: purchase, product: grouped("monthly", level: 2).product,
            catalog: [grouped("premium", level: 1), grouped("weekly", level: 3)])
        #expect(options.map(\.timing) == [.now, .atRenewal])
    }

    /// A switch applied here starts the new plan's period now, on the sandbox's fast clock when the purchase runs on it.
    @Test func aSwitchHereStartsANewPeriodNow() throws {
        let later = now + 3600
        #expect(PlanChange.periodEnd(of: monthly, switchingTo: product("annual"), now: later) == (try ISO8601Period(parsing: "P1Y")).advance(later))
        var fast = monthly
        fast.isSandbox = true
        fast.expiresDate = now + 300
        #expect(PlanChange.periodEnd(of: fast, switchingTo: product("annual"), now: later) == later + 3600, "a sandbox year is an hour")
    }

    /// Only a renewing subscription in good standing switches: through Stripe for a Stripe one, here in the sandbox. A
    /// free trial does too, and the switch ends it.
    @Test func whoMaySwitch() throws {
        var sandbox = monthly
        sandbox.store = .rcBilling
        sandbox.isSandbox = true
        #expect(try SupportRules.changePlan(sandbox, now: now).get() == .here)
        #expect(try SupportRules.changePlan(monthly, now: now).get() == .stripe)
        var trial = monthly
        trial.periodType = .trial
        #expect(try SupportRules.changePlan(trial, now: now).get() == .stripe)
        #expect(PlanChange.endsTrial(trial) && !PlanChange.endsTrial(monthly))
        var refused: [Purchase] = []
        for change in [
            { (p: inout Purchase) in p.unsubscribeDetectedAt = now },
            { $0.billingIssuesDetectedAt = now },
            { $0.refundedAt = now },
            { $0.expiresDate = now - 1 },
            { $0.expiresDate = nil },
            { $0.store = .promotional },
            { $0.store = .external },
            { $0.storeTransactionID = "cs_1" },
        ] {
            var purchase = monthly
            change(&purchase)
            refused.append(purchase)
        }
        for purchase in refused { #expect(throws: SupportRules.Refusal.self) { try SupportRules.changePlan(purchase, now: now).get() } }
    }
}

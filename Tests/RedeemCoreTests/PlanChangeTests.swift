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
}

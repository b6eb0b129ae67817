import Foundation
import RedeemCore
import Testing

@Suite struct CheckoutRulesTests {
    let now = Date(timeIntervalSince1970: 1_800_000_000)
    let alice = try! AppUserID(validating: "alice")

    func product(_ type: ProductType) -> Product {
        Product(appID: "a", id: "p", type: type, period: type == .subscription ? "P1M" : nil, displayName: nil, entitlements: ["pro"], createdAt: now)
    }

    func purchase(expires: Date?, refunded: Bool = false) -> Purchase {
        Purchase(
            id: "x", appID: "a", customerID: "c", productID: "p", store: .stripe, isSandbox: false, purchaseDate: now,
            originalPurchaseDate: now, expiresDate: expires, storeTransactionID: "t", price: nil, email: nil,
            refundedAt: refunded ? now : nil, createdAt: now)
    }

    @Test func anIdentifiedBuyerCannotBuyWhatTheyHold() {
        #expect(CheckoutRules.alreadyOwns(buyer: alice, product: product(.subscription), purchases: [purchase(expires: now + 60)], at: now))
        #expect(CheckoutRules.alreadyOwns(buyer: alice, product: product(.nonConsumable), purchases: [purchase(expires: nil)], at: now))
    }

    @Test func lapsedRefundedConsumableOrAnonymousCanBuy() {
        #expect(!CheckoutRules.alreadyOwns(buyer: alice, product: product(.subscription), purchases: [purchase(expires: now - 1)], at: now))
        #expect(
            !CheckoutRules.alreadyOwns(buyer: alice, product: product(.nonConsumable), purchases: [purchase(expires: nil, refunded: true)], at: now))
        #expect(!CheckoutRules.alreadyOwns(buyer: alice, product: product(.consumable), purchases: [purchase(expires: nil)], at: now))
        #expect(
            !CheckoutRules.alreadyOwns(buyer: AppUserID.anonymous(), product: product(.nonConsumable), purchases: [purchase(expires: nil)], at: now))
        #expect(!CheckoutRules.alreadyOwns(buyer: nil, product: product(.nonConsumable), purchases: [purchase(expires: nil)], at: now))
        #expect(!CheckoutRules.needsOwnershipCheck(buyer: nil, product: product(.subscription)))
    }

    @Test func sandboxSubscriptionsRunFast() throws {
        #expect(try SandboxClock.expiry(period: "P1M", from: now) == now + 300)
        #expect(try SandboxClock.expiry(period: "P1Y", from: now) == now + 3600)
    }
}

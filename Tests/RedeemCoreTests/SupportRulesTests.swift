import Foundation
import RedeemCore
import Testing

@Suite struct SupportRulesTests {
    static let now = ISODate.parse("2026-06-01T00:00:00Z")!

    static func purchase(store: Store, sandbox: Bool, expires: Date?) -> Purchase {
        Purchase(
            id: "pur_1", appID: "app_1", customerID: "cus_1", productID: "monthly", store: store, isSandbox: sandbox, purchaseDate: now,
            originalPurchaseDate: now, expiresDate: expires, storeTransactionID: "sub_1", price: nil, email: nil, createdAt: now)
    }

    @Test func grantsAreNamedAsRevenueCatNamesThemAndEndWhenAsked() throws {
        let monthly = try PromotionalGrant.plan(entitlementID: "pro", duration: .monthly, until: nil, now: Self.now)
        #expect(monthly.productID == "rc_promo_pro_monthly")
        #expect(monthly.expiresDate == ISODate.parse("2026-07-01T00:00:00Z"))
        #expect(try PromotionalGrant.plan(entitlementID: "pro", duration: .lifetime, until: nil, now: Self.now).expiresDate == nil)
        let until = ISODate.parse("2026-12-24T00:00:00Z")!
        #expect(try PromotionalGrant.plan(entitlementID: "pro", duration: nil, until: until, now: Self.now).productID == "rc_promo_pro_custom")
        #expect(throws: ValidationError.self) { try PromotionalGrant.plan(entitlementID: "pro", duration: nil, until: nil, now: Self.now) }
        #expect(throws: ValidationError.self) { try PromotionalGrant.plan(entitlementID: "pro", duration: .daily, until: until, now: Self.now) }
        #expect(throws: ValidationError.self) { try PromotionalGrant.plan(entitlementID: "pro", duration: nil, until: Self.now, now: Self.now) }
        #expect(throws: ValidationError.self) {
            try PromotionalGrant.plan(entitlementID: "pro", duration: nil, until: Self.now.addingTimeInterval(11 * 366 * 86_400), now: Self.now)
        }
        #expect(throws: ValidationError.self) { try PromotionalGrant.plan(entitlementID: "no spaces", duration: .daily, until: nil, now: Self.now) }
        let grant = Self.purchase(store: .promotional, sandbox: false, expires: monthly.expiresDate)
        #expect(PromotionalGrant.revokeRefusal(grant, now: Self.now) == nil)
        #expect(PromotionalGrant.revokeRefusal(grant, now: monthly.expiresDate!) != nil, "already ended")
        #expect(PromotionalGrant.revokeRefusal(Self.purchase(store: .stripe, sandbox: false, expires: nil), now: Self.now) != nil)
    }

    /// Every submit of one grant form names one transaction, and another form another; the form's ID is not stored.
    @Test func aGrantFormNamesOneTransactionHoweverOftenItIsSubmitted() throws {
        let plan = try PromotionalGrant.plan(entitlementID: "pro", duration: .monthly, until: nil, now: Self.now)
        #expect(plan.transactionID == nil)
        let form = "Zq3v9Xk2Lw8Rt5Yp1Ns7Cd"
        let first = plan.submitted(by: form)
        #expect(first.transactionID == plan.submitted(by: form).transactionID)
        #expect(first.transactionID?.hasPrefix("promo_") == true)
        #expect(first.transactionID?.contains(form) == false)
        #expect(first.transactionID != plan.submitted(by: form + "x").transactionID)
        #expect(first.productID == plan.productID && first.expiresDate == plan.expiresDate)
    }

    @Test func refundsAndCancellationsGoWhereThePurchaseWasPaid() throws {
        let later = Self.now.addingTimeInterval(86_400)
        #expect(try SupportRules.refund(Self.purchase(store: .rcBilling, sandbox: true, expires: later)).get() == .here)
        #expect(try SupportRules.refund(Self.purchase(store: .stripe, sandbox: true, expires: later)).get() == .stripe, "Stripe test mode")
        #expect(try SupportRules.refund(Self.purchase(store: .stripe, sandbox: false, expires: nil)).get() == .stripe)
        #expect(throws: SupportRules.Refusal.self) { try SupportRules.refund(Self.purchase(store: .external, sandbox: false, expires: nil)).get() }
        #expect(throws: SupportRules.Refusal.self) {
            try SupportRules.refund(Self.purchase(store: .promotional, sandbox: false, expires: later)).get()
        }
        var refunded = Self.purchase(store: .rcBilling, sandbox: true, expires: later)
        refunded.refundedAt = Self.now
        #expect(throws: SupportRules.Refusal.self) { try SupportRules.refund(refunded).get() }

        #expect(try SupportRules.cancelAtPeriodEnd(Self.purchase(store: .rcBilling, sandbox: true, expires: later), now: Self.now).get() == .here)
        #expect(try SupportRules.cancelAtPeriodEnd(Self.purchase(store: .stripe, sandbox: false, expires: later), now: Self.now).get() == .stripe)
        for refused in [
            Self.purchase(store: .rcBilling, sandbox: true, expires: nil),  // one-time
            Self.purchase(store: .rcBilling, sandbox: true, expires: Self.now),  // ended
            Self.purchase(store: .promotional, sandbox: false, expires: later),  // a grant
            Self.purchase(store: .external, sandbox: false, expires: later),  // renews elsewhere
        ] {
            #expect(throws: SupportRules.Refusal.self) { try SupportRules.cancelAtPeriodEnd(refused, now: Self.now).get() }
        }
        var cancelled = Self.purchase(store: .rcBilling, sandbox: true, expires: later)
        cancelled.unsubscribeDetectedAt = Self.now
        #expect(throws: SupportRules.Refusal.self) { try SupportRules.cancelAtPeriodEnd(cancelled, now: Self.now).get() }
    }
}

import Foundation
import RedeemCore
import Testing

/// The buyer portal's rules: addresses, what each purchase offers, and resuming a subscription.
@Suite struct PortalRulesTests {
    static let now = SupportRulesTests.now
    static let later = now.addingTimeInterval(86_400)

    @Test func addressesCompareWithoutCaseOrBlanks() {
        #expect(PortalRules.normalizedEmail("  Buyer@Example.COM ") == "buyer@example.com")
        #expect(PortalRules.normalizedEmail("buyer") == nil)
        #expect(PortalRules.normalizedEmail("@example.com") == nil)
        #expect(PortalRules.normalizedEmail("a b@example.com") == nil)
        #expect(PortalRules.normalizedEmail("buyer@localhost") == nil)
        #expect(PortalRules.normalizedEmail(String(repeating: "a", count: 250) + "@example.com") == nil)
    }

    /// The reason asked when cancelling is optional, and one of Stripe's `cancellation_details.feedback` values.
    @Test func aCancellationReasonIsOptionalAndOneOfStripes() throws {
        #expect(try CancellationFeedback.parse(nil) == nil)
        #expect(try CancellationFeedback.parse("") == nil)
        #expect(try CancellationFeedback.parse("too_expensive") == .tooExpensive)
        #expect(throws: ValidationError.self) { try CancellationFeedback.parse("Too_Expensive") }
        #expect(throws: ValidationError.self) { try CancellationFeedback.parse("bored") }
        let stripes: Set = [
            "customer_service", "low_quality", "missing_features", "other", "switched_service", "too_complex", "too_expensive", "unused",
        ]
        #expect(Set(CancellationFeedback.allCases.map(\.rawValue)) == stripes)
        #expect(Set(CancellationFeedback.allCases.map(\.label)).count == CancellationFeedback.allCases.count)
    }

    @Test func aPurchaseOffersWhatTheSupportRulesAllow() {
        var subscription = SupportRulesTests.purchase(store: .rcBilling, sandbox: true, expires: Self.later)
        var actions = PortalRules.actions(subscription, linksAllowed: true, now: Self.now)
        #expect(actions == .init(newLink: true, cancel: true, resume: false, billing: false, changePlan: true))
        subscription.unsubscribeDetectedAt = Self.now
        actions = PortalRules.actions(subscription, linksAllowed: true, now: Self.now)
        #expect(actions.cancel == false && actions.resume == true && actions.changePlan == false)
        #expect(PortalRules.actions(subscription, linksAllowed: false, now: Self.now).newLink == false, "the app's link policy")
        #expect(PortalRules.actions(subscription, linksAllowed: true, now: Self.later).newLink == false, "ended")
        let stripe = SupportRulesTests.purchase(store: .stripe, sandbox: false, expires: Self.later)
        #expect(PortalRules.actions(stripe, linksAllowed: true, now: Self.now).billing, "a Stripe subscription (sub_…)")
        let lifetime = SupportRulesTests.purchase(store: .rcBilling, sandbox: true, expires: nil)
        #expect(
            PortalRules.actions(lifetime, linksAllowed: true, now: Self.now) == .init(newLink: true, cancel: false, resume: false, billing: false))
        #expect(PortalRules.isManaged(stripe) && PortalRules.isManaged(lifetime))
        #expect(!PortalRules.isManaged(SupportRulesTests.purchase(store: .external, sandbox: true, expires: nil)))
        #expect(!PortalRules.isManaged(SupportRulesTests.purchase(store: .promotional, sandbox: false, expires: Self.later)))
    }

    @Test func onlyASubscriptionSetToEndCanResume() throws {
        var purchase = SupportRulesTests.purchase(store: .rcBilling, sandbox: true, expires: Self.later)
        #expect(throws: SupportRules.Refusal.self) { try SupportRules.resume(purchase, now: Self.now).get() }
        purchase.unsubscribeDetectedAt = Self.now
        #expect(try SupportRules.resume(purchase, now: Self.now).get() == .here)
        #expect(throws: SupportRules.Refusal.self) { try SupportRules.resume(purchase, now: Self.later).get() }
        var stripe = SupportRulesTests.purchase(store: .stripe, sandbox: false, expires: Self.later)
        stripe.unsubscribeDetectedAt = Self.now
        #expect(try SupportRules.resume(stripe, now: Self.now).get() == .stripe)
        var external = SupportRulesTests.purchase(store: .external, sandbox: false, expires: Self.later)
        external.unsubscribeDetectedAt = Self.now
        #expect(throws: SupportRules.Refusal.self) { try SupportRules.resume(external, now: Self.now).get() }
        var refunded = purchase
        refunded.refundedAt = Self.now
        #expect(throws: SupportRules.Refusal.self) { try SupportRules.resume(refunded, now: Self.now).get() }
    }

    @Test func managementURLPointsAtThePortalForWebPurchasesOnly() {
        let customer = Customer(id: "cus_1", appID: "app_1", originalAppUserID: "u", aliases: [], firstSeen: Self.now, lastSeen: Self.now)
        let web = SupportRulesTests.purchase(store: .rcBilling, sandbox: true, expires: Self.later)
        let info = CustomerInfo(customer: customer, purchases: [web], products: [:], requestDate: Self.now).withManagementURL(
            "https://x/account/app_1")
        #expect(info.subscriber.managementURL == "https://x/account/app_1")
        #expect(info.subscriber.subscriptions["monthly"]?.managementURL == "https://x/account/app_1")
        let external = SupportRulesTests.purchase(store: .external, sandbox: true, expires: Self.later)
        let none = CustomerInfo(customer: customer, purchases: [external], products: [:], requestDate: Self.now).withManagementURL("https://x")
        #expect(none.subscriber.managementURL == nil && none.subscriber.subscriptions["monthly"]?.managementURL == nil)
    }
}

import Foundation
import RedeemCore
import Testing

/// One rule for where a purchase's term stands, which the console and the portal each put in words.
@Suite struct PurchaseTermTests {
    static let now = ISODate.parse("2026-06-01T00:00:00Z")!
    static let later = now.addingTimeInterval(30 * 86_400)
    static let earlier = now.addingTimeInterval(-86_400)

    static func purchase(_ store: Store = .rcBilling, expires: Date? = later, _ change: (inout Purchase) -> Void = { _ in }) -> Purchase {
        var purchase = SupportRulesTests.purchase(store: store, sandbox: true, expires: expires)
        change(&purchase)
        return purchase
    }

    @Test func eachStandingOfATermIsToldApart() {
        let term = { PurchaseTerm($0, at: Self.now) }
        #expect(term(Self.purchase()) == .renews(Self.later))
        #expect(term(Self.purchase(.stripe)) == .renews(Self.later))
        // Paid elsewhere: Redeem cannot say whether it renews.
        #expect(term(Self.purchase(.external)) == .expires(Self.later))
        // Nothing renews these: set to end, an operator's grant, an offer code's period.
        #expect(term(Self.purchase { $0.unsubscribeDetectedAt = Self.earlier }) == .ends(Self.later))
        #expect(term(Self.purchase(.promotional)) == .ends(Self.later))
        #expect(
            term(Self.purchase(.external) { $0.offer = PurchaseOffer(offerID: "o", referenceName: "Trial", discountType: .freeTrial, period: "P1M") })
                == .ends(Self.later))
        #expect(term(Self.purchase(expires: Self.earlier)) == .ended(Self.earlier))
        #expect(term(Self.purchase(.promotional, expires: Self.earlier)) == .ended(Self.earlier))
        // A grant revoked (ended and marked cancelled then) is told from one that ran out; a lapsed cancelled
        // subscription is not a revocation.
        #expect(term(Self.purchase(.promotional, expires: Self.earlier) { $0.unsubscribeDetectedAt = Self.earlier }) == .revoked(Self.earlier))
        #expect(term(Self.purchase(expires: Self.earlier) { $0.unsubscribeDetectedAt = Self.earlier }) == .ended(Self.earlier))
        // A refund outranks everything else, an ended or a live term alike.
        #expect(term(Self.purchase { $0.refundedAt = Self.earlier }) == .refunded(Self.earlier))
        #expect(term(Self.purchase(expires: nil) { $0.refundedAt = Self.earlier }) == .refunded(Self.earlier))
        #expect(term(Self.purchase(expires: nil)) == .kept)
        // Past its expiry but inside the grace period: retried, access kept until the grace ends.
        let grace = Self.now.addingTimeInterval(3 * 86_400)
        #expect(term(Self.purchase(expires: Self.earlier) { $0.gracePeriodExpiresDate = grace }) == .retrying(until: grace))
        #expect(term(Self.purchase(expires: Self.earlier) { $0.gracePeriodExpiresDate = Self.now }) == .ended(Self.earlier))
    }
}

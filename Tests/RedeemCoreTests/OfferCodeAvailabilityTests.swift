import Foundation
import RedeemCore
import Testing

@Suite struct OfferCodeAvailabilityTests {
    static let now = OfferRulesTests.now

    static func oneTime(
        expiresIn: TimeInterval = 3600, active: Bool = true, used: Bool = false, offer: Offer = OfferRulesTests.offer()
    ) -> FoundOfferCode {
        let batch = OfferCodeBatch(id: "b", appID: "a", offerID: offer.id, count: 1, expiresAt: now + expiresIn, isActive: active, createdAt: now)
        return FoundOfferCode(kind: .oneTime(hash: "h", batch: batch, used: used), offer: offer, product: OfferRulesTests.monthly)
    }

    static func custom(
        expiresIn: TimeInterval? = 3600, active: Bool = true, count: Int = 0, cap: Int = 2, offer: Offer = OfferRulesTests.offer()
    ) -> FoundOfferCode {
        let code = CustomOfferCode(
            id: "c", appID: "a", offerID: offer.id, code: "SPRING", maxRedemptions: cap, redemptionCount: count,
            expiresAt: expiresIn.map { now + $0 }, isActive: active, createdAt: now)
        return FoundOfferCode(kind: .custom(code), offer: offer, product: OfferRulesTests.monthly)
    }

    @Test func expiredBeforeSwitchedOffBeforeUsedUp() {
        #expect(Self.oneTime().unavailability(at: Self.now) == nil)
        #expect(Self.oneTime(expiresIn: 0, active: false, used: true).unavailability(at: Self.now) == .expired)
        #expect(Self.oneTime(active: false, used: true).unavailability(at: Self.now) == .inactive)
        #expect(Self.oneTime(used: true).unavailability(at: Self.now) == .alreadyRedeemed)
        #expect(Self.custom().unavailability(at: Self.now) == nil)
        #expect(Self.custom(expiresIn: nil).unavailability(at: Self.now) == nil)
        #expect(Self.custom(expiresIn: -1, active: false, count: 2).unavailability(at: Self.now) == .expired)
        #expect(Self.custom(active: false, count: 2).unavailability(at: Self.now) == .inactive)
        #expect(Self.custom(count: 2).unavailability(at: Self.now) == .exhausted)
    }

    @Test func aPaidOfferNeedsAPaymentOnlyOnceTheCodeIsAvailable() {
        let paid = OfferRulesTests.offer(mode: .payUpFront, price: Price(amountMicros: 990_000, currency: "USD"))
        #expect(OfferRules.refusal(Self.custom(offer: paid), paid: false, at: Self.now) == .paymentRequired)
        #expect(OfferRules.refusal(Self.custom(offer: paid), paid: true, at: Self.now) == nil)
        #expect(OfferRules.refusal(Self.custom(count: 2, offer: paid), paid: false, at: Self.now) == .exhausted)
        #expect(OfferRules.refusal(Self.custom(), paid: false, at: Self.now) == nil)
    }

    @Test func onlyTheWebSchedulesADowngrade() {
        #expect(OfferRules.allowsDowngrade(on: .web))
        #expect(!OfferRules.allowsDowngrade(on: .sdk))
    }
}

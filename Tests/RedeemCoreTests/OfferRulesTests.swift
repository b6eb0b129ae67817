import Foundation
import RedeemCore
import Testing

@Suite struct OfferRulesTests {
    static let now = ISODate.parse("2026-06-15T00:00:00Z")!
    static let monthly = Product(
        appID: "a", id: "monthly", type: .subscription, period: "P1M", displayName: nil, entitlements: ["pro"], createdAt: now)
    static let lifetime = Product(
        appID: "a", id: "lifetime", type: .nonConsumable, period: nil, displayName: nil, entitlements: ["pro"], createdAt: now)

    static func offer(
        _ product: Product = monthly, mode: OfferPaymentMode = .freeTrial, duration: OfferDuration? = .oneWeek, periods: Int = 1,
        price: Price? = nil, eligibility: OfferEligibility = [.new]
    ) -> Offer {
        Offer(
            id: "o", appID: "a", productID: product.id, referenceName: "R", paymentMode: mode, duration: duration, periods: periods,
            price: price, eligibility: eligibility, createdAt: now)
    }

    static func purchase(_ product: String, expires: Date?, refunded: Bool = false) -> Purchase {
        Purchase(
            id: UUID().uuidString, appID: "a", customerID: "c", productID: product, store: .external, isSandbox: false,
            purchaseDate: now.addingTimeInterval(-86_400 * 60), originalPurchaseDate: now.addingTimeInterval(-86_400 * 60),
            expiresDate: expires, storeTransactionID: "t", price: nil, email: nil,
            refundedAt: refunded ? now.addingTimeInterval(-86_400) : nil, createdAt: now)
    }

    static func plan(
        _ offer: Offer, _ product: Product = monthly, purchases: [Purchase], products: [Product] = [monthly, lifetime]
    ) -> Result<OfferPlan, OfferRedemptionFailure> {
        OfferRules.plan(
            offer: offer, product: product, purchases: purchases, products: Dictionary(uniqueKeysWithValues: products.map { ($0.id, $0) }), at: now)
    }

    @Test func theTotalLengthIsTheDurationTimesThePeriods() {
        #expect(Self.offer(duration: .twoWeeks, periods: 3).totalPeriod?.description == "P6W")
        #expect(Self.offer(duration: .oneYear, periods: 2).totalPeriod?.description == "P2Y")
        #expect(Self.offer(Self.lifetime, duration: nil).totalPeriod == nil)
        guard case .success(let plan) = Self.plan(Self.offer(duration: .threeDays, periods: 2), purchases: []) else {
            Issue.record("refused")
            return
        }
        #expect(plan.expiresDate == Self.now.addingTimeInterval(6 * 86_400))
        #expect(plan.kind == .initialBuy && plan.periodType == .trial)
    }

    @Test func aRefundedPurchaseDoesNotCount() {
        let refunded = Self.purchase("monthly", expires: Self.now.addingTimeInterval(86_400), refunded: true)
        #expect((try? Self.plan(Self.offer(eligibility: [.new]), purchases: [refunded]).get())?.kind == .initialBuy)
    }

    @Test func standingFollowsTheGroupNotJustTheProduct() {
        let yearly = Product(
            appID: "a", id: "yearly", type: .subscription, period: "P1Y", displayName: nil, entitlements: ["pro"],
            subscriptionGroup: "pro", groupLevel: 1, createdAt: Self.now)
        var monthlyInGroup = Self.monthly
        monthlyInGroup.subscriptionGroup = "pro"
        monthlyInGroup.groupLevel = 1
        let active = Self.purchase("yearly", expires: Self.now.addingTimeInterval(86_400))
        // Same group, same level: an existing subscriber, so a new-only offer is refused…
        #expect(
            Self.plan(Self.offer(monthlyInGroup), monthlyInGroup, purchases: [active], products: [yearly, monthlyInGroup]) == .failure(.notEligible))
        // …and an existing-eligible offer is a crossgrade, effective now.
        let crossgrade = Self.plan(
            Self.offer(monthlyInGroup, eligibility: [.existing]), monthlyInGroup, purchases: [active], products: [yearly, monthlyInGroup])
        #expect((try? crossgrade.get())?.kind == .crossgrade)
        // Without the group, the yearly purchase is unrelated: the customer is new to monthly.
        #expect((try? Self.plan(Self.offer(), purchases: [active], products: [yearly, Self.monthly]).get())?.kind == .initialBuy)
    }

    @Test func validationNamesTheField() throws {
        #expect(throws: ValidationError(field: "price", reason: "a free_trial offer has no price")) {
            try Self.offer(price: Price(amountMicros: 990_000, currency: "USD")).validate(for: Self.monthly)
        }
        #expect(throws: ValidationError(field: "periods", reason: "a pay_up_front offer has one period")) {
            try Self.offer(mode: .payUpFront, periods: 2, price: Price(amountMicros: 990_000, currency: "USD")).validate(for: Self.monthly)
        }
        #expect(throws: ValidationError(field: "duration", reason: "a subscription offer needs a duration such as P1M")) {
            try Self.offer(duration: nil).validate(for: Self.monthly)
        }
        #expect(throws: ValidationError.self) { try Self.offer(Self.lifetime, duration: nil, eligibility: [.existing]).validate(for: Self.lifetime) }
        #expect(throws: ValidationError.self) { try Self.offer(eligibility: []).validate(for: Self.monthly) }
        #expect(throws: ValidationError.self) { try Self.offer(periods: 13).validate(for: Self.monthly) }
        // A paid offer on a one-time product has no duration, and is valid.
        try Self.offer(Self.lifetime, mode: .payUpFront, duration: nil, price: Price(amountMicros: 990_000, currency: "USD")).validate(
            for: Self.lifetime)
    }

    @Test func availabilityChecksTheWindowAndTheSwitch() {
        var offer = Self.offer()
        offer.startsAt = Self.now.addingTimeInterval(60)
        #expect(offer.availability(at: Self.now) == .inactive)
        offer.startsAt = nil
        offer.endsAt = Self.now
        #expect(offer.availability(at: Self.now) == .expired)
        offer.endsAt = nil
        offer.isActive = false
        #expect(offer.availability(at: Self.now) == .inactive)
        offer.isActive = true
        #expect(offer.availability(at: Self.now) == nil)
    }

    @Test func everyFailureHasItsOwnCode() {
        let codes = OfferRedemptionFailure.allCases.map(\.code)
        #expect(Set(codes).count == codes.count)
        #expect(codes == Array(7860...7868))
    }

    @Test func batchesLiveAtMostSixMonths() {
        #expect(throws: ValidationError.self) {
            try OfferCodeBatch.validate(count: 10, expiresAt: ISO8601Period(months: 6).advance(Self.now).addingTimeInterval(1), now: Self.now)
        }
        #expect(throws: ValidationError.self) {
            try OfferCodeBatch.validate(count: 1_000_001, expiresAt: Self.now.addingTimeInterval(60), now: Self.now)
        }
        #expect(throws: ValidationError.self) { try OfferCodeBatch.validate(count: 10, expiresAt: Self.now, now: Self.now) }
        #expect(throws: Never.self) {
            try OfferCodeBatch.validate(count: 1_000_000, expiresAt: ISO8601Period(months: 6).advance(Self.now), now: Self.now)
        }
    }

    @Test func batchGenerationIsUniformOverTheAlphabet() {
        let codes = OfferCode.generate(count: 20_000)
        #expect(Set(codes).count == codes.count)
        var counts: [Character: Int] = [:]
        for code in codes { for symbol in code { counts[symbol, default: 0] += 1 } }
        #expect(Set(counts.keys) == Set(OfferCode.alphabet))
        // 320,000 symbols over 31: about 10,323 each; a biased draw (e.g. modulo 256) would skew some by ~3%.
        let expected = 320_000.0 / 31
        #expect(counts.values.allSatisfy { abs(Double($0) - expected) < expected * 0.05 })
    }
}

extension OfferPlan: CustomStringConvertible {
    public var description: String { "\(kind) until \(expiresDate.map(ISODate.format) ?? "-")" }
}

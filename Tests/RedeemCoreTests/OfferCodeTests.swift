import Foundation
import RedeemCore
import Testing

@Suite struct OfferCodeTests {
    @Test func generatedCodesUseTheUnambiguousAlphabet() {
        #expect(OfferCode.alphabet.count == 31)
        for forbidden in "0O1IL" { #expect(!OfferCode.alphabet.contains(forbidden)) }
        let codes = (0..<2000).map { _ in OfferCode.generate() }
        #expect(Set(codes).count == 2000)
        #expect(codes.allSatisfy { $0.count == 16 && $0.allSatisfy(OfferCode.alphabet.contains) })
        #expect(OfferCode.generate(length: 18).count == 18)
    }

    @Test(arguments: [
        ("ABCD-EFGH-JKMN-PQRS", "ABCDEFGHJKMNPQRS"),
        ("abcd efgh jkmn pqrs", "ABCDEFGHJKMNPQRS"),
        ("  abcdefghjkmnpqrs23 ", "ABCDEFGHJKMNPQRS23"),
    ])
    func normalizesWhatBuyersType(_ typed: String, canonical: String) {
        #expect(OfferCode.normalize(typed) == canonical)
    }

    @Test(arguments: ["ABCD-EFGH-JKMN-PQR", "ABCDEFGHJKMNPQRS234", "ABCDEFGHJKMNPQR0", "ABCDEFGHJKMNPQRI", "ABCD_EFGH_JKMN_PQRS", ""])
    func rejectsWhatCannotBeACode(_ typed: String) {
        #expect(OfferCode.normalize(typed) == nil)
    }

    @Test func groupsForReading() {
        #expect(OfferCode.grouped("ABCDEFGHJKMNPQRS") == "ABCD-EFGH-JKMN-PQRS")
        #expect(OfferCode.grouped("ABCDEFGHJKMNPQRS23") == "ABCD-EFGH-JKMN-PQRS23")
        #expect(OfferCode.normalize(OfferCode.grouped("ABCDEFGHJKMNPQRS2")) == "ABCDEFGHJKMNPQRS2")
    }

    @Test func customCodesIgnoreCase() {
        #expect(OfferCode.normalizeCustom("summer25") == "SUMMER25")
        #expect(OfferCode.normalizeCustom("Summer-25") == "SUMMER25")
        #expect(OfferCode.normalizeCustom("ab") == nil)
        #expect(OfferCode.normalizeCustom("bad!code") == nil)
    }

    @Test func eligibilityFollowsTheCustomersStanding() {
        let now = ISODate.parse("2026-06-01T00:00:00Z")!
        func purchase(expires: String?, refunded: Bool = false) -> Purchase {
            Purchase(
                id: "p", appID: "a", customerID: "c", productID: "m", store: .rcBilling, isSandbox: false, purchaseDate: .distantPast,
                originalPurchaseDate: .distantPast, expiresDate: expires.flatMap(ISODate.parse), storeTransactionID: "t", price: nil,
                email: nil, refundedAt: refunded ? now : nil, createdAt: .distantPast)
        }
        #expect(OfferEligibility.standing(purchases: [], at: now) == .new)
        #expect(OfferEligibility.standing(purchases: [purchase(expires: "2026-07-01T00:00:00Z")], at: now) == .existing)
        #expect(OfferEligibility.standing(purchases: [purchase(expires: "2026-05-01T00:00:00Z")], at: now) == .expired)
        #expect(OfferEligibility.standing(purchases: [purchase(expires: "2026-07-01T00:00:00Z", refunded: true)], at: now) == .new)
        let newOrLapsed: OfferEligibility = [.new, .expired]
        #expect(newOrLapsed.allows(.new) && newOrLapsed.allows(.expired) && !newOrLapsed.allows(.existing))
    }

    @Test func quotasCountByCalendarQuarter() {
        #expect(OfferQuota.quarter(of: ISODate.parse("2026-01-01T00:00:00Z")!) == "2026-Q1")
        #expect(OfferQuota.quarter(of: ISODate.parse("2026-06-30T23:59:59Z")!) == "2026-Q2")
        #expect(OfferQuota.quarter(of: ISODate.parse("2026-10-01T00:00:00Z")!) == "2026-Q4")
    }
}

/// A striped count shares its limit out exactly, and an increment tries every stripe with a budget, once.
@Suite struct StripedCountTests {
    @Test(arguments: [0, 1, 5, 15, 16, 17, 1000, 1_000_000, 1_000_007])
    func budgetsAddUpToTheLimit(_ limit: Int) {
        let budgets = (0..<StripedCount.stripes).map { StripedCount.budget(limit: limit, stripe: $0) }
        #expect(budgets.reduce(0, +) == limit)
        #expect((budgets.max() ?? 0) - (budgets.min() ?? 0) <= 1)
        let order = StripedCount.tryOrder(limit: limit, first: 3)
        #expect(Set(order) == Set((0..<StripedCount.stripes).filter { budgets[$0] > 0 }))
        #expect(order.count == Set(order).count)
        if limit >= 4 { #expect(order.first == 3) }
    }

    @Test func aLoweredLimitLeavesNoRoomOnceUsedUp() {
        let layout = StripedCount.layout(total: 7, limit: 5)
        #expect(layout.reduce(0, +) == 7)
        #expect((0..<StripedCount.stripes).allSatisfy { layout[$0] >= StripedCount.budget(limit: 5, stripe: $0) })
        let roomy = StripedCount.layout(total: 3, limit: 40)
        #expect(roomy.reduce(0, +) == 3 && roomy[0] == 3)  // stripe 0's budget for 40 is 3
    }

    @Test func theStripeWithRoomIsTheFirstInTurnThatHasSome() {
        // A limit of 20: stripes 0–3 may count 2, the rest 1.
        var used = Dictionary(uniqueKeysWithValues: (0..<StripedCount.stripes).map { ($0, StripedCount.budget(limit: 20, stripe: $0)) })
        #expect(StripedCount.withRoom(limit: 20, used: used, first: 5) == nil, "every stripe at its budget")
        used[2] = 1
        #expect(StripedCount.withRoom(limit: 20, used: used, first: 5) == 2, "wraps around to the one with room")
        used[6] = 0
        #expect(StripedCount.withRoom(limit: 20, used: used, first: 5) == 6)
        used[6] = nil
        #expect(StripedCount.withRoom(limit: 20, used: used, first: 5) == 2, "a stripe not read has no room")
        #expect(StripedCount.withRoom(limit: 3, used: [0: 0, 1: 0, 2: 0, 9: 0], first: 9) == 0, "stripe 9 has no budget for 3")
    }
}

import Foundation
import RedeemCore
import Testing

@Suite struct FunnelRulesTests {
    @Test func windowsEndTodayAndFillEmptyDays() {
        let now = ISODate.parse("2026-06-10T15:30:00Z")!
        let (from, to) = Funnel.window(days: 7, now: now)
        #expect(from == ISODate.parse("2026-06-04T00:00:00Z"))
        #expect(to == ISODate.parse("2026-06-11T00:00:00Z"))
        var busy = Funnel.Day(day: ISODate.parse("2026-06-05T00:00:00Z")!)
        busy.purchases = 4
        busy.linksIssued = 4
        busy.linksRedeemed = 3
        let funnel = Funnel(
            days: 7, now: now, counts: [busy.day: busy], expiredUnused: 0, newLinkEmails: 0, medianToRedeem: nil, p90ToRedeem: nil, revenue: [:])
        #expect(funnel.days.map(\.purchases) == [0, 4, 0, 0, 0, 0, 0])
        #expect(funnel.totals.linksRedeemed == 3)
        #expect(funnel.steps.first?.rate == nil, "checkouts have no step before")
        #expect(funnel.steps[1].rate == nil, "no checkouts: no rate rather than infinity")
        #expect(funnel.steps[2].rate == 1.0, "one link per purchase")
        #expect(funnel.steps[3].rate == 0.0, "none of the 4 links' pages was opened")
        #expect(funnel.steps[4].rate == 0.75, "3 of the 4 links redeemed, pages opened or not")
    }

    @Test func percentilesAreNearestRank() {
        #expect(Funnel.percentileRank(0.5, count: 1) == 0)
        #expect(Funnel.percentileRank(0.5, count: 4) == 1)
        #expect(Funnel.percentileRank(0.9, count: 10) == 8)
        #expect(Funnel.percentileRank(0.9, count: 11) == 9)
        #expect(Funnel.percentileRank(0.5, count: 0) == 0)
    }
}

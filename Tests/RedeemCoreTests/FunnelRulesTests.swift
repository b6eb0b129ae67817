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
        #expect(funnel.steps[4].rate == 0.0, "none of the 4 links' pages was opened")
        #expect(funnel.steps[5].rate == 0.75, "3 of the 4 links redeemed, pages opened or not")
    }

    /// Each step counts only what came through the one before: purchases recorded through the API are apart from the
    /// checkouts' conversions, a purchase sent several links counts once, and no share is above 100%.
    @Test func noShareIsAboveAHundredPercent() {
        let now = ISODate.parse("2026-06-10T15:30:00Z")!
        var day = Funnel.Day(day: ISODate.parse("2026-06-10T00:00:00Z")!)
        day.checkouts = 8
        day.purchases = 6
        day.purchasesElsewhere = 89  // recorded through the API: not conversions of the 8 checkouts
        day.linksIssued = 120  // some purchases were sent a new link
        day.linksOpened = 40
        day.linksRedeemed = 70
        let funnel = Funnel(
            days: 7, now: now, counts: [day.day: day], expiredUnused: 0, newLinkEmails: 0, medianToRedeem: nil, p90ToRedeem: nil,
            revenue: [:], purchasesSentALink: 90)
        #expect(
            funnel.steps.map(\.name) == [
                "Checkouts started", "Purchases through checkout", "Purchases sent a link", "Links issued", "Link pages opened", "Links redeemed",
            ])
        #expect(funnel.steps[1].rate == 0.75, "6 of 8 checkouts, not 95 of 8")
        #expect(funnel.steps[2].rate == 90.0 / 95.0, "purchases sent a link, of every purchase")
        #expect(funnel.steps[3].rate == nil, "links per purchase is not a share")
        #expect(funnel.steps.allSatisfy { ($0.rate ?? 0) <= 1 })
        // More purchases through checkout than checkouts started in the window (started the day before): no share at all.
        day.purchases = 9
        let spilled = Funnel(
            days: 7, now: now, counts: [day.day: day], expiredUnused: 0, newLinkEmails: 0, medianToRedeem: nil, p90ToRedeem: nil,
            revenue: [:], purchasesSentALink: 90)
        #expect(spilled.steps[1].rate == nil)
    }

    @Test func percentilesAreNearestRank() {
        #expect(Funnel.percentileRank(0.5, count: 1) == 0)
        #expect(Funnel.percentileRank(0.5, count: 4) == 1)
        #expect(Funnel.percentileRank(0.9, count: 10) == 8)
        #expect(Funnel.percentileRank(0.9, count: 11) == 9)
        #expect(Funnel.percentileRank(0.5, count: 0) == 0)
    }
}

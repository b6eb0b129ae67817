import Foundation

/// The web-to-app hand-off of one app over a window of days, from recorded events: checkouts started, purchases,
/// redemption links issued, their pages opened, links redeemed, and offer codes redeemed. Links are counted by the day
/// they were issued (a cohort), so "opened" and "redeemed" are of that day's links, whenever it happened.
public struct Funnel: Sendable, Equatable {
    public struct Day: Sendable, Equatable {
        /// Midnight UTC.
        public var day: Date
        public var checkouts = 0
        /// Purchases through a checkout (the hosted or sandbox checkout, Stripe): the step after checkouts started.
        public var purchases = 0
        /// Purchases recorded otherwise (the server API, the CLI, other stores): not a checkout's conversion.
        public var purchasesElsewhere = 0
        public var linksIssued = 0
        public var linksOpened = 0
        public var linksRedeemed = 0
        public var offerRedemptions = 0

        public init(day: Date) { self.day = day }

        public var hasEvents: Bool {
            checkouts + purchases + purchasesElsewhere + linksIssued + linksOpened + linksRedeemed + offerRedemptions > 0
        }

        static func + (lhs: Day, rhs: Day) -> Day {
            var sum = lhs
            sum.checkouts += rhs.checkouts
            sum.purchases += rhs.purchases
            sum.purchasesElsewhere += rhs.purchasesElsewhere
            sum.linksIssued += rhs.linksIssued
            sum.linksOpened += rhs.linksOpened
            sum.linksRedeemed += rhs.linksRedeemed
            sum.offerRedemptions += rhs.offerRedemptions
            return sum
        }
    }

    /// Every day of the window, oldest first, zeros included.
    public var days: [Day]
    public var totals: Day
    /// Links issued in the window that expired unused.
    public var expiredUnused: Int
    /// New-link e-mails queued in the window (after an expired link, or on request).
    public var newLinkEmails: Int
    /// From purchase to the first redemption of one of its links, for links issued in the window.
    public var medianToRedeem: TimeInterval?
    public var p90ToRedeem: TimeInterval?
    /// Unrefunded purchases' prices by currency, in micros.
    public var revenue: [String: Int64]
    /// Purchases (of any origin) sent at least one redemption link issued in the window.
    public var purchasesSentALink: Int

    /// The stores of purchases made through a checkout.
    public static let checkoutStores: [Store] = [.rcBilling, .stripe]

    /// The windows the console offers.
    public static let windows = [7, 30, 90]

    /// The window of `days` days ending with today (UTC): its first midnight and the next midnight after now.
    public static func window(days: Int, now: Date) -> (from: Date, to: Date) {
        let today = floor(now.timeIntervalSince1970 / 86_400) * 86_400
        return (Date(timeIntervalSince1970: today - Double(days - 1) * 86_400), Date(timeIntervalSince1970: today + 86_400))
    }

    /// Assembles the window from per-day counts (keyed by midnight UTC), filling days without events with zeros.
    public init(
        days count: Int, now: Date, counts: [Date: Day], expiredUnused: Int, newLinkEmails: Int, medianToRedeem: TimeInterval?,
        p90ToRedeem: TimeInterval?, revenue: [String: Int64], purchasesSentALink: Int = 0
    ) {
        let start = Self.window(days: count, now: now).from
        days = (0..<count).map { offset in
            let day = start.addingTimeInterval(Double(offset) * 86_400)
            return counts[day] ?? Day(day: day)
        }
        totals = days.reduce(Day(day: start), +)
        self.expiredUnused = expiredUnused
        self.newLinkEmails = newLinkEmails
        self.medianToRedeem = medianToRedeem
        self.p90ToRedeem = p90ToRedeem
        self.revenue = revenue
        self.purchasesSentALink = purchasesSentALink
    }

    /// The steps in order with their totals, and each one's share of the step it follows from. Each step counts only what
    /// came through the one before, so no share is above 100%: purchases recorded elsewhere are `totals.purchasesElsewhere`,
    /// apart; a purchase sent several links counts once; pages opened and links redeemed are of the links issued (a link
    /// opens the app directly, so a redemption needs no page view). A share is nil when the step before is zero, or
    /// smaller (purchases of checkouts started before the window).
    public var steps: [(name: String, count: Int, rate: Double?, of: String?)] {
        func rate(_ count: Int, _ base: Int) -> Double? { base > 0 && count <= base ? Double(count) / Double(base) : nil }
        let purchases = totals.purchases + totals.purchasesElsewhere
        return [
            ("Checkouts started", totals.checkouts, nil, nil),
            ("Purchases through checkout", totals.purchases, rate(totals.purchases, totals.checkouts), "checkouts started"),
            ("Purchases sent a link", purchasesSentALink, rate(purchasesSentALink, purchases), "purchases"),
            ("Links issued", totals.linksIssued, nil, nil),
            ("Link pages opened", totals.linksOpened, rate(totals.linksOpened, totals.linksIssued), "links issued"),
            ("Links redeemed", totals.linksRedeemed, rate(totals.linksRedeemed, totals.linksIssued), "links issued"),
        ]
    }

    /// The rank of the `fraction` percentile (nearest rank) among `count` sorted values: 0-based.
    public static func percentileRank(_ fraction: Double, count: Int) -> Int {
        guard count > 0 else { return 0 }
        return min(count - 1, max(0, Int((fraction * Double(count)).rounded(.up)) - 1))
    }
}

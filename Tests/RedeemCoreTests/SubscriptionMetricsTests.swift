import Foundation
import RedeemCore
import Testing

/// Subscription metrics over a hand-built history, each number worked out by hand in the comments.
@Suite struct SubscriptionMetricsTests {
    static func date(_ text: String) -> Date { ISODate.parse(text.count == 10 ? text + "T00:00:00Z" : text)! }

    static func fact(
        _ customer: String, _ period: String?, _ price: String?, _ currency: String = "USD", start: String, expires: String?,
        type: PeriodType = .normal, store: Store = .stripe, refunded: String? = nil, grace: String? = nil
    ) -> SubscriptionMetrics.PurchaseFact {
        SubscriptionMetrics.PurchaseFact(
            customerID: customer, store: store, periodType: type, price: price.map { try! Price(text: $0, currency: currency) },
            period: period.map { try! ISO8601Period(parsing: $0) }, originalPurchaseDate: date(start),
            access: AccessFacts(expiresDate: expires.map(date), gracePeriodExpiresDate: grace.map(date), refundedAt: refunded.map(date)))
    }

    /// Now is 2026-11-26 12:00 UTC; 30 days run from 2026-10-28 to today.
    static let now = date("2026-11-26T12:00:00Z")
    static let history: [SubscriptionMetrics.PurchaseFact] = [
        // Monthly since Sep 10, renewed Oct 10 (before the window) and Nov 10: active, 9.99 a month.
        fact("a", "P1M", "9.99", start: "2026-09-10", expires: "2026-12-10"),
        // Monthly since Oct 1, renewed Nov 1: active, and active at the window's start.
        fact("d", "P1M", "9.99", start: "2026-10-01", expires: "2026-12-01"),
        // Yearly 60.00 from Nov 1: 5.00 a month.
        fact("b", "P1Y", "60.00", start: "2026-11-01T09:00:00Z", expires: "2027-11-01T09:00:00Z"),
        // Weekly 3.00 EUR from Nov 20: 3 × 52 / 12 = 13.00 EUR a month.
        fact("c", "P1W", "3.00", "EUR", start: "2026-11-20T10:00:00Z", expires: "2026-11-27T10:00:00Z"),
        // A trial from Nov 5 to Nov 12 that converts: the same customer pays monthly from Nov 12.
        fact("t1", "P1M", nil, start: "2026-11-05", expires: "2026-11-12", type: .trial, store: .rcBilling),
        fact("t1", "P1M", "9.99", start: "2026-11-12", expires: "2026-12-12"),
        // A trial that lapses, and one still running.
        fact("t2", "P1M", nil, start: "2026-11-01", expires: "2026-11-08", type: .trial),
        fact("t3", "P1M", nil, start: "2026-11-24", expires: "2026-12-01", type: .trial),
        // Bought Nov 15, refunded Nov 16 08:00: +9.99 then -9.99, and churned.
        fact("r", "P1M", "9.99", start: "2026-11-15", expires: "2026-12-15", refunded: "2026-11-16T08:00:00Z"),
        // Monthly 4.99 since Sep 20, renewed Oct 20, not again: ended Nov 20, churned.
        fact("x", "P1M", "4.99", start: "2026-09-20", expires: "2026-11-20"),
        // A promotional grant: neither active subscription nor revenue.
        fact("p", nil, nil, start: "2026-11-02", expires: "2026-12-02", store: .promotional),
        // A lifetime purchase: revenue only.
        fact("l", nil, "20.00", start: "2026-11-03", expires: nil),
    ]
    static let customers = [
        SubscriptionMetrics.CustomerFact(firstSeen: date("2026-11-05"), hasProductionPurchase: true, hasSandboxPurchase: false),
        SubscriptionMetrics.CustomerFact(firstSeen: date("2026-11-06"), hasProductionPurchase: false, hasSandboxPurchase: false),
        SubscriptionMetrics.CustomerFact(firstSeen: date("2026-11-07"), hasProductionPurchase: false, hasSandboxPurchase: true),
        SubscriptionMetrics.CustomerFact(firstSeen: date("2026-10-01"), hasProductionPurchase: true, hasSandboxPurchase: false),
    ]

    static func metrics(_ environment: MetricsEnvironment = .production) -> SubscriptionMetrics {
        SubscriptionMetrics.compute(facts: .init(purchases: history, customers: customers), environment: environment, days: 30, now: now)
    }

    @Test func headlineNumbers() {
        let m = Self.metrics()
        #expect(m.from == Self.date("2026-10-28") && m.to == Self.date("2026-11-27"))
        // a, d, b, c and t1's paid subscription.
        #expect(m.activeSubscriptions == 5)
        #expect(m.activeTrials == 1)
        // 9.99 × 3 + 5.00 USD; 13.00 EUR.
        #expect(m.mrr == ["USD": 34_970_000, "EUR": 13_000_000])
        #expect(m.newCustomers == 2, "the buyer and the customer without purchases; the sandbox one and the earlier one are not")
        #expect(m.trialsStarted == 3)
        #expect(m.trialConversions == 1)
        // r (refunded) and x (expired) of a, d and x active on Oct 28.
        #expect(m.churned == 2 && m.activeAtStart == 3)
        #expect(m.churnRate == 2.0 / 3.0)
        #expect(m.refunds == 1 && m.refunded == ["USD": 9_990_000])
        // 9.99 (a, Nov 10) + 9.99 (d, Nov 1) + 60 (b) + 9.99 (t1) + 9.99 - 9.99 (r) + 20 (l) = 109.97 USD; 3 EUR.
        #expect(m.revenue == ["USD": 109_970_000, "EUR": 3_000_000])
    }

    @Test func days() {
        let m = Self.metrics()
        #expect(m.days.count == 30)
        let day = { (text: String) in m.days.first { $0.day == Self.date(text) }! }
        #expect(day("2026-11-01").revenue == ["USD": 69_990_000], "b's first purchase and d's renewal")
        #expect(day("2026-11-16").revenue == ["USD": -9_990_000], "r's refund")
        #expect(day("2026-11-20").revenue == ["EUR": 3_000_000])
        #expect(day("2026-10-28").activeSubscriptions == 3, "a, d, x")
        #expect(day("2026-11-15").activeSubscriptions == 6, "a, d, b, t1's, r (refunded the next day), x")
        #expect(day("2026-11-16").activeSubscriptions == 5, "r refunded")
        #expect(day("2026-11-25").activeSubscriptions == 5)
        #expect(day("2026-11-06").activeTrials == 2, "t1 and t2")
        #expect(day("2026-11-26").activeTrials == 1)
        var summed: [String: Int64] = [:]
        for day in m.days { for (currency, micros) in day.revenue { summed[currency, default: 0] += micros } }
        #expect(summed == m.revenue)
    }

    @Test func environmentsAreApart() {
        let m = Self.metrics(.sandbox)
        #expect(m.newCustomers == 1, "only the customer with only sandbox purchases")
        let sandbox = SubscriptionMetrics.compute(
            facts: .init(purchases: [], customers: Self.customers), environment: .sandbox, days: 7, now: Self.now)
        #expect(sandbox.activeSubscriptions == 0 && sandbox.mrr.isEmpty && sandbox.revenue.isEmpty && sandbox.churnRate == nil)
    }

    /// A sandbox checkout's subscription renews on the sandbox clock: every 5 minutes for a month.
    @Test func sandboxClockRenewals() {
        var fact = Self.fact("s", "P1M", "9.99", start: "2026-11-26T10:00:00Z", expires: "2026-11-26T10:15:00Z", store: .rcBilling)
        fact.sandboxClock = true
        let m = SubscriptionMetrics.compute(facts: .init(purchases: [fact], customers: []), environment: .sandbox, days: 1, now: Self.now)
        #expect(m.revenue == ["USD": 29_970_000], "the purchase at 10:00, renewals at 10:05 and 10:10")
        #expect(m.churned == 1 && m.activeSubscriptions == 0)
    }

    /// A trial converted in place (one row, now `normal`, with `trial_ended_at`) counts as the trial it was and as a
    /// conversion, and is paid from the trial's end: Nov 12 and its renewal Dec 12 are outside; only Nov 12 counts.
    @Test func trialConvertedInPlace() {
        var fact = Self.fact("i", "P1M", "9.99", start: "2026-11-05", expires: "2026-12-12", store: .stripe)
        fact.trialEndedAt = Self.date("2026-11-12")
        let m = SubscriptionMetrics.compute(facts: .init(purchases: [fact], customers: []), environment: .production, days: 30, now: Self.now)
        #expect(m.trialsStarted == 1 && m.trialConversions == 1)
        #expect(m.activeSubscriptions == 1 && m.activeTrials == 0 && m.mrr == ["USD": 9_990_000])
        #expect(m.revenue == ["USD": 9_990_000], "one paid day, Nov 12, not Nov 5")
        let trialDay = m.days.first { $0.day == Self.date("2026-11-06") }
        #expect(trialDay?.activeTrials == 1 && trialDay?.activeSubscriptions == 0)
        #expect(m.days.first { $0.day == Self.date("2026-11-12") }?.revenue == ["USD": 9_990_000])
    }

    /// A monthly subscription switched to yearly in place is each plan for its time: the monthly payments on Oct 5 and
    /// Nov 5, the yearly one on the switch (Nov 20); no churn at the switch, no new subscription or conversion either.
    @Test func planSwitchedInPlace() {
        // The row as it stands now: yearly 60.00 from the switch on Nov 20 to Nov 20 next year.
        var fact = Self.fact("s", "P1Y", "60.00", start: "2026-10-05", expires: "2027-11-20")
        fact.earlierPlans = [
            .init(until: Self.date("2026-11-20"), price: try! Price(text: "9.99", currency: "USD"), period: try! ISO8601Period(parsing: "P1M"))
        ]
        // A trial of the same customer that lapsed before the switch: a switch is no conversion of it.
        let trial = Self.fact("s", "P1M", nil, start: "2026-11-13", expires: "2026-11-20", type: .trial)
        let m = SubscriptionMetrics.compute(facts: .init(purchases: [fact, trial], customers: []), environment: .production, days: 30, now: Self.now)
        #expect(m.activeSubscriptions == 1 && m.mrr == ["USD": 5_000_000], "the yearly plan, 60.00 / 12")
        #expect(m.churned == 0 && m.trialConversions == 0)
        #expect(m.activeAtStart == 1, "the monthly plan on Oct 28")
        #expect(m.days.first { $0.day == Self.date("2026-11-05") }?.revenue == ["USD": 9_990_000])
        #expect(m.days.first { $0.day == Self.date("2026-11-20") }?.revenue == ["USD": 60_000_000])
        #expect(m.revenue == ["USD": 69_990_000], "Nov 5's renewal and the switch; Oct 5 is before the window")
        #expect(m.days.allSatisfy { $0.activeSubscriptions <= 1 })
    }

    /// Cancellations in the window by reason, the most given first, ties in Stripe's order, "none given" and then erasures
    /// after (an erased customer's subscription counts as the erasure's, whatever the buyer said): a
    /// trial counts, as does a trial converted in place (once, not per phase); a promotional grant's revocation, a
    /// cancellation before the window, one-time purchases and the absence of a cancellation do not.
    @Test func cancellationsByReason() {
        func cancelled(
            _ customer: String, at: String?, _ feedback: CancellationFeedback?, type: PeriodType = .normal, store: Store = .stripe,
            period: String? = "P1M", expires: String? = "2026-12-20"
        ) -> SubscriptionMetrics.PurchaseFact {
            var fact = Self.fact(customer, period, "9.99", start: "2026-10-20", expires: expires, type: type, store: store)
            fact.unsubscribedAt = at.map(Self.date)
            fact.cancellationFeedback = feedback
            return fact
        }
        var converted = cancelled("i", at: "2026-11-20", .tooExpensive)
        converted.trialEndedAt = Self.date("2026-10-27")
        let facts: [SubscriptionMetrics.PurchaseFact] = [
            cancelled("a", at: "2026-11-01", .unused),
            cancelled("b", at: "2026-11-02T08:00:00Z", .tooExpensive),
            converted,
            cancelled("c", at: "2026-11-03", nil),
            cancelled("d", at: "2026-11-04", .unused, type: .trial),
            cancelled("e", at: "2026-11-05", .switchedService),
            cancelled("f", at: "2026-11-06", nil),
            cancelled("g", at: "2026-10-20", .other),  // before the window (Oct 28)
            cancelled("h", at: "2026-11-07", nil, store: .promotional),  // a revoked grant
            cancelled("l", at: "2026-11-08", .other, period: nil, expires: nil),  // a one-time purchase
            cancelled("n", at: nil, nil),
        ]
        var erased = cancelled("o", at: "2026-11-09", nil)  // set to end by its customer's erasure
        erased.customerErased = true
        let m = SubscriptionMetrics.compute(
            facts: .init(purchases: facts + [erased], customers: []), environment: .production, days: 30, now: Self.now)
        #expect(
            m.cancellations == [
                .init(.buyer(.tooExpensive), count: 2), .init(.buyer(.unused), count: 2), .init(.buyer(nil), count: 2),
                .init(.buyer(.switchedService), count: 1), .init(.erasure, count: 1),
            ])
        #expect(m.cancellations.map(\.reason.value) == ["too_expensive", "unused", "none", "switched_service", "erased"])
        #expect(m.cancellations.allSatisfy { CancellationReason(value: $0.reason.value) == $0.reason })
        #expect(CancellationReason.erasure.label == "Customer erased on request" && CancellationReason(value: "nope") == nil)
        #expect(
            SubscriptionMetrics.compute(facts: .init(purchases: [], customers: []), environment: .production, days: 7, now: Self.now)
                .cancellations.isEmpty)
        #expect(CancellationFeedback.label(nil) == "No reason given" && CancellationFeedback.label(.unused) == "I don’t use it enough")
    }

    /// A subscription in its billing grace period is still active (AccessFacts' one definition).
    @Test func gracePeriodIsActive() {
        let fact = Self.fact("g", "P1M", "9.99", start: "2026-10-26", expires: "2026-11-26", grace: "2026-12-02")
        let m = SubscriptionMetrics.compute(facts: .init(purchases: [fact], customers: []), environment: .production, days: 7, now: Self.now)
        #expect(m.activeSubscriptions == 1 && m.churned == 0 && m.mrr == ["USD": 9_990_000])
    }

    @Test func monthlyNormalisation() {
        func monthly(_ amount: String, _ currency: String, _ period: String) -> Int64 {
            SubscriptionMetrics.monthly(try! Price(text: amount, currency: currency), period: try! ISO8601Period(parsing: period)).amountMicros
        }
        #expect(monthly("3.00", "EUR", "P1W") == 13_000_000)
        #expect(monthly("9.99", "USD", "P1M") == 9_990_000)
        #expect(monthly("30.00", "USD", "P3M") == 10_000_000)
        #expect(monthly("60.00", "USD", "P6M") == 10_000_000)
        #expect(monthly("120.00", "USD", "P1Y") == 10_000_000)
        #expect(monthly("500", "JPY", "P1Y") == 41_666_667, "rounded half up to the micro")
        #expect(monthly("3.65", "USD", "P30D") == 3_700_694, "3.65 × 365 / 360, rounded down to the micro")
    }
}

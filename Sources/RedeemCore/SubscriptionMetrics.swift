import Foundation

/// Production or sandbox: metrics read one of them, never both.
public enum MetricsEnvironment: String, CaseIterable, Codable, Sendable {
    case production, sandbox
    public var isSandbox: Bool { self == .sandbox }
}

/// Subscription metrics of one app in one environment, as RevenueCat's Charts define them, computed from the purchases
/// and customers the store reads (`compute(facts:days:now:)`; no I/O).
///
/// - Active subscriptions: paid (not a trial, not a promotional grant), unexpired subscriptions at `now`; active
///   trials: trials unexpired at `now`. "Unexpired" is `AccessFacts.isActiveSubscription` (grace period included, refunds
///   excluded), judged with the refund only once it happened, so a past day counts what was active that day.
/// - MRR: each active subscription's price normalised to a month, per currency (P1W ×52/12, P1M ×1, P3M ÷3, P1Y ÷12,
///   days ×365/12), in micros rounded half up once per subscription.
/// - New customers: customers first seen in the window; a customer with only sandbox purchases is sandbox's, any other
///   is production's.
/// - Trial conversions: paid subscriptions started in the window by a customer whose trial was running (or had ended
///   less than `conversionGrace` before); each trial converts at most once.
/// - Churned: paid subscriptions whose access ended in the window (expired past any grace period, or refunded);
///   the churn rate is that count over the paid subscriptions active at the window's start.
/// - Refunds: purchases refunded in the window, with their prices per currency (the full price: a partial refund's
///   amount is not recorded).
/// - Cancellations: subscriptions (trials included, promotional grants not) set in the window to stop renewing and not
///   renewing again since, counted by the reason the buyer gave (`CancellationFeedback`; most given first).
/// - A subscription that switched plan in place (`PlanChange`) is read as each plan for the time it was in force: the
///   switch is neither churn nor a new subscription, and each plan's transactions are at its own price and period.
/// - Revenue per day: each paid transaction on its day (a first purchase, or a renewal: a subscription's period starts
///   after the first, up to its expiry, derived because a renewal moves the purchase's expiry rather than adding a
///   row; a sandbox checkout's periods are the sandbox clock's), minus refunds on the day of the refund. Trials and
///   promotional grants are free.
public struct SubscriptionMetrics: Sendable, Equatable {
    /// A purchase as the metrics read it.
    public struct PurchaseFact: Sendable, Hashable {
        public var customerID: String
        public var store: Store
        public var periodType: PeriodType
        public var price: Price?
        /// The product's billing period; nil for one-time products and granted entitlements.
        public var period: ISO8601Period?
        /// A sandbox checkout's subscription, renewed on the sandbox clock.
        public var sandboxClock: Bool
        public var originalPurchaseDate: Date
        /// When a trial that converted in place (its row now `normal`) became paid.
        public var trialEndedAt: Date?
        public var access: AccessFacts
        /// When it was set to stop renewing (and has not renewed again since), and why, if the buyer said.
        public var unsubscribedAt: Date?
        public var cancellationFeedback: CancellationFeedback?
        /// Its customer was erased (the purchase stays for the books): the erasure set it to end.
        public var customerErased: Bool
        /// The plans it had before switching in place (`PlanChange`), oldest first: each in force until its `until`.
        public var earlierPlans: [EarlierPlan] = []
        /// A phase that ended in a switch of plan (not churn), or began in one (not a new subscription).
        public var endsInSwitch = false
        public var beginsInSwitch = false

        /// A plan a subscription had before it switched.
        public struct EarlierPlan: Sendable, Hashable {
            public var until: Date
            public var price: Price?
            public var period: ISO8601Period?
            public init(until: Date, price: Price?, period: ISO8601Period?) {
                self.until = until
                self.price = price
                self.period = period
            }
        }

        public init(
            customerID: String, store: Store, periodType: PeriodType, price: Price?, period: ISO8601Period?, sandboxClock: Bool = false,
            originalPurchaseDate: Date, trialEndedAt: Date? = nil, access: AccessFacts, unsubscribedAt: Date? = nil,
            cancellationFeedback: CancellationFeedback? = nil, customerErased: Bool = false
        ) {
            self.customerID = customerID
            self.store = store
            self.periodType = periodType
            self.price = price
            self.period = period
            self.sandboxClock = sandboxClock
            self.originalPurchaseDate = originalPurchaseDate
            self.trialEndedAt = trialEndedAt
            self.access = access
            self.unsubscribedAt = unsubscribedAt
            self.cancellationFeedback = cancellationFeedback
            self.customerErased = customerErased
        }

        /// A trial converted in place as what it was: the trial up to its end, then a paid subscription from there (so
        /// its conversion is seen and its renewals are counted from the first paid day); and a subscription that switched
        /// plan in place as each plan for the time it was in force. Anything else as it is.
        var phases: [PurchaseFact] { trialPhases.flatMap(\.planPhases) }

        var trialPhases: [PurchaseFact] {
            guard let trialEnd = trialEndedAt, periodType != .trial, trialEnd > originalPurchaseDate else { return [self] }
            var trial = self
            trial.periodType = .trial
            trial.trialEndedAt = nil
            trial.earlierPlans = []
            trial.access = AccessFacts(expiresDate: trialEnd, refundedAt: access.refundedAt.flatMap { $0 < trialEnd ? $0 : nil })
            var paid = self
            paid.trialEndedAt = nil
            paid.originalPurchaseDate = trialEnd
            return [trial, paid]
        }

        /// Each earlier plan from its start to its switch (its price and period; the switch is no churn), then the
        /// current one from the last switch (no new subscription). A trial's phase keeps its own.
        var planPhases: [PurchaseFact] {
            let switches = earlierPlans.filter { $0.until > originalPurchaseDate }
            guard !switches.isEmpty, periodType != .trial else { return [self] }
            var phases: [PurchaseFact] = []
            var start = originalPurchaseDate
            for plan in switches {
                var earlier = self
                earlier.earlierPlans = []
                earlier.price = plan.price
                earlier.period = plan.period
                earlier.originalPurchaseDate = start
                earlier.access = AccessFacts(expiresDate: plan.until)
                earlier.unsubscribedAt = nil
                earlier.cancellationFeedback = nil
                earlier.endsInSwitch = true
                earlier.beginsInSwitch = start != originalPurchaseDate
                phases.append(earlier)
                start = plan.until
            }
            var current = self
            current.earlierPlans = []
            current.originalPurchaseDate = start
            current.beginsInSwitch = true
            phases.append(current)
            return phases
        }

        public var isSubscription: Bool { access.expiresDate != nil }
        public var isTrial: Bool { periodType == .trial }
        /// Paid: neither a trial nor a promotional grant.
        public var isPaid: Bool { !isTrial && store != .promotional }

        /// Grants access at `date` as things stood then: started, and the refund counted only once it happened.
        public func isActiveSubscription(at date: Date) -> Bool {
            guard originalPurchaseDate <= date else { return false }
            var facts = access
            if let refunded = facts.refundedAt, refunded > date { facts.refundedAt = nil }
            return facts.isActiveSubscription(at: date)
        }

        /// When access ended or ends: the refund, or the expiry past any grace period.
        public var end: Date? {
            [access.refundedAt, access.accessEnds].compactMap { $0 }.min()
        }
    }

    /// A customer first seen in the window, and where they bought.
    public struct CustomerFact: Sendable, Hashable {
        public var firstSeen: Date
        public var hasProductionPurchase: Bool
        public var hasSandboxPurchase: Bool

        public init(firstSeen: Date, hasProductionPurchase: Bool, hasSandboxPurchase: Bool) {
            self.firstSeen = firstSeen
            self.hasProductionPurchase = hasProductionPurchase
            self.hasSandboxPurchase = hasSandboxPurchase
        }

        public var environment: MetricsEnvironment { hasSandboxPurchase && !hasProductionPurchase ? .sandbox : .production }
    }

    /// What the store reads for one app and environment: every purchase that started before the window's end and whose
    /// access ran into the window (or had no end, or was refunded in it), and the customers first seen in the window.
    public struct Facts: Sendable {
        public var purchases: [PurchaseFact]
        public var customers: [CustomerFact]

        public init(purchases: [PurchaseFact], customers: [CustomerFact]) {
            self.purchases = purchases
            self.customers = customers
        }
    }

    /// Cancellations with one reason.
    public struct CancellationCount: Sendable, Equatable {
        public var reason: CancellationReason
        public var count: Int

        public init(_ reason: CancellationReason, count: Int) {
            self.reason = reason
            self.count = count
        }
    }

    public struct Day: Sendable, Equatable {
        /// Midnight UTC.
        public var day: Date
        /// At the day's end (or now, for today).
        public var activeSubscriptions: Int
        public var activeTrials: Int
        /// Transactions minus refunds, micros per currency.
        public var revenue: [String: Int64]
    }

    /// How long after a trial's end a paid subscription still counts as its conversion.
    public static let conversionGrace: TimeInterval = 86_400
    /// The windows the API accepts, in days.
    public static let dayRange = 1...365

    public var environment: MetricsEnvironment
    public var from: Date
    public var to: Date
    public var activeSubscriptions: Int
    public var activeTrials: Int
    public var mrr: [String: Int64]
    public var newCustomers: Int
    public var trialsStarted: Int
    public var trialConversions: Int
    public var churned: Int
    public var activeAtStart: Int
    public var refunds: Int
    public var refunded: [String: Int64]
    /// Transactions minus refunds over the window, micros per currency.
    public var revenue: [String: Int64]
    /// By reason, the most given first (ties in `CancellationFeedback`'s order), "none given" and then erasures last
    /// among equals.
    public var cancellations: [CancellationCount] = []
    /// Every day of the window, oldest first.
    public var days: [Day]

    /// Churned over active at the window's start; nil when none were active.
    public var churnRate: Double? { activeAtStart > 0 ? Double(churned) / Double(activeAtStart) : nil }

    /// The metrics of the `days` days ending today (UTC), the window `Funnel.window` gives. `facts` are of one environment.
    public static func compute(facts: Facts, environment: MetricsEnvironment, days: Int, now: Date) -> SubscriptionMetrics {
        let (from, to) = Funnel.window(days: days, now: now)
        // The window so far: from its first midnight up to and including now.
        let inWindow = { (date: Date) in date >= from && date <= now }
        let purchases = facts.purchases.flatMap(\.phases)
        let paid = purchases.filter { $0.isSubscription && $0.isPaid }
        let trials = purchases.filter { $0.isSubscription && $0.isTrial }

        var mrr: [String: Int64] = [:]
        for fact in paid where fact.isActiveSubscription(at: now) {
            guard let price = fact.price, let period = fact.period else { continue }
            mrr[price.currency, default: 0] += monthly(price, period: period).amountMicros
        }

        // Conversions: each paid start matched to one unconverted trial of its customer.
        var converted = Set<Int>()
        var conversions = 0
        for fact in paid where inWindow(fact.originalPurchaseDate) && !fact.beginsInSwitch {
            let start = fact.originalPurchaseDate
            let match = trials.indices.first { index in
                let trial = trials[index]
                guard !converted.contains(index), trial.customerID == fact.customerID, trial.originalPurchaseDate <= start else { return false }
                return (trial.end ?? .distantFuture).addingTimeInterval(conversionGrace) >= start
            }
            if let match {
                converted.insert(match)
                conversions += 1
            }
        }

        var revenue: [Date: [String: Int64]] = [:]
        func add(_ price: Price, at date: Date, sign: Int64 = 1) {
            guard inWindow(date) else { return }
            revenue[midnight(date), default: [:]][price.currency, default: 0] += sign * price.amountMicros
        }
        var refunds = 0
        var refunded: [String: Int64] = [:]
        for fact in purchases {
            guard fact.isPaid else { continue }
            if let refundedAt = fact.access.refundedAt, inWindow(refundedAt) {
                refunds += 1
                if let price = fact.price {
                    refunded[price.currency, default: 0] += price.amountMicros
                    add(price, at: refundedAt, sign: -1)
                }
            }
            guard let price = fact.price else { continue }
            for date in transactions(of: fact, until: now) { add(price, at: date) }
        }

        let churned = paid.filter { fact in !fact.endsInSwitch && (fact.end.map(inWindow) ?? false) }.count
        let dayList = (0..<days).map { offset -> Day in
            let day = from.addingTimeInterval(Double(offset) * 86_400)
            let at = min(day.addingTimeInterval(86_400), now)
            let counted = at >= day
            return Day(
                day: day, activeSubscriptions: counted ? paid.filter { $0.isActiveSubscription(at: at) }.count : 0,
                activeTrials: counted ? trials.filter { $0.isActiveSubscription(at: at) }.count : 0, revenue: revenue[day] ?? [:])
        }
        var total: [String: Int64] = [:]
        for day in dayList { for (currency, micros) in day.revenue { total[currency, default: 0] += micros } }
        var metrics = SubscriptionMetrics(
            environment: environment, from: from, to: to, activeSubscriptions: paid.filter { $0.isActiveSubscription(at: now) }.count,
            activeTrials: trials.filter { $0.isActiveSubscription(at: now) }.count, mrr: mrr,
            newCustomers: facts.customers.filter { $0.environment == environment && inWindow($0.firstSeen) }.count,
            trialsStarted: trials.filter { inWindow($0.originalPurchaseDate) }.count,
            trialConversions: conversions, churned: churned, activeAtStart: paid.filter { $0.isActiveSubscription(at: from) }.count,
            refunds: refunds, refunded: refunded,
            revenue: total,
            days: dayList)
        metrics.cancellations = cancellations(facts.purchases, inWindow: inWindow)
        return metrics
    }

    /// The window's cancellations by reason. A purchase, not its phases: a trial converted in place is one subscription.
    static func cancellations(_ purchases: [PurchaseFact], inWindow: (Date) -> Bool) -> [CancellationCount] {
        var counts: [CancellationReason: Int] = [:]
        for fact in purchases where fact.isSubscription && fact.store != .promotional {
            guard let at = fact.unsubscribedAt, inWindow(at) else { continue }
            counts[fact.customerErased ? .erasure : .buyer(fact.cancellationFeedback), default: 0] += 1
        }
        return counts.map { CancellationCount($0.key, count: $0.value) }
            .sorted { ($0.count, $1.reason.rank) > ($1.count, $0.reason.rank) }
    }

    /// A price for `period` as a month's worth: exact integer arithmetic on micros, rounded half up.
    public static func monthly(_ price: Price, period: ISO8601Period) -> Price {
        let months = Int64(period.years * 12 + period.months)
        let days = Int64(period.weeks * 7 + period.days)
        let (numerator, denominator): (Int64, Int64) =
            switch (months, period.weeks, period.days) {
            case (_, 0, 0): (1, max(months, 1))
            case (0, let weeks, 0): (52, 12 * Int64(weeks))
            case (0, _, _): (365, 12 * days)
            default: (365, 365 * months + 12 * days)
            }
        return Price(amountMicros: (price.amountMicros * numerator + denominator / 2) / denominator, currency: price.currency)
    }

    /// When `fact` was paid for, up to and including `end`: its first purchase (one-time products too), then each later
    /// period's start before its expiry and any refund.
    static func transactions(of fact: PurchaseFact, until end: Date) -> [Date] {
        var dates = [fact.originalPurchaseDate]
        guard let expiry = fact.access.expiresDate, let period = fact.period else { return dates.filter { $0 <= end } }
        let last = min(expiry, fact.access.refundedAt ?? expiry)
        let sandboxLength = fact.sandboxClock ? (try? SandboxClock.expiry(period: period.description, from: fact.originalPurchaseDate)) : nil
        for count in 1...100_000 {
            let start =
                sandboxLength.map { fact.originalPurchaseDate.addingTimeInterval($0.timeIntervalSince(fact.originalPurchaseDate) * Double(count)) }
                ?? period.advance(fact.originalPurchaseDate, times: count)
            guard start < last, start <= end else { break }
            dates.append(start)
        }
        return dates.filter { $0 <= end }
    }

    static func midnight(_ date: Date) -> Date { Date(timeIntervalSince1970: floor(date.timeIntervalSince1970 / 86_400) * 86_400) }
}

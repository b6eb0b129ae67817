import Foundation
import RedeemCore

/// Subscription metrics as the admin API and `redeem metrics --json` give them: amounts per currency as exact decimal
/// text with their micros, dates as `YYYY-MM-DD` (UTC).
public struct MetricsReport: Codable, Sendable, Hashable {
    public struct Money: Codable, Sendable, Hashable {
        public let currency: String
        /// `4.99`, `500`: the currency's decimals.
        public let amount: String
        public let amountMicros: Int64

        init(_ price: Price) {
            currency = price.currency
            amount = price.plainAmount
            amountMicros = price.amountMicros
        }

        static func list(_ amounts: [String: Int64]) -> [Money] {
            amounts.sorted { $0.key < $1.key }.map { Money(Price(amountMicros: $0.value, currency: $0.key)) }
        }

        enum CodingKeys: String, CodingKey {
            case currency, amount
            case amountMicros = "amount_micros"
        }
    }

    /// Cancellations with one reason: Stripe's `cancellation_details.feedback` value, `none`, or `erased`.
    public struct Cancellations: Codable, Sendable, Hashable {
        public let reason: String
        public let count: Int

        /// "It’s too expensive", "No reason given", "Customer erased on request".
        public var label: String { CancellationReason(value: reason)?.label ?? reason }
    }

    public struct Day: Codable, Sendable, Hashable {
        public let date: String
        public let activeSubscriptions: Int
        public let activeTrials: Int
        public let revenue: [Money]

        enum CodingKeys: String, CodingKey {
            case date, revenue
            case activeSubscriptions = "active_subscriptions"
            case activeTrials = "active_trials"
        }
    }

    public let appID: String
    public let environment: MetricsEnvironment
    public let days: Int
    public let from: String
    public let to: String
    public let activeSubscriptions: Int
    public let activeTrials: Int
    public let mrr: [Money]
    public let newCustomers: Int
    public let trialsStarted: Int
    public let trialConversions: Int
    public let churned: Int
    public let activeAtStart: Int
    /// Churned over active at the start, 0 when none were active (then `active_at_start` is 0 too).
    public let churnRate: Double
    public let refunds: Int
    public let refunded: [Money]
    public let revenue: [Money]
    public let cancellations: [Cancellations]
    public let daily: [Day]

    init(appID: String, days: Int, _ metrics: SubscriptionMetrics) {
        self.appID = appID
        self.days = days
        environment = metrics.environment
        from = Self.date(metrics.from)
        to = Self.date(metrics.to.addingTimeInterval(-86_400))
        activeSubscriptions = metrics.activeSubscriptions
        activeTrials = metrics.activeTrials
        mrr = Money.list(metrics.mrr)
        newCustomers = metrics.newCustomers
        trialsStarted = metrics.trialsStarted
        trialConversions = metrics.trialConversions
        churned = metrics.churned
        activeAtStart = metrics.activeAtStart
        churnRate = metrics.churnRate ?? 0
        refunds = metrics.refunds
        refunded = Money.list(metrics.refunded)
        revenue = Money.list(metrics.revenue)
        cancellations = metrics.cancellations.map { Cancellations(reason: $0.reason.value, count: $0.count) }
        daily = metrics.days.map {
            Day(date: Self.date($0.day), activeSubscriptions: $0.activeSubscriptions, activeTrials: $0.activeTrials, revenue: Money.list($0.revenue))
        }
    }

    static func date(_ date: Date) -> String { String(ISODate.format(date).prefix(10)) }

    enum CodingKeys: String, CodingKey {
        case environment, days, from, to, mrr, churned, refunds, refunded, revenue, cancellations, daily
        case appID = "app_id"
        case activeSubscriptions = "active_subscriptions"
        case activeTrials = "active_trials"
        case newCustomers = "new_customers"
        case trialsStarted = "trials_started"
        case trialConversions = "trial_conversions"
        case activeAtStart = "active_at_start"
        case churnRate = "churn_rate"
    }
}

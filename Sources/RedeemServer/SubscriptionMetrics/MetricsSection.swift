import Foundation
import RedeemCore

/// The overview's subscription metrics: the environment and window switches, the headline tiles and the charts.
struct MetricsSection: Sendable {
    struct Choice: Sendable {
        let name: String
        let selected: Bool
        let url: String
    }

    struct Tile: Sendable {
        /// The element's id, for tests: `active-subscriptions`, `mrr`, …
        let id: String
        let label: String
        /// One line per currency where the value is money.
        let lines: [String]
        let hint: String
    }

    struct Chart: Sendable {
        let title: String
        let svg: String
    }

    /// One reason subscribers gave for cancelling, drawn as the funnel's steps are.
    struct Reason: Sendable {
        let label: String
        let count: Int
        let bar: String
    }

    let environment: String
    let sandbox: Bool
    let environments: [Choice]
    let tiles: [Tile]
    let charts: [Chart]
    /// Why subscribers cancelled in the window, the most given first; empty when none did.
    let reasons: [Reason]
    /// A stored flag: templates read stored properties, and an Int of 0 opens a section.
    let anyCancelled: Bool
    /// "3 subscriptions or trials set to end in this window, by the reason given:".
    let cancelledSummary: String
    /// The customer list of those whose subscription won't renew, in this environment (set by the page).
    var wontRenewURL: String?
    let from: String
    let to: String

    init(_ metrics: SubscriptionMetrics, days: Int, url: (Int, MetricsEnvironment) -> String) {
        environment = metrics.environment.rawValue
        sandbox = metrics.environment == .sandbox
        environments = MetricsEnvironment.allCases.map {
            Choice(name: $0 == .production ? "Production" : "Sandbox", selected: $0 == metrics.environment, url: url(days, $0))
        }
        let money = { (amounts: [String: Int64]) in
            amounts.isEmpty
                ? ["–"]
                : amounts.sorted { $0.key < $1.key }.map { Price(amountMicros: $0.value, currency: $0.key).plainAmount + " " + $0.key }
        }
        let rate =
            metrics.churnRate.map { String(format: "%.1f%% of %d active at the start", $0 * 100, metrics.activeAtStart) }
            ?? "none active at the start"
        tiles = [
            Tile(id: "active-subscriptions", label: "Active subscriptions", lines: ["\(metrics.activeSubscriptions)"], hint: "paid, unexpired, now"),
            Tile(id: "active-trials", label: "Active trials", lines: ["\(metrics.activeTrials)"], hint: "now"),
            Tile(id: "mrr", label: "MRR", lines: money(metrics.mrr), hint: "prices normalised to a month"),
            Tile(id: "revenue", label: "Revenue", lines: money(metrics.revenue), hint: "purchases and renewals, less refunds"),
            Tile(id: "new-customers", label: "New customers", lines: ["\(metrics.newCustomers)"], hint: "first seen in the window"),
            Tile(
                id: "trial-conversions", label: "Trial conversions", lines: ["\(metrics.trialConversions)"],
                hint: "\(metrics.trialsStarted) trial\(metrics.trialsStarted == 1 ? "" : "s") started"),
            Tile(id: "churned", label: "Churned", lines: ["\(metrics.churned)"], hint: rate),
            Tile(
                id: "refunds", label: "Refunds", lines: ["\(metrics.refunds)"],
                hint: metrics.refunded.isEmpty ? "none" : money(metrics.refunded).joined(separator: ", ")),
        ]
        let cancelled = metrics.cancellations.map(\.count).reduce(0, +)
        anyCancelled = cancelled > 0
        cancelledSummary =
            "\(cancelled) \(cancelled == 1 ? "subscription or trial" : "subscriptions or trials") set to end in this window, by the reason given:"
        let widest = metrics.cancellations.map(\.count).max() ?? 0
        reasons = metrics.cancellations.map {
            Reason(label: $0.reason.label, count: $0.count, bar: FunnelChart.bar($0.count, widest: widest))
        }
        let currencies = Set(metrics.days.flatMap { $0.revenue.keys }).sorted()
        charts =
            [Chart(title: "Active subscriptions (violet) and trials (green)", svg: MetricsCharts.active(metrics))]
            + currencies.map { Chart(title: "Revenue per day, \($0)", svg: MetricsCharts.revenue(metrics, currency: $0)) }
        from = MetricsCharts.day(metrics.from)
        to = MetricsCharts.day(metrics.to.addingTimeInterval(-86_400))
    }
}

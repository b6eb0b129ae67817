import ArgumentParser
import Foundation
import RedeemCore
import RedeemServer

/// `redeem metrics`: an app's subscription metrics (the console overview's tiles), locally or with `--server`.
struct Metrics: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract:
            "Show an app's subscription metrics: active subscriptions and trials, MRR, conversions, churn, refunds, revenue, why subscribers cancel.",
        discussion: "Production unless --sandbox; the window is the --days days ending today (UTC). --json prints the admin API's answer.")
    @OptionGroup var app: AppOption
    @Option(help: "The window in days, ending today (1–365).")
    var days: Int = 30
    @Flag(help: "Count sandbox purchases instead of production ones.")
    var sandbox = false
    @Flag var json = false
    @OptionGroup var target: AdminTarget

    func validate() throws {
        guard SubscriptionMetrics.dayRange.contains(days) else { throw ValidationError("--days must be between 1 and 365.") }
    }

    func run() async throws {
        let appID = try app.id
        let environment: MetricsEnvironment = sandbox ? .sandbox : .production
        let report: MetricsReport
        if let remote = try target.remote {
            let query = Operations.GetSubscriptionMetrics.Input.Query(environment: sandbox ? .sandbox : .production, days: days)
            report = try await remote.call { try await $0.getSubscriptionMetrics(path: .init(appId: appID), query: query) }.ok.body.json
        } else {
            report = try await target.database.withStore {
                _ = try await $0.app(id: appID)
                return try await SubscriptionMetricsService(store: $0).report(appID: appID, environment: environment, days: days)
            }
        }
        if json { return try Output.json(report) }
        let money = { (amounts: [MetricsReport.Money]) in
            amounts.isEmpty ? "–" : amounts.map { "\($0.amount) \($0.currency)" }.joined(separator: ", ")
        }
        let rows: [(String, String)] = [
            ("Active subscriptions", "\(report.activeSubscriptions)"),
            ("Active trials", "\(report.activeTrials)"),
            ("MRR", money(report.mrr)),
            ("New customers", "\(report.newCustomers)"),
            ("Trials started", "\(report.trialsStarted)"),
            ("Trial conversions", "\(report.trialConversions)"),
            ("Churned", "\(report.churned) of \(report.activeAtStart) active at the start (\(String(format: "%.1f%%", report.churnRate * 100)))"),
            ("Refunds", "\(report.refunds) (\(money(report.refunded)))"),
            ("Revenue", money(report.revenue)),
            (
                "Cancellations",
                report.cancellations.isEmpty
                    ? "0"
                    : "\(report.cancellations.map(\.count).reduce(0, +)): "
                        + report.cancellations.map { "\($0.label) \($0.count)" }.joined(separator: ", ")
            ),
        ]
        print("\(report.environment.rawValue.capitalized), \(report.from) to \(report.to) (UTC):")
        for (name, value) in rows { print("  \(name.padding(toLength: 22, withPad: " ", startingAt: 0)) \(value)") }
    }
}

import ArgumentParser
import Foundation
import RedeemCore
import RedeemServer
import RedeemStore

/// `redeem overview`: the console's funnel, for a terminal.
struct Overview: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Show an app's funnel: checkouts, purchases, links issued, opened and redeemed, over 7, 30 or 90 days.")
    @OptionGroup var app: AppOption
    @Option(help: "7, 30 or 90.")
    var days: Int = 30
    @OptionGroup var database: DatabaseOptions

    func validate() throws {
        guard Funnel.windows.contains(days) else { throw ValidationError("--days must be 7, 30 or 90.") }
    }

    func run() async throws {
        let appID = try app.id
        let started = ContinuousClock.now
        let funnel = try await database.withStore { try await $0.funnel(appID: appID, days: days, now: Date()) }
        let took = ContinuousClock.now - started
        print("The last \(days) days (UTC), read in \(took.formatted(.units(allowed: [.milliseconds], width: .narrow))):")
        for step in funnel.steps {
            let rate = step.rate.map { String(format: "  %.0f%% of %@", $0 * 100, step.of ?? "") } ?? ""
            print("  \(step.name.padding(toLength: 26, withPad: " ", startingAt: 0)) \(step.count)\(rate)")
        }
        print("  purchases recorded elsewhere (server API, CLI), apart from the steps: \(funnel.totals.purchasesElsewhere)")
        print(
            "  offer codes redeemed \(funnel.totals.offerRedemptions); links expired unused \(funnel.expiredUnused); new-link e-mails \(funnel.newLinkEmails)"
        )
        let minutes = { (seconds: TimeInterval?) in seconds.map { String(format: "%.1f min", $0 / 60) } ?? "–" }
        print("  purchase to redemption: median \(minutes(funnel.medianToRedeem)), 90th percentile \(minutes(funnel.p90ToRedeem))")
        for (currency, micros) in funnel.revenue.sorted(by: { $0.key < $1.key }) {
            print("  revenue \(PriceFormat.string(Price(amountMicros: micros, currency: currency)))")
        }
    }
}

import Foundation
import RedeemCore

/// Subscription metrics of an app in one environment over a window of days: the store reads the facts, Core computes.
/// Shared by the console's overview, the admin API, the CLI and the Prometheus gauges.
public struct SubscriptionMetricsService: Sendable {
    let store: any SubscriptionMetricsStore
    let clock: any RedeemClock

    init(store: any SubscriptionMetricsStore, clock: any RedeemClock) {
        self.store = store
        self.clock = clock
    }

    /// `days` outside `SubscriptionMetrics.dayRange` is refused by name.
    public func metrics(appID: String, environment: MetricsEnvironment, days: Int) async throws -> SubscriptionMetrics {
        guard SubscriptionMetrics.dayRange.contains(days) else {
            throw ValidationError(
                field: "days", reason: "must be between \(SubscriptionMetrics.dayRange.lowerBound) and \(SubscriptionMetrics.dayRange.upperBound)")
        }
        let now = clock.now()
        let facts = try await store.subscriptionMetricsFacts(appID: appID, environment: environment, days: days, now: now)
        return SubscriptionMetrics.compute(facts: facts, environment: environment, days: days, now: now)
    }

    public func report(appID: String, environment: MetricsEnvironment, days: Int) async throws -> MetricsReport {
        MetricsReport(appID: appID, days: days, try await metrics(appID: appID, environment: environment, days: days))
    }

    /// Today's headline numbers of every app in both environments, for the gauges.
    func headlines() async throws -> [(appID: String, metrics: SubscriptionMetrics)] {
        var found: [(appID: String, metrics: SubscriptionMetrics)] = []
        for app in try await store.apps() {
            for environment in MetricsEnvironment.allCases {
                found.append((app.id, try await metrics(appID: app.id, environment: environment, days: 1)))
            }
        }
        return found
    }
}

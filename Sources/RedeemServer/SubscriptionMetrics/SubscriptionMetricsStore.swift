import Foundation
import RedeemCore

/// What subscription metrics read: the facts of one app and environment, and the apps (for the Prometheus gauges).
protocol SubscriptionMetricsStore: Sendable {
    func subscriptionMetricsFacts(appID: String, environment: MetricsEnvironment, days: Int, now: Date) async throws -> SubscriptionMetrics.Facts
    func apps() async throws -> [App]
}

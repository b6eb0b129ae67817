import Foundation
import NIOConcurrencyHelpers
import Prometheus
import RedeemCore

/// Active subscriptions, active trials and MRR per currency of every app and environment, as Prometheus gauges on the
/// `/metrics` listener. Refreshed at scrape at most once per `maxAge`, so frequent scrapes cost one computation a minute.
final class SubscriptionGauges: Sendable {
    let registry: PrometheusCollectorRegistry
    let service: SubscriptionMetricsService
    let maxAge: TimeInterval
    private let state = NIOLockedValueBox<(refreshed: Date?, mrrKeys: Set<[String]>)>((nil, []))

    init(registry: PrometheusCollectorRegistry, service: SubscriptionMetricsService, maxAge: TimeInterval = 60) {
        self.registry = registry
        self.service = service
        self.maxAge = maxAge
    }

    func refresh() async throws {
        let now = service.clock.now()
        let due = state.withLockedValue { state in
            guard let last = state.refreshed, now.timeIntervalSince(last) < maxAge else {
                state.refreshed = now
                return true
            }
            return false
        }
        guard due else { return }
        var mrrKeys = Set<[String]>()
        for (appID, metrics) in try await service.headlines() {
            let labels = [("app", appID), ("environment", metrics.environment.rawValue)]
            registry.gauge("redeem_active_subscriptions", labels: labels, help: "Paid subscriptions unexpired now.")
                .set(Double(metrics.activeSubscriptions))
            registry.gauge("redeem_active_trials", labels: labels, help: "Trials unexpired now.").set(Double(metrics.activeTrials))
            for (currency, micros) in metrics.mrr {
                mrrKeys.insert([appID, metrics.environment.rawValue, currency])
                mrrGauge(appID, metrics.environment.rawValue, currency).set(Price(amountMicros: micros, currency: currency).amount)
            }
        }
        // A currency no longer earning anything reads 0, not its last value.
        let gone = state.withLockedValue { state in
            defer { state.mrrKeys = mrrKeys }
            return state.mrrKeys.subtracting(mrrKeys)
        }
        for key in gone { mrrGauge(key[0], key[1], key[2]).set(Double(0)) }
    }

    private func mrrGauge(_ app: String, _ environment: String, _ currency: String) -> Gauge {
        registry.gauge(
            "redeem_mrr", labels: [("app", app), ("environment", environment), ("currency", currency)],
            help: "Monthly recurring revenue of active subscriptions, in the currency's major unit.")
    }
}

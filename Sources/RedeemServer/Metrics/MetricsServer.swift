import Foundation
import Hummingbird
import Logging
import Metrics
import Prometheus
import RedeemStore

/// What the metrics listener reads from the database when scraped.
protocol MetricsStore: Sendable {
    func outboxStats(now: Date) async throws -> OutboxStats
}

/// `GET /metrics` in Prometheus's text format, on its own listener (`--metrics-port`, loopback unless `--metrics-host`
/// says otherwise), so it is never exposed with the public routes. Queue depths and ages are read from the database
/// when scraped.
enum MetricsServer {
    /// Sends every swift-metrics handle made from now on to `registry`. Once per process, before the store opens.
    static func bootstrap() -> PrometheusCollectorRegistry {
        let registry = PrometheusCollectorRegistry()
        var factory = PrometheusMetricsFactory(registry: registry)
        factory.defaultDurationHistogramBuckets = [
            .milliseconds(1), .milliseconds(2), .milliseconds(5), .milliseconds(10), .milliseconds(25), .milliseconds(50),
            .milliseconds(100), .milliseconds(250), .milliseconds(500), .seconds(1), .seconds(2), .seconds(5), .seconds(10),
        ]
        MetricsSystem.bootstrap(factory)
        return registry
    }

    static func application(
        registry: PrometheusCollectorRegistry, store: any MetricsStore, subscriptions: SubscriptionGauges? = nil, host: String, port: Int,
        logger: Logger
    ) -> some ApplicationProtocol {
        let router = Router()
        let gauges = QueueGauges(registry: registry)
        router.get("/metrics") { _, _ -> Response in
            try await gauges.refresh(from: store)
            try await subscriptions?.refresh()
            return Response(
                status: .ok, headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8", .cacheControl: "no-store"],
                body: .init(byteBuffer: ByteBuffer(string: registry.emitToString())))
        }
        return Application(router: router, configuration: .init(address: .hostname(host, port: port), serverName: "redeem-metrics"), logger: logger)
    }

    /// The outboxes as the database has them now.
    struct QueueGauges: Sendable {
        let emailDepth: Prometheus.Gauge
        let emailOldest: Prometheus.Gauge
        let webhookDepth: Prometheus.Gauge
        let webhookOldest: Prometheus.Gauge

        init(registry: PrometheusCollectorRegistry) {
            emailDepth = registry.gauge("redeem_email_queue_depth", help: "E-mails queued or retrying.")
            emailOldest = registry.gauge("redeem_email_queue_oldest_seconds", help: "Age of the oldest e-mail not yet sent.")
            webhookDepth = registry.gauge("redeem_webhook_queue_depth", help: "Webhook deliveries queued or retrying.")
            webhookOldest = registry.gauge("redeem_webhook_queue_oldest_seconds", help: "Age of the oldest webhook delivery not yet delivered.")
        }

        func refresh(from store: any MetricsStore) async throws {
            let stats = try await store.outboxStats(now: Date())
            emailDepth.set(Double(stats.emails))
            emailOldest.set(stats.oldestEmail ?? 0)
            webhookDepth.set(Double(stats.webhooks))
            webhookOldest.set(stats.oldestWebhook ?? 0)
        }
    }
}

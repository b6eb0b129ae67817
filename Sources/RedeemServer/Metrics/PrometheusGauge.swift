import Prometheus

extension PrometheusCollectorRegistry {
    /// A gauge by its full name (`redeem_…`): swift-prometheus spells names as descriptors now, whose parts joined with
    /// underscores are the name; one part is enough.
    func gauge(_ name: String, labels: [(String, String)] = [], help: String) -> Prometheus.Gauge {
        makeGauge(descriptor: MetricNameDescriptor(metricName: name, unitName: "", helpText: help), labels: labels)
    }
}

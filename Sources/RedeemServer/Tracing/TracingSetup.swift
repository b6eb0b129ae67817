import Logging
import OTel
import ServiceLifecycle

/// Distributed tracing through swift-otel, on only when an OTLP endpoint is configured: then every request is a span
/// (`RequestSpanMiddleware`) exported over OTLP/HTTP. Off, nothing is bootstrapped and no middleware is added.
enum TracingSetup {
    /// Bootstraps the tracer for `endpoint`, the collector's base URL (`http://collector:4318`; spans go to
    /// `/v1/traces` under it). The standard `OTEL_*` variables (sampler, headers, protocol) still apply on top.
    /// Returns the exporter's service, to run with the server.
    static func bootstrap(endpoint: String, logger: Logger) throws -> any Service {
        var configuration = OTel.Configuration.default
        configuration.serviceName = "redeem"
        configuration.logs.enabled = false
        configuration.metrics.enabled = false
        configuration.traces.enabled = true
        let base = endpoint.hasSuffix("/") ? String(endpoint.dropLast()) : endpoint
        configuration.traces.otlpExporter.endpoint = base + "/v1/traces"
        configuration.traces.otlpExporter.timeout = .seconds(3)
        configuration.diagnosticLogger = .custom(logger)
        configuration.diagnosticLogLevel = .warning
        return try OTel.bootstrap(configuration: configuration)
    }
}

import Logging

/// PostgresNIO's background logger without its one false alarm. A connection leased before the runner task has called
/// `PostgresClient.run()` waits for the pool to run like any other, but PostgresNIO logs a warning for it, and every
/// `redeem` command on PostgreSQL leases at once: each printed one at start. Holding calls until the runner was about
/// to call `run()` left a race (a resumed call could beat `run()`'s first step when the runner's thread was
/// preempted), and nothing says when `run()` has begun, so that one message is dropped here; every other passes.
struct EarlyLeaseFilter: LogHandler {
    static let message = "`PostgresClient.run()` hasn't been called yet"

    var wrapped: any LogHandler

    /// `logger` with the early-lease warning dropped; its label, metadata and metadata provider (trace IDs) kept.
    static func logger(_ logger: Logger) -> Logger {
        var filtered = logger
        filtered.handler = EarlyLeaseFilter(wrapped: logger.handler)
        return filtered
    }

    func log(event: LogEvent) {
        if event.level == .warning, event.message.description.contains(Self.message) { return }
        wrapped.log(event: event)
    }

    var metadata: Logger.Metadata {
        get { wrapped.metadata }
        set { wrapped.metadata = newValue }
    }

    var logLevel: Logger.Level {
        get { wrapped.logLevel }
        set { wrapped.logLevel = newValue }
    }

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { wrapped[metadataKey: key] }
        set { wrapped[metadataKey: key] = newValue }
    }
}

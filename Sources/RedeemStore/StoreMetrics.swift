import Metrics

/// Database timings, through swift-metrics (recorded only when the server bootstrapped a backend): how long a call
/// waited for its connection (the SQLite writer, or a pooled connection), and how long it took in all.
struct StoreMetrics: Sendable {
    let waited: Timer
    let total: Timer

    init(kind: String) {
        waited = Timer(label: "redeem_db_wait_seconds", dimensions: [("kind", kind)])
        total = Timer(label: "redeem_db_call_seconds", dimensions: [("kind", kind)])
    }

    func started(since start: ContinuousClock.Instant) { waited.recordNanoseconds((ContinuousClock.now - start).nanoseconds) }
    func finished(since start: ContinuousClock.Instant) { total.recordNanoseconds((ContinuousClock.now - start).nanoseconds) }

    // Made on first use, which the server makes after bootstrapping the metrics backend.
    static let read = StoreMetrics(kind: "read")
    static let write = StoreMetrics(kind: "write")
}

extension Duration {
    /// For swift-metrics' timers, which take whole nanoseconds.
    package var nanoseconds: Int64 { components.seconds * 1_000_000_000 + components.attoseconds / 1_000_000_000 }
}

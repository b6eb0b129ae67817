import Synchronization

/// Opens when the backend's runner calls `PostgresClient.run()`. A connection leased before that still waits for the
/// pool to run, but PostgresNIO logs a warning for it, and every `redeem` command on PostgreSQL leased first: each
/// printed one at start. Waiting here costs one check once open.
final class PostgresRunGate: Sendable {
    private struct State {
        var open = false
        var waiters: [CheckedContinuation<Void, Never>] = []
    }

    private let state = Mutex(State())

    /// Called right before `run()`, on the runner's task: the waiters it resumes are scheduled on other threads, by
    /// which time `run()` has marked the client running (its first, synchronous step).
    func open() {
        let waiters = state.withLock { state in
            state.open = true
            defer { state.waiters = [] }
            return state.waiters
        }
        for waiter in waiters { waiter.resume() }
    }

    func wait() async {
        if state.withLock({ $0.open }) { return }
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let open = state.withLock { state in
                if !state.open { state.waiters.append(continuation) }
                return state.open
            }
            if open { continuation.resume() }
        }
    }
}

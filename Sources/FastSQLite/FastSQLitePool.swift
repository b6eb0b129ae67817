import SQLKernel
import Synchronization

/// The reader workers, lent one task at a time: idle ones last-in first-out, waiters first-in first-out.
@available(macOS 15.0, iOS 18.0, *)
final class FastSQLitePool: Sendable {
    private struct State {
        var idle: [FastSQLiteWorker]
        var waiters: [CheckedContinuation<FastSQLiteWorker, any Error>] = []
        var closed = false
        var drained: CheckedContinuation<Void, Never>?
    }

    let all: [FastSQLiteWorker]
    private let state: Mutex<State>

    init(_ workers: [FastSQLiteWorker]) {
        all = workers
        state = Mutex(State(idle: workers))
    }

    func checkout() async throws -> FastSQLiteWorker {
        let ready = try state.withLock { state -> FastSQLiteWorker? in
            if state.closed { throw SQLiteEngineError.closed() }
            return state.idle.popLast()
        }
        if let ready { return ready }
        return try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<FastSQLiteWorker, any Error>) in
            let outcome: Result<FastSQLiteWorker, any Error>? = state.withLock { state in
                if state.closed { return .failure(SQLiteEngineError.closed()) }
                if let worker = state.idle.popLast() { return .success(worker) }
                state.waiters.append(continuation)
                return nil
            }
            if let outcome { continuation.resume(with: outcome) }
        }
    }

    func checkin(_ worker: FastSQLiteWorker) {
        let (waiter, drained) = state.withLock { state -> (CheckedContinuation<FastSQLiteWorker, any Error>?, CheckedContinuation<Void, Never>?) in
            if !state.waiters.isEmpty { return (state.waiters.removeFirst(), nil) }
            state.idle.append(worker)
            guard state.closed, state.idle.count == all.count else { return (nil, nil) }
            defer { state.drained = nil }
            return (nil, state.drained)
        }
        waiter?.resume(returning: worker)
        drained?.resume()
    }

    /// Refuses new checkouts, fails waiting ones, and returns once every worker is back.
    func close() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let (waiters, done) = state.withLock { state in
                state.closed = true
                defer { state.waiters = [] }
                if state.idle.count == all.count { return (state.waiters, true) }
                state.drained = continuation
                return (state.waiters, false)
            }
            for waiter in waiters { waiter.resume(throwing: SQLiteEngineError.closed()) }
            if done { continuation.resume() }
        }
    }
}

import NIOConcurrencyHelpers
import PostgresNIO

/// Calls to PostgreSQL in flight, and the connection each one leased.
///
/// PostgresNIO 1.33 writes a query to its channel without a write promise, so a query (or the COMMIT or ROLLBACK of a
/// transaction) sent just as the server closes the connection is never answered and never fails: during a restart,
/// some requests waited forever and held up shutdown. A sweep every second finds calls whose connection has been
/// closed for a whole second and fails them as unavailable; the stuck work is abandoned, not awaited.
final class PostgresCallWatch: Sendable {
    private struct Call {
        var connection: PostgresConnection?
        var closedAtLastSweep = false
        let fail: @Sendable () -> Void
    }

    private struct State {
        var nextID: UInt64 = 0
        var calls: [UInt64: Call] = [:]
    }

    private let state = NIOLockedValueBox(State())

    /// Runs `work` so that it ends, with `StoreError.unavailable`, once the connection it leased has closed under it.
    func run<T: Sendable>(
        _ work: @escaping @Sendable (_ leased: @escaping @Sendable (PostgresConnection) -> Void) async throws -> T
    )
        async throws -> T
    {
        let resumed = NIOLockedValueBox<CheckedContinuation<T, any Error>?>(nil)
        let id = state.withLockedValue { state in
            state.nextID += 1
            return state.nextID
        }
        @Sendable func finish(_ result: Result<T, any Error>) {
            state.withLockedValue { _ = $0.calls.removeValue(forKey: id) }
            resumed.withLockedValue { continuation in
                continuation?.resume(with: result)
                continuation = nil
            }
        }
        return try await withCheckedThrowingContinuation { continuation in
            resumed.withLockedValue { $0 = continuation }
            state.withLockedValue { $0.calls[id] = Call(fail: { finish(.failure(StoreError.unavailable("connection closed mid-query"))) }) }
            // Unstructured, so a stuck call can be left behind; it inherits the caller's task-locals.
            Task {
                do {
                    finish(.success(try await work { connection in self.state.withLockedValue { $0.calls[id]?.connection = connection } }))
                } catch {
                    finish(.failure(error))
                }
            }
        }
    }

    /// Fails the calls whose connection was already closed at the previous sweep (the grace lets a normal error win).
    func sweep() {
        let stuck: [@Sendable () -> Void] = state.withLockedValue { state in
            var stuck: [@Sendable () -> Void] = []
            for (id, call) in state.calls {
                guard let connection = call.connection, connection.isClosed else { continue }
                if call.closedAtLastSweep {
                    stuck.append(call.fail)
                } else {
                    state.calls[id]?.closedAtLastSweep = true
                }
            }
            return stuck
        }
        for fail in stuck { fail() }
    }

    /// Sweeps every second until cancelled.
    func runSweeps() async {
        while !Task.isCancelled {
            try? await Task.sleep(for: .seconds(1))
            sweep()
        }
    }
}

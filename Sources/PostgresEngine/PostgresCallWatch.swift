import Logging
import NIOConcurrencyHelpers
import PostgresNIO
import SQLKernel

/// Calls to PostgreSQL in flight, and the connection each one leased.
///
/// PostgresNIO 1.33 writes a query to its channel without a write promise, so a query (or the COMMIT or ROLLBACK of a
/// transaction) sent just as the server closes the connection is never answered and never fails: during a restart,
/// some requests waited forever and held up shutdown. A sweep every second finds calls whose connection has been
/// closed for a whole second and fails them as unavailable; the stuck work is abandoned, not awaited.
///
/// The same sweep bounds the wait for a connection: after `stall` with no call of this process getting one (PostgreSQL
/// unreachable, or the pool backing off), or after `leaseWait` in any case. The pool has been seen to lose a lease
/// request after a restart (the call waited forever while others were served), and cancelling a waiting lease can
/// leave it hanging, so the call is given up instead: its request stays queued, and when it is granted the abandoned
/// work refuses to start.
final class PostgresCallWatch: Sendable {
    private struct Call {
        let started = ContinuousClock.now
        var connection: PostgresConnection?
        var closedAtLastSweep = false
        let fail: @Sendable (String) -> Void
    }
    let stall: Duration
    let leaseWait: Duration
    let logger: Logger

    init(stall: Duration = .seconds(5), leaseWait: Duration = .seconds(10), logger: Logger = Logger(label: "redeem.postgres")) {
        self.stall = stall
        self.leaseWait = leaseWait
        self.logger = logger
    }

    private struct State {
        var nextID: UInt64 = 0
        var calls: [UInt64: Call] = [:]
        var lastLease = ContinuousClock.now
    }

    private let state = NIOLockedValueBox(State())

    /// Runs `work` so that it ends, with `StoreError.unavailable`, once the connection it leased has closed under it or
    /// when it waited too long for one. `work` calls `leased` with its connection before it touches it; that throws
    /// when the call was already given up.
    func run<T: Sendable>(
        _ work: @escaping @Sendable (_ leased: @escaping @Sendable (PostgresConnection) throws -> Void) async throws -> T
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
            state.withLockedValue {
                $0.calls[id] = Call(fail: { reason in finish(.failure(StoreError.unavailable("PostgreSQL call given up: \(reason)"))) })
            }
            // Unstructured, so a stuck call can be left behind; it inherits the caller's task-locals.
            Task {
                do {
                    finish(.success(try await work { connection in try self.lease(id, connection) }))
                } catch {
                    finish(.failure(error))
                }
            }
        }
    }

    private func lease(_ id: UInt64, _ connection: PostgresConnection) throws {
        let live = state.withLockedValue { state in
            state.lastLease = .now
            state.calls[id]?.connection = connection
            return state.calls[id] != nil
        }
        if !live { throw StoreError.unavailable("gave up waiting for a connection") }
    }

    /// Fails the calls whose connection was already closed at the previous sweep (the grace lets a normal error win),
    /// and those that waited too long for a connection.
    func sweep() {
        let now = ContinuousClock.now
        let stuck: [(fail: @Sendable (String) -> Void, reason: String)] = state.withLockedValue { state in
            var stuck: [(fail: @Sendable (String) -> Void, reason: String)] = []
            let stalled = now - state.lastLease >= stall
            for (id, call) in state.calls {
                guard let connection = call.connection else {
                    let waited = now - call.started
                    if waited >= leaseWait || (stalled && waited >= stall) { stuck.append((call.fail, "no connection after \(waited)")) }
                    continue
                }
                guard connection.isClosed else { continue }
                if call.closedAtLastSweep {
                    stuck.append((call.fail, "its connection closed mid-query"))
                } else {
                    state.calls[id]?.closedAtLastSweep = true
                }
            }
            return stuck
        }
        for call in stuck {
            logger.notice("PostgreSQL call given up", metadata: ["reason": "\(call.reason)"])
            call.fail(call.reason)
        }
    }

    /// Sweeps every second (or `interval`) until cancelled.
    func runSweeps(every interval: Duration = .seconds(1)) async {
        while !Task.isCancelled {
            try? await Task.sleep(for: interval)
            sweep()
        }
    }
}

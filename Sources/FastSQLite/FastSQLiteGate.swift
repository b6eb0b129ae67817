import SQLKernel
import Synchronization

/// A fair async mutex: no suspension when free; otherwise waiters are handed the gate in arrival order.
@available(macOS 15.0, iOS 18.0, *)
final class FastSQLiteGate: Sendable {
    private struct State {
        var busy = false
        var waiters: [CheckedContinuation<Void, Never>] = []
    }

    private let state = Mutex(State())

    func acquire() async {
        let free = state.withLock { state in
            if state.busy { return false }
            state.busy = true
            return true
        }
        if free { return }
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let free = state.withLock { state in
                if !state.busy {
                    state.busy = true
                    return true
                }
                state.waiters.append(continuation)
                return false
            }
            if free { continuation.resume() }
        }
    }

    /// Tasks waiting to acquire.
    var waiterCount: Int { state.withLock { $0.waiters.count } }

    func tryAcquire() -> Bool {
        state.withLock { state in
            if state.busy { return false }
            state.busy = true
            return true
        }
    }

    func release() {
        let next = state.withLock { state -> CheckedContinuation<Void, Never>? in
            if state.waiters.isEmpty {
                state.busy = false
                return nil
            }
            return state.waiters.removeFirst()
        }
        next?.resume()
    }
}

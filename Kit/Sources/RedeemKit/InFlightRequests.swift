/// Runs at most one operation per key at a time; callers with the same key share its result.
///
/// The shared task is cancelled only when every caller waiting on it has been cancelled.
final class InFlightRequests<Value: Sendable>: Sendable {
    private struct Entry {
        let id: Int
        let task: Task<Value, Never>
        var waiters: Int
    }

    private struct State {
        var entries: [String: Entry] = [:]
        var nextID = 0
    }

    private let state = Locked(State())

    func run(key: String, operation: @escaping @Sendable () async -> Value) async -> Value {
        let (id, task) = state.withLock { state -> (Int, Task<Value, Never>) in
            if var entry = state.entries[key] {
                entry.waiters += 1
                state.entries[key] = entry
                return (entry.id, entry.task)
            }
            let id = state.nextID
            state.nextID += 1
            let task = Task {
                let value = await operation()
                self.finish(key: key, id: id)
                return value
            }
            state.entries[key] = Entry(id: id, task: task, waiters: 1)
            return (id, task)
        }
        return await withTaskCancellationHandler {
            await task.value
        } onCancel: {
            self.cancelWaiter(key: key, id: id)
        }
    }

    /// Number of operations currently running, for tests.
    var count: Int { state.withLock { $0.entries.count } }

    /// Callers waiting on the operation for `key`, for tests.
    func waiters(for key: String) -> Int {
        state.withLock { $0.entries[key]?.waiters ?? 0 }
    }

    private func finish(key: String, id: Int) {
        state.withLock { state in
            if state.entries[key]?.id == id { state.entries[key] = nil }
        }
    }

    private func cancelWaiter(key: String, id: Int) {
        state.withLock { state in
            guard var entry = state.entries[key], entry.id == id else { return }
            entry.waiters -= 1
            state.entries[key] = entry
            if entry.waiters == 0 {
                // Nobody wants the result any more: stop it, and let the next caller start afresh.
                entry.task.cancel()
                state.entries[key] = nil
            }
        }
    }
}

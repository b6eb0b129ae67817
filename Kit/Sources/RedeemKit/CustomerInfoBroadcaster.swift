/// Fans customer-info changes out to every `customerInfoStream` subscriber.
final class CustomerInfoBroadcaster: Sendable {
    private struct State {
        var latest: CustomerInfo?
        var continuations: [Int: AsyncStream<CustomerInfo>.Continuation] = [:]
        var nextID = 0
    }

    private let state = Locked(State())

    /// A new stream that starts with the latest value, if any, then every change.
    func stream() -> AsyncStream<CustomerInfo> {
        AsyncStream { continuation in
            let id = state.withLock { state in
                let id = state.nextID
                state.nextID += 1
                state.continuations[id] = continuation
                if let latest = state.latest { continuation.yield(latest) }
                return id
            }
            continuation.onTermination = { [weak self] _ in
                self?.state.withLock { _ = $0.continuations.removeValue(forKey: id) }
            }
        }
    }

    func emit(_ info: CustomerInfo) {
        state.withLock { state in
            state.latest = info
            for continuation in state.continuations.values {
                continuation.yield(info)
            }
        }
    }

    /// Forgets the latest value (after a user switch) without emitting.
    func reset(to info: CustomerInfo?) {
        state.withLock { $0.latest = info }
    }

    var latest: CustomerInfo? { state.withLock { $0.latest } }
}

/// A fair async mutex: one holder at a time, waiters served in arrival order.
actor SerialGate {
    private var busy = false
    private var waiters: [CheckedContinuation<Void, Never>] = []

    func acquire() async {
        guard busy else {
            busy = true
            return
        }
        await withCheckedContinuation { waiters.append($0) }
    }

    func release() {
        if waiters.isEmpty {
            busy = false
        } else {
            waiters.removeFirst().resume()
        }
    }
}

/// A fixed set of resources lent out one task at a time.
actor ResourcePool<Resource: Sendable> {
    private var idle: [Resource]
    private var waiters: [CheckedContinuation<Resource, Never>] = []

    init(_ resources: [Resource]) { self.idle = resources }

    func checkout() async -> Resource {
        if let resource = idle.popLast() { return resource }
        return await withCheckedContinuation { waiters.append($0) }
    }

    func checkin(_ resource: Resource) {
        if waiters.isEmpty {
            idle.append(resource)
        } else {
            waiters.removeFirst().resume(returning: resource)
        }
    }

    func drain() -> [Resource] {
        defer { idle = [] }
        return idle
    }
}

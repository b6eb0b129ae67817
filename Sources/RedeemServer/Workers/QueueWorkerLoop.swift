import ServiceLifecycle

/// The loop of a queue worker: drain when woken, and at least every `interval`, until graceful shutdown.
struct QueueWorkerLoop: Sendable {
    let wakeups: AsyncStream<Void>
    let wakeup: AsyncStream<Void>.Continuation
    let interval: Duration

    init(interval: Duration) {
        (wakeups, wakeup) = AsyncStream.makeStream(bufferingPolicy: .bufferingNewest(1))
        self.interval = interval
    }

    /// Shutdown also cancels a drain in flight, so the process stops at once: an e-mail or delivery it interrupts
    /// keeps its lease in the database and is sent again after the lease runs out, never lost.
    func run(_ drain: @escaping @Sendable () async -> Void) async {
        await cancelWhenGracefulShutdown { [wakeups, wakeup, interval] in
            await withTaskGroup(of: Void.self) { group in
                group.addTask {
                    while !Task.isCancelled {
                        try? await Task.sleep(for: interval)
                        wakeup.yield()
                    }
                }
                for await _ in wakeups {
                    if Task.isCancelled { break }
                    await drain()
                }
                group.cancelAll()
            }
        }
    }
}

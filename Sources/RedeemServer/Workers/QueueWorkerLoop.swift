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

    func run(_ drain: @escaping @Sendable () async -> Void) async {
        await withGracefulShutdownHandler {
            await withTaskGroup(of: Void.self) { group in
                group.addTask { [wakeup, interval] in
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
        } onGracefulShutdown: { [wakeup] in
            wakeup.finish()
        }
    }
}

/// Works through a queue with up to `limit` jobs in flight: claims as many jobs as there are free slots, starts each
/// at once, and claims again whenever one ends, or every `poll` while jobs run, so work queued behind a slow job starts
/// without waiting for it. Ends when nothing is in flight and nothing more can be claimed; returns how many succeeded.
enum ConcurrentDrain {
    private enum Finished: Sendable {
        case job(succeeded: Bool)
        case tick
    }

    /// `claim(n)` leases up to n jobs (empty when nothing is due or the queue is unreachable); `work` runs one.
    static func run<Job: Sendable>(
        limit: Int, poll: Duration = .milliseconds(250), claim: (Int) async -> [Job],
        work: @escaping @Sendable (Job) async -> Bool
    ) async -> Int {
        await withTaskGroup(of: Finished.self) { group in
            var inFlight = 0
            var succeeded = 0
            var ticking = false
            while !Task.isCancelled {
                let claimed = inFlight < limit ? await claim(limit - inFlight) : []
                for job in claimed { group.addTask { .job(succeeded: await work(job)) } }
                inFlight += claimed.count
                if inFlight == 0 { break }
                if !ticking {
                    ticking = true
                    group.addTask {
                        try? await Task.sleep(for: poll)
                        return .tick
                    }
                }
                switch await group.next() {
                case .job(let ok)?:
                    inFlight -= 1
                    if ok { succeeded += 1 }
                case .tick?: ticking = false
                case nil: break
                }
            }
            // A tick may still be sleeping; jobs in flight are left to finish (or to their cancellation).
            group.cancelAll()
            for await finished in group { if case .job(true) = finished { succeeded += 1 } }
            return succeeded
        }
    }
}

import SQLKernel

/// Opt-in group commit: transactions queued behind each other on the writer share one SQLite transaction,
/// each in its own savepoint, and one COMMIT. Each caller still returns only after that COMMIT, one whose body
/// threw too; a body that throws rolls back only its savepoint. If the COMMIT fails, every member of the group
/// gets the error.
///
/// `@unchecked Sendable`: its state is touched only on the writer's thread, by the holder of `gate`.
@available(macOS 15.0, iOS 18.0, *)
final class FastSQLiteGroupCommit: @unchecked Sendable {
    private let writer: FastSQLiteWorker
    private let gate: FastSQLiteGate
    private let limit: Int
    private var open = false
    private var waiting: [CheckedContinuation<Void, any Error>] = []
    private var flushScheduled = false
    /// COMMITs run so far (tests).
    private(set) var commits = 0

    init(writer: FastSQLiteWorker, gate: FastSQLiteGate, limit: Int = 64) {
        self.writer = writer
        self.gate = gate
        self.limit = limit
    }

    /// Runs `body` as one member of the open group. Call on the writer's thread holding `gate`; releases it.
    func run<T: Sendable>(_ body: @Sendable (any SQLConnection) async throws -> T) async throws -> T {
        let result = await member(body)
        let more = open && waiting.count + 1 < limit && (gate.waiterCount > 0 || writer.hasQueuedJobs)
        if more {
            // Transactions are queued behind this one: leave the group open for them, wait for its COMMIT. A member
            // that threw waits too: what it refused may rest on rows earlier members wrote, which no reader sees
            // before the COMMIT (a repeated form submit, refused as "already done", must then find the first's row).
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                waiting.append(continuation)
                scheduleFlush()
                gate.release()
            }
            return try result.get()
        }
        var commitError: (any Error)?
        if open { commitError = commit() }
        gate.release()
        if let commitError { throw commitError }
        return try result.get()
    }

    /// Commits the open group, if any. Call on the writer's thread holding `gate`.
    func commitOpen() {
        if open { _ = commit() }
    }

    private func member<T: Sendable>(_ body: @Sendable (any SQLConnection) async throws -> T) async -> Result<T, any Error> {
        do {
            let session = FastSQLiteSession(worker: writer, lease: try writer.beginLease())
            defer { writer.endLease() }
            if !open {
                try await session.query("BEGIN IMMEDIATE")
                open = true
            }
            try await session.query("SAVEPOINT fastsqlite_member")
            do {
                let value = try await body(session)
                try await session.query("RELEASE fastsqlite_member")
                return .success(value)
            } catch {
                if (try? writer.withConnection(lease: nil, sql: "") { $0.inTransaction }) == true {
                    _ = try? await session.query("ROLLBACK TO fastsqlite_member")
                    _ = try? await session.query("RELEASE fastsqlite_member")
                } else {
                    // SQLite rolled the whole transaction back (an I/O error, ON CONFLICT ROLLBACK…).
                    open = false
                    resumeWaiting(SQLiteEngineError(.groupRolledBack))
                }
                return .failure(error)
            }
        } catch {
            return .failure(error)
        }
    }

    private func commit() -> (any Error)? {
        open = false
        commits += 1
        var failure: (any Error)?
        do {
            _ = try writer.withConnection(lease: nil, sql: "COMMIT") { try $0.execute("COMMIT") }
        } catch {
            _ = try? writer.withConnection(lease: nil, sql: "ROLLBACK") { try $0.execute("ROLLBACK") }
            failure = error
        }
        resumeWaiting(failure)
        return failure
    }

    private func resumeWaiting(_ error: (any Error)?) {
        let members = waiting
        waiting = []
        for member in members {
            if let error { member.resume(throwing: error) } else { member.resume() }
        }
    }

    /// Commits after the jobs queued now have run, unless a transaction then holds the gate (it decides).
    private func scheduleFlush() {
        guard !flushScheduled else { return }
        flushScheduled = true
        Task(executorPreference: writer) { [self] in
            guard writer.isCurrent else { return }  // the writer has stopped
            flushScheduled = false
            guard open, gate.tryAcquire() else { return }
            _ = commit()
            gate.release()
        }
    }
}

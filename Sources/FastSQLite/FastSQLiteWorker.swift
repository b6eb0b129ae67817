import CSQLite3
import Foundation
import SQLKernel
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A dedicated OS thread that owns one SQLite connection and runs Swift jobs as a `TaskExecutor`.
/// A task preferring this executor runs on the thread, so its queries execute there synchronously, with no hop.
///
/// `@unchecked Sendable`: the job queue is guarded by `condition`; `owner` is written once before `init`
/// returns; `connection` and `lease` are touched only on the worker's own thread.
@available(macOS 15.0, iOS 18.0, *)
final class FastSQLiteWorker: TaskExecutor, @unchecked Sendable {
    private let condition = NSCondition()
    private var jobs: [UnownedJob] = []
    private var sleeping = false
    private var stopping = false
    private var stopped = false
    private var owner: pthread_t?
    private var connection: FastSQLiteConnection?
    private var lease: UInt64 = 0
    /// Session queries that were not already on this thread and had to hop (tests).
    let hops = Atomic<Int>(0)

    init(name: String) {
        let thread = Thread { [self] in
            csqlite3_name_thread(String(name.prefix(15)))  // Linux allows 15 bytes
            runLoop()
        }
        thread.start()
        condition.lock()
        while owner == nil { condition.wait() }
        condition.unlock()
    }

    /// True on this worker's thread.
    var isCurrent: Bool {
        guard let owner else { return false }
        return pthread_equal(owner, pthread_self()) != 0
    }

    /// True when jobs wait to run on this thread.
    var hasQueuedJobs: Bool {
        condition.lock()
        defer { condition.unlock() }
        return !jobs.isEmpty
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        condition.lock()
        if stopped {
            // The thread is gone: run elsewhere. The connection is closed, so queries there throw.
            condition.unlock()
            globalConcurrentExecutor.enqueue(ExecutorJob(job))
            return
        }
        jobs.append(job)
        let wake = sleeping
        condition.unlock()
        if wake { condition.signal() }
    }

    private func runLoop() {
        condition.lock()
        owner = pthread_self()
        condition.broadcast()
        condition.unlock()
        let executor = asUnownedTaskExecutor()
        var batch: [UnownedJob] = []
        while true {
            condition.lock()
            while jobs.isEmpty && !stopping {
                sleeping = true
                condition.wait()
            }
            sleeping = false
            if jobs.isEmpty {
                stopped = true
                condition.unlock()
                return
            }
            swap(&batch, &jobs)
            condition.unlock()
            for job in batch { job.runSynchronously(on: executor) }
            batch.removeAll(keepingCapacity: true)
        }
    }

    /// Opens the connection on the worker's thread.
    func open(path: String, isWriter: Bool, cacheSize: Int, leavesWAL: Bool = false) async throws {
        try await withTaskExecutorPreference(self) {
            precondition(isCurrent)
            connection = try FastSQLiteConnection(path: path, isWriter: isWriter, cacheSize: cacheSize, leavesWAL: leavesWAL)
        }
    }

    /// Runs `body` with the connection; only on this thread. A non-nil `lease` must be the current one.
    func withConnection<T>(lease expected: UInt64?, sql: String, _ body: (FastSQLiteConnection) throws -> T) throws -> T {
        precondition(isCurrent, "a FastSQLite connection was used off its thread")
        guard let connection else { throw SQLiteEngineError.closed(sql: sql) }
        if let expected, expected != lease {
            throw SQLiteEngineError(.misuse("a connection was used after its transaction or read ended"), sql: sql)
        }
        return try body(connection)
    }

    /// Runs `body` with the connection on this thread, hopping there unless already on it.
    func perform<T>(lease: UInt64? = nil, sql: String = "", _ body: (FastSQLiteConnection) throws -> T) async throws -> T {
        if isCurrent { return try withConnection(lease: lease, sql: sql, body) }
        return try await withTaskExecutorPreference(self) {
            guard isCurrent else { throw SQLiteEngineError.closed(sql: sql) }  // the thread has stopped
            return try withConnection(lease: lease, sql: sql, body)
        }
    }

    /// Starts a new lease; sessions holding an older one are refused from now on. Only on this thread.
    func beginLease() throws -> UInt64 {
        guard isCurrent, connection != nil else { throw SQLiteEngineError.closed() }
        lease &+= 1
        return lease
    }

    func endLease() {
        if isCurrent { lease &+= 1 }
    }

    /// Closes the connection on the thread, then lets the thread drain its queue and exit.
    func shutdown() async {
        _ = try? await perform { $0.close() }
        stop()
    }

    private func stop() {
        condition.lock()
        stopping = true
        condition.unlock()
        condition.signal()
    }

    /// Statements this connection prepared, and how many it holds now (tests).
    func statementStats() async throws -> (prepared: Int, cached: Int) {
        try await perform { ($0.prepareCount, $0.cachedCount) }
    }
}

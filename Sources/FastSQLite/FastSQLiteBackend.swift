import SQLKernel
import Synchronization

/// SQLite in WAL mode over the system libsqlite3: one writer thread and a pool of reader threads, each
/// owning a connection with a prepared-statement cache. `transaction` and `read` run their body with the
/// connection's thread as task executor, so each `query` runs synchronously there.
/// With `groupCommit`, transactions queued on the writer share COMMITs (see `FastSQLiteGroupCommit`).
/// Checkpoints run on a thread of their own (see `FastSQLiteCheckpointer`).
@available(macOS 15.0, iOS 18.0, *)
public final class FastSQLiteBackend: SQLDatabase {
    public let engine = SQLEngine.sqlite
    let path: String
    let writer: FastSQLiteWorker
    let writeGate = FastSQLiteGate()
    let readers: FastSQLitePool
    private let closed = Atomic(false)
    let group: FastSQLiteGroupCommit?
    let checkpointer: FastSQLiteCheckpointer
    /// Per reader, the last `PRAGMA data_version` seen, and the epoch they feed.
    private let versions = Mutex((seen: [ObjectIdentifier: Int64](), epoch: UInt64(0)))

    /// `leavesWAL`, for a short process that commits much and exits (`redeem codes generate`): each commit syncs the
    /// WAL (`synchronous=FULL`, where a server syncs only at checkpoints), so it is durable when it returns, and neither
    /// the checkpointer nor closing copies the WAL into the database file: the next process to open it does (its
    /// checkpointer at its first commit, or its close).
    public static func open(
        path: String, readerCount: Int = 4, statementCacheSize: Int = 256,
        groupCommit: Bool = false, checkpointFrames: Int32 = 4000, leavesWAL: Bool = false
    ) async throws -> FastSQLiteBackend {
        // The writer opens first: it switches the file to WAL.
        let names = ["sqlite-writer"] + (1...max(1, readerCount)).map { "sqlite-reader-\($0)" }
        var workers: [FastSQLiteWorker] = []
        var checkpointer: FastSQLiteCheckpointer?
        do {
            for name in names {
                let worker = FastSQLiteWorker(name: name)
                workers.append(worker)
                try await worker.open(path: path, isWriter: workers.count == 1, cacheSize: statementCacheSize, leavesWAL: leavesWAL)
            }
            let opened =
                leavesWAL
                ? try FastSQLiteCheckpointer(path: path, threshold: .max, restartLimit: .max)
                : try FastSQLiteCheckpointer(path: path, threshold: checkpointFrames)
            checkpointer = opened
            try await workers[0].perform { $0.reportWAL(to: opened) }
        } catch {
            await checkpointer?.stop()
            for worker in workers.reversed() { await worker.shutdown() }
            throw error
        }
        return FastSQLiteBackend(path: path, workers: workers, checkpointer: checkpointer!, groupCommit: groupCommit)
    }

    private init(path: String, workers: [FastSQLiteWorker], checkpointer: FastSQLiteCheckpointer, groupCommit: Bool) {
        self.path = path
        self.checkpointer = checkpointer
        self.writer = workers[0]
        self.readers = FastSQLitePool(Array(workers.dropFirst()))
        self.group = groupCommit ? FastSQLiteGroupCommit(writer: writer, gate: writeGate) : nil
    }

    @discardableResult
    public func read<T: Sendable>(_ body: @escaping @Sendable (any SQLConnection) async throws -> T) async throws -> T {
        let reader = try await readers.checkout()
        defer { readers.checkin(reader) }
        return try await withTaskExecutorPreference(reader) {
            let lease = try reader.beginLease()
            defer { reader.endLease() }
            return try await body(FastSQLiteSession(worker: reader, lease: lease))
        }
    }

    /// Transactions run one at a time, in arrival order, on the writer's thread.
    @discardableResult
    public func transaction<T: Sendable>(_ body: @escaping @Sendable (any SQLConnection) async throws -> T) async throws -> T {
        try await withTaskExecutorPreference(writer) {
            await writeGate.acquire()
            if closed.load(ordering: .acquiring) {
                writeGate.release()
                throw SQLiteEngineError.closed()
            }
            if let group { return try await group.run(body) }
            defer { writeGate.release() }
            let session = FastSQLiteSession(worker: writer, lease: try writer.beginLease())
            defer { writer.endLease() }
            try await session.query("BEGIN IMMEDIATE")
            do {
                let result = try await body(session)
                try await session.query("COMMIT")
                return result
            } catch {
                _ = try? await session.query("ROLLBACK")
                throw error
            }
        }
    }

    /// SQLite's `data_version` differs between two reads on one connection exactly when another connection
    /// (this process's writer, or another process) committed in between. Each reader reports its changes
    /// into one epoch, so an epoch read after a commit always differs from one read before it.
    public func changeToken() async throws -> UInt64? {
        let reader = try await readers.checkout()
        defer { readers.checkin(reader) }
        let rows = try await reader.perform { try $0.execute("PRAGMA data_version") }
        let version: Int64 = rows.first?.values.first.flatMap { if case .int(let v) = $0 { v } else { nil } } ?? -1
        return versions.withLock { state in
            let id = ObjectIdentifier(reader)
            if state.seen[id] != version {
                state.seen[id] = version
                state.epoch &+= 1
            }
            return state.epoch
        }
    }

    /// Waits for the running transaction and reads, then closes every connection and stops the threads.
    public func close() async {
        let wasClosed = await withTaskExecutorPreference(writer) {
            await writeGate.acquire()
            defer { writeGate.release() }
            if writer.isCurrent { group?.commitOpen() }
            return closed.exchange(true, ordering: .acquiringAndReleasing)
        }
        guard !wasClosed else { return }
        await readers.close()
        for reader in readers.all { await reader.shutdown() }
        await checkpointer.stop()
        await writer.shutdown()  // last: closing it checkpoints and removes the WAL
    }
}

import SQLKernel

/// One FastSQLite connection seen through `SQLConnection`, valid for one transaction or read.
@available(macOS 15.0, iOS 18.0, *)
struct FastSQLiteSession: SQLConnection {
    let worker: FastSQLiteWorker
    let lease: UInt64
    var engine: SQLEngine { .sqlite }

    @discardableResult
    func query(_ sql: SQL) async throws -> [SQLRow] {
        // Inside `transaction`/`read` the task prefers this worker, so this is already its thread.
        if worker.isCurrent {
            return try worker.withConnection(lease: lease, sql: sql.text) { try $0.execute(sql) }
        }
        worker.hops.add(1, ordering: .relaxed)
        return try await worker.perform(lease: lease, sql: sql.text) { try $0.execute(sql) }
    }

    /// True when running on this connection's own thread (tests).
    var isOnConnectionThread: Bool { worker.isCurrent }
}

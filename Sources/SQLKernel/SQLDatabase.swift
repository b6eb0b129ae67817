/// Runs statements on one connection, inside or outside a transaction.
public protocol SQLConnection: Sendable {
    var engine: SQLEngine { get }
    @discardableResult
    func query(_ sql: SQL) async throws -> [SQLRow]
}

/// The engine under the store: SQLite or PostgreSQL.
public protocol SQLDatabase: Sendable {
    var engine: SQLEngine { get }
    /// Runs `body` on a connection, with no transaction.
    @discardableResult
    func read<T: Sendable>(_ body: @escaping @Sendable (any SQLConnection) async throws -> T) async throws -> T
    /// Runs `body` in one write transaction: committed when it returns, rolled back when it throws. Its result may be
    /// left unused: a transaction is often run for its writes alone.
    @discardableResult
    func transaction<T: Sendable>(_ body: @escaping @Sendable (any SQLConnection) async throws -> T) async throws -> T
    func close() async
    /// A number that changes whenever a write committed by any connection or process may have changed data;
    /// nil when the engine cannot tell, so callers must not cache.
    func changeToken() async throws -> UInt64?
}

public enum SQLEngine: String, Sendable {
    case sqlite
    case postgres
}

extension SQLConnection {
    public func first(_ sql: SQL) async throws -> SQLRow? { try await query(sql).first }
}

/// A connection that can append many rows in the engine's bulk format (`COPY … FROM STDIN` on PostgreSQL). Rows are
/// text: fields separated by a tab, each row ending with a newline, with no tab, newline or backslash inside a field. A
/// duplicate key fails the copy (and the transaction) with `StoreError.uniqueViolation`.
public protocol SQLBulkCopying: SQLConnection {
    /// One copy of every chunk of whole rows `next` hands over, until it returns nil; the next chunk is asked for while
    /// the current one is sent. An error `next` throws ends the copy and is rethrown.
    func copy(into table: String, columns: [String], chunks next: @escaping @Sendable () async throws -> [UInt8]?) async throws
}

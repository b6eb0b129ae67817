import Foundation
import RedeemStore
import Synchronization

/// A database that counts what a client pays on PostgreSQL: each statement one round trip, each transaction two more
/// (BEGIN and COMMIT); a connection taken without a transaction costs none. Wrap a store's database in it
/// (`SQLStore(database: RoundTripCounter(store.database))`) and read `count` after the call.
public final class RoundTripCounter: SQLDatabase {
    public let inner: any SQLDatabase
    private let counted = Mutex(0)

    public init(_ inner: any SQLDatabase) { self.inner = inner }

    public var count: Int { counted.withLock { $0 } }
    public func reset() { counted.withLock { $0 = 0 } }

    public var engine: SQLEngine { inner.engine }

    public func read<T: Sendable>(_ body: @escaping @Sendable (any SQLConnection) async throws -> T) async throws -> T {
        try await inner.read { try await body(Counted(inner: $0, counter: self)) }
    }

    public func transaction<T: Sendable>(_ body: @escaping @Sendable (any SQLConnection) async throws -> T) async throws -> T {
        add(2)
        return try await inner.transaction { try await body(Counted(inner: $0, counter: self)) }
    }

    public func close() async { await inner.close() }
    public func changeToken() async throws -> UInt64? { try await inner.changeToken() }

    func add(_ n: Int) { counted.withLock { $0 += n } }

    struct Counted: SQLConnection {
        let inner: any SQLConnection
        let counter: RoundTripCounter
        var engine: SQLEngine { inner.engine }

        @discardableResult
        func query(_ sql: SQL) async throws -> [SQLRow] {
            counter.add(1)
            return try await inner.query(sql)
        }
    }
}

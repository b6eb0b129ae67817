import FastSQLite
import Foundation
import Logging
import PostgresEngine
import RedeemCore
import Synchronization

/// `RedeemStore` in portable SQL, run by either engine.
public final class SQLStore: Sendable {
    public let database: any SQLDatabase
    /// How stale `last_seen` may get before a read refreshes it.
    public static let lastSeenResolution = Customer.lastSeenResolution
    var lastSeenResolution: TimeInterval { Self.lastSeenResolution }
    /// PostgreSQL connections per process unless configured otherwise.
    public static let defaultPostgresPoolSize = PostgresBackend.defaultPoolSize

    private let lastWrite = Mutex<ContinuousClock.Instant?>(nil)
    /// Apps seen without live webhook endpoints, for the one-statement redemption's facts read.
    let endpointsSeen = LiveEndpointsSeen()

    public init(database: any SQLDatabase) {
        self.database = database
    }

    /// When this process's latest write transaction ended (committed or not). Customer Info's version map trusts what it
    /// heard only from a ping sent after it, so an instance reads its own writes at once, not within the window.
    public var lastWriteFinished: ContinuousClock.Instant? { lastWrite.withLock { $0 } }

    /// Opens the database a URL names: `sqlite:///abs/path`, `sqlite://relative/path`, a plain path, or `postgres://…`.
    /// `poolSize` caps PostgreSQL connections per process (SQLite has one writer and its own readers); `connectionWait`
    /// bounds a PostgreSQL call's wait for one. `listenURL` is where PostgreSQL's listener connects (default: `url`),
    /// directly when `url` is a transaction pooler's.
    public static func open(
        url: String, listenURL: String? = nil, poolSize: Int = defaultPostgresPoolSize, connectionWait: Duration = .seconds(10),
        logger: Logger, leavesWAL: Bool = false
    ) async throws -> SQLStore {
        switch try DatabaseLocation(url) {
        case .sqlite(let path):
            // Group commit: transactions queued on the writer share one COMMIT, each in its own savepoint.
            // `leavesWAL`: see `FastSQLiteBackend.open` (`redeem codes generate`).
            return SQLStore(database: try await FastSQLiteBackend.open(path: path, groupCommit: true, leavesWAL: leavesWAL))
        case .postgres(let url):
            var listen: URL?
            if let listenURL {
                guard case .postgres(let direct) = try DatabaseLocation(listenURL) else {
                    throw StoreError.badURL("the listen URL must be postgres://…")
                }
                listen = direct
            }
            return SQLStore(
                database: try PostgresBackend(url: url, listenURL: listen, maxConnections: poolSize, connectionWait: connectionWait, logger: logger))
        }
    }

    public func migrate(logger: Logger) async throws {
        try await MigrationRunner(database: database).apply(logger: logger)
    }

    public func close() async { await database.close() }

    public func changeToken() async throws -> UInt64? { try await database.changeToken() }

    /// A write transaction; with `audit`, the entry naming who made the change is inserted in the same transaction, so
    /// the change and its record commit together or not at all.
    @discardableResult
    func write<T: Sendable>(audit: AuditEntry? = nil, _ body: @escaping @Sendable (any SQLConnection) async throws -> T) async throws -> T {
        let start = ContinuousClock.now
        defer {
            StoreMetrics.write.finished(since: start)
            lastWrite.withLock { $0 = .now }
        }
        return try await database.transaction { connection in
            StoreMetrics.write.started(since: start)
            let result = try await body(connection)
            if let audit { try await Self.insertAudit(audit, on: connection) }
            return result
        }
    }

    /// One statement that writes, as its own transaction: outside any transaction on PostgreSQL (no BEGIN and COMMIT
    /// round trips), on the writer on SQLite. Timed as a write.
    @discardableResult
    func single<T: Sendable>(_ body: @escaping @Sendable (any SQLConnection) async throws -> T) async throws -> T {
        let start = ContinuousClock.now
        defer {
            StoreMetrics.write.finished(since: start)
            lastWrite.withLock { $0 = .now }
        }
        let timed: @Sendable (any SQLConnection) async throws -> T = { connection in
            StoreMetrics.write.started(since: start)
            return try await body(connection)
        }
        return database.engine == .postgres ? try await database.read(timed) : try await database.transaction(timed)
    }

    @discardableResult
    func read<T: Sendable>(_ body: @escaping @Sendable (any SQLConnection) async throws -> T) async throws -> T {
        let start = ContinuousClock.now
        defer { StoreMetrics.read.finished(since: start) }
        return try await database.read { connection in
            StoreMetrics.read.started(since: start)
            return try await body(connection)
        }
    }
}

/// Where the database is, parsed from `--database-url` / `REDEEM_DATABASE_URL`.
public enum DatabaseLocation: Equatable, Sendable {
    case sqlite(path: String)
    case postgres(URL)

    public init(_ string: String) throws(StoreError) {
        if string.hasPrefix("postgres://") || string.hasPrefix("postgresql://") {
            guard let url = URL(string: string), url.host != nil else {
                // Not echoed: the URL may hold a password, and this message reaches the log.
                throw .badURL("is not a valid postgres:// URL (postgres://user:password@host:5432/database)")
            }
            self = .postgres(url)
        } else if string.hasPrefix("sqlite://") {
            // sqlite:///abs/path keeps its leading slash; sqlite://rel/path is relative.
            let path = String(string.dropFirst("sqlite://".count))
            guard !path.isEmpty, path != "/" else { throw .badURL("sqlite:// URL names no file") }
            self = .sqlite(path: path)
        } else if string.contains("://") {
            let scheme = string.prefix { $0 != ":" }.prefix(20)
            throw .badURL("has the unsupported scheme '\(scheme)'; use sqlite:// or postgres://")
        } else {
            guard !string.isEmpty else { throw .badURL("empty database URL") }
            self = .sqlite(path: string)
        }
    }
}

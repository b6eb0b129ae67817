import Foundation
import Logging
import NIOCore
import PostgresNIO
import SQLKernel

/// PostgreSQL through PostgresNIO's pooled client, for several server instances sharing one database.
public final class PostgresBackend: SQLDatabase {
    public let engine = SQLEngine.postgres
    let client: PostgresClient
    private let statements: PostgresStatements
    private let watch: PostgresCallWatch
    private let runner: Task<Void, Never>
    private let logger: Logger
    private let listener: PostgresListener

    /// Connections per process unless `--database-pool-size` says otherwise. A request holds one only for its round
    /// trips, so a few keep an instance busy; more only add backends competing for the database's cores. Measured on 2
    /// cores shared with PostgreSQL: 8 instead of 20 halved p99 and raised throughput (docs/benchmarks.md).
    public static let defaultPoolSize = 8

    /// `connectionWait` bounds how long a call waits for a connection before it answers unavailable (a 503). The URL's
    /// `prepared_statements=off` sends every statement unnamed, for a pooler that cannot keep prepared statements (a
    /// PgBouncer older than 1.21, or one without `max_prepared_statements`). `listenURL` (default: `url`) is where
    /// `listen(channel:sink:)` connects: a direct connection, since a transaction pooler cannot carry `LISTEN`.
    public init(
        url: URL, listenURL: URL? = nil, maxConnections: Int = defaultPoolSize, connectionWait: Duration = .seconds(10), logger: Logger
    ) throws {
        listener = try PostgresListener(url: listenURL ?? url, logger: logger)
        let address = try PostgresAddress(url)
        let options = URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems ?? []
        switch options.last(where: { $0.name == "prepared_statements" })?.value {
        case nil, "on": statements = PostgresStatements()
        case "off": statements = PostgresStatements(limit: 0)
        case let other?: throw StoreError.badURL("prepared_statements must be on or off, not '\(other)'")
        }
        var configuration = PostgresClient.Configuration(
            host: address.host, port: address.port, username: address.username, password: address.password, database: address.database,
            tls: .disable)
        configuration.options.maximumConnections = maxConnections
        configuration.options.minimumConnections = 0
        let client = PostgresClient(configuration: configuration, backgroundLogger: EarlyLeaseFilter.logger(logger))
        self.client = client
        self.logger = logger
        let watch = PostgresCallWatch(stall: connectionWait / 2, leaseWait: connectionWait, logger: logger)
        self.watch = watch
        self.runner = Task {
            await withDiscardingTaskGroup { group in
                group.addTask { await client.run() }
                group.addTask { await watch.runSweeps() }
            }
        }
    }

    @discardableResult
    public func read<T: Sendable>(_ body: @escaping @Sendable (any SQLConnection) async throws -> T) async throws -> T {
        let (logger, client, statements) = (self.logger, self.client, self.statements)
        do {
            return try await watch.run { leased in
                try await client.withConnection { connection in
                    try leased(connection)
                    return try await body(PostgresSession(connection: connection, statements: statements, logger: logger))
                }
            }
        } catch {
            throw PostgresErrors.neutral(error)
        }
    }

    /// A transaction; one that PostgreSQL aborted as a deadlock victim or a serialization failure is run again (up to
    /// three times): nothing of it was committed, and two redemptions crossing each other's customers, whose version
    /// triggers lock both rows, can deadlock.
    @discardableResult
    public func transaction<T: Sendable>(_ body: @escaping @Sendable (any SQLConnection) async throws -> T) async throws -> T {
        var attempt = 1
        while true {
            do {
                return try await transactionOnce(body)
            } catch let error as StoreError where attempt < 3 && error.isRetryableRace {
                attempt += 1
                try await Task.sleep(for: .milliseconds(Int.random(in: 1...20)))
            }
        }
    }

    private func transactionOnce<T: Sendable>(_ body: @escaping @Sendable (any SQLConnection) async throws -> T) async throws -> T {
        let (logger, client, statements) = (self.logger, self.client, self.statements)
        do {
            return try await watch.run { leased in
                try await client.withTransaction(logger: logger) { connection in
                    try leased(connection)
                    return try await body(PostgresSession(connection: connection, statements: statements, logger: logger))
                }
            }
        } catch let error as PostgresTransactionError {
            // Callers act on what the body threw, not on the wrapper.
            throw PostgresErrors.neutral(error.closureError ?? error.commitError ?? error.beginError ?? error)
        } catch {
            throw PostgresErrors.neutral(error)
        }
    }

    /// Other instances write to the same database unseen, so nothing read here may be cached.
    public func changeToken() async throws -> UInt64? { nil }

    public func close() async {
        runner.cancel()
        _ = await runner.value
    }
}

extension PostgresBackend: SQLNotificationSource {
    public func listen(channel: String, sink: @escaping @Sendable (SQLNotificationEvent) -> Void) async {
        await listener.listen(channel: channel, sink: sink)
    }
}

/// One leased PostgreSQL connection seen through `SQLConnection`.
struct PostgresSession: SQLConnection, SQLBulkCopying {
    let connection: PostgresConnection
    let statements: PostgresStatements
    let logger: Logger
    var engine: SQLEngine { .postgres }

    @discardableResult
    func query(_ sql: SQL) async throws -> [SQLRow] {
        var bindings = PostgresBindings(capacity: sql.binds.count)
        var types: [PostgresDataType] = []
        types.reserveCapacity(sql.binds.count)
        for value in sql.binds {
            switch value {
            case .int(let i):
                bindings.append(i)
                types.append(.int8)
            case .double(let d):
                bindings.append(d)
                types.append(.float8)
            case .text(let s):
                bindings.append(s)
                types.append(.text)
            case .null:
                bindings.appendNull()
                types.append(.null)
            }
        }
        var result: [SQLRow] = []
        do {
            if !sql.runsOnce, let name = statements.name(for: sql.text, types: types) {
                let current = CurrentStatement.Value(name: name, sql: sql.text, types: types)
                try await CurrentStatement.$value.withValue(current) {
                    try await collect(connection.execute(NamedStatement(bindings: bindings), logger: logger), into: &result)
                }
            } else {
                try await collect(connection.query(PostgresQuery(unsafeSQL: sql.text, binds: bindings), logger: logger), into: &result)
            }
        } catch {
            throw PostgresErrors.neutral(error)
        }
        return result
    }

    private func collect(_ rows: some AsyncSequence<PostgresRow, any Error>, into result: inout [SQLRow]) async throws {
        var columns: SQLColumns?
        for try await row in rows {
            var values: [SQLValue] = []
            for cell in row { values.append(try Self.value(cell)) }
            let shared = columns ?? SQLColumns(row.map(\.columnName))
            columns = shared
            result.append(SQLRow(columns: shared, values: values))
        }
    }

    static func value(_ cell: PostgresCell) throws -> SQLValue {
        guard cell.bytes != nil else { return .null }
        switch cell.dataType {
        case .int8: return .int(try cell.decode(Int64.self))
        case .int4: return .int(Int64(try cell.decode(Int32.self)))
        case .int2: return .int(Int64(try cell.decode(Int16.self)))
        case .bool: return .int(try cell.decode(Bool.self) ? 1 : 0)
        case .float8, .float4, .numeric: return .double(try cell.decode(Double.self))
        default: return .text(try cell.decode(String.self))
        }
    }
}

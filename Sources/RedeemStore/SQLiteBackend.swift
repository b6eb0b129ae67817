import Foundation
import Logging
import NIOConcurrencyHelpers
import NIOCore
import SQLiteNIO

/// SQLite in WAL mode: one writer connection behind a gate, and a pool of readers.
public final class SQLiteBackend: SQLDatabase {
    public let engine = SQLEngine.sqlite
    let path: String
    private let writer: SQLiteConnection
    private let writeGate = SerialGate()
    private let readers: ResourcePool<SQLiteConnection>
    /// Per reader, the last `PRAGMA data_version` seen, and the epoch they feed.
    private let versions = NIOLockedValueBox((seen: [ObjectIdentifier: Int64](), epoch: UInt64(0)))

    public static func open(path: String, readerCount: Int = 4, logger: Logger) async throws -> SQLiteBackend {
        let writer = try await openConnection(path: path, logger: logger)
        _ = try await writer.query("PRAGMA journal_mode=WAL", [])
        var readers: [SQLiteConnection] = []
        for _ in 0..<max(1, readerCount) {
            readers.append(try await openConnection(path: path, logger: logger))
        }
        return SQLiteBackend(path: path, writer: writer, readers: readers)
    }

    private init(path: String, writer: SQLiteConnection, readers: [SQLiteConnection]) {
        self.path = path
        self.writer = writer
        self.readers = ResourcePool(readers)
    }

    private static func openConnection(path: String, logger: Logger) async throws -> SQLiteConnection {
        let connection = try await SQLiteConnection.open(storage: .file(path: path), logger: logger)
        for pragma in ["PRAGMA busy_timeout=10000", "PRAGMA synchronous=NORMAL", "PRAGMA foreign_keys=ON"] {
            _ = try await connection.query(pragma, [])
        }
        return connection
    }

    public func read<T: Sendable>(_ body: @Sendable (any SQLConnection) async throws -> T) async throws -> T {
        let connection = await readers.checkout()
        do {
            let result = try await body(SQLiteSession(connection: connection))
            await readers.checkin(connection)
            return result
        } catch {
            await readers.checkin(connection)
            throw error
        }
    }

    public func transaction<T: Sendable>(_ body: @Sendable (any SQLConnection) async throws -> T) async throws -> T {
        await writeGate.acquire()
        let session = SQLiteSession(connection: writer)
        do {
            try await session.query("BEGIN IMMEDIATE")
            let result = try await body(session)
            try await session.query("COMMIT")
            await writeGate.release()
            return result
        } catch {
            _ = try? await session.query("ROLLBACK")
            await writeGate.release()
            throw error
        }
    }

    /// SQLite's `data_version` differs between two reads on one connection exactly when another connection
    /// (this process's writer, or another process) committed in between. Each reader reports its changes
    /// into one epoch, so an epoch read after a commit always differs from one read before it.
    public func changeToken() async throws -> UInt64? {
        let connection = await readers.checkout()
        let rows: [SQLiteRow]
        do {
            rows = try await connection.query("PRAGMA data_version", [])
        } catch {
            await readers.checkin(connection)
            throw error
        }
        await readers.checkin(connection)
        let version = Int64(rows.first?.columns.first?.data.integer ?? -1)
        return versions.withLockedValue { state in
            let id = ObjectIdentifier(connection)
            if state.seen[id] != version {
                state.seen[id] = version
                state.epoch &+= 1
            }
            return state.epoch
        }
    }

    public func close() async {
        await writeGate.acquire()
        for reader in await readers.drain() { try? await reader.close() }
        try? await writer.close()
    }
}

/// One SQLite connection seen through `SQLConnection`.
struct SQLiteSession: SQLConnection {
    let connection: SQLiteConnection

    @discardableResult
    func query(_ sql: SQL) async throws -> [SQLRow] {
        let rows: [SQLiteRow]
        do {
            rows = try await connection.query(Self.sqliteText(sql.text), sql.binds.map(Self.data))
        } catch let error as SQLiteError where error.message.contains("UNIQUE constraint failed") {
            throw StoreError.uniqueViolation(error.message)
        }
        guard let first = rows.first else { return [] }
        let columns = SQLColumns(first.columns.map(\.name))
        return rows.map { row in SQLRow(columns: columns, values: row.columns.map { Self.value($0.data) }) }
    }

    /// `$n` placeholders become SQLite's numbered `?n` (statements never hold a literal `$`).
    static func sqliteText(_ text: String) -> String {
        var bytes = Array(text.utf8)
        guard let first = bytes.firstIndex(of: UInt8(ascii: "$")) else { return text }
        for i in first..<bytes.count where bytes[i] == UInt8(ascii: "$") { bytes[i] = UInt8(ascii: "?") }
        return String(decoding: bytes, as: UTF8.self)
    }

    static func data(_ value: SQLValue) -> SQLiteData {
        switch value {
        case .int(let i): .integer(SQLiteInt64(i))
        case .double(let d): .float(d)
        case .text(let s): .text(s)
        case .null: .null
        }
    }

    static func value(_ data: SQLiteData) -> SQLValue {
        switch data {
        case .integer(let i): .int(Int64(i))
        case .float(let d): .double(d)
        case .text(let s): .text(s)
        case .blob(let buffer): .text(String(buffer: buffer))
        case .null: .null
        }
    }
}

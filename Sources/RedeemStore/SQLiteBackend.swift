import Foundation
import Logging
import NIOCore
import SQLiteNIO

/// SQLite in WAL mode: one writer connection behind a gate, and a pool of readers.
public final class SQLiteBackend: SQLDatabase {
    public let engine = SQLEngine.sqlite
    let path: String
    private let writer: SQLiteConnection
    private let writeGate = SerialGate()
    private let readers: ResourcePool<SQLiteConnection>

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
        return rows.map { row in
            let columns = row.columns
            return SQLRow(names: columns.map(\.name), values: columns.map { Self.value($0.data) })
        }
    }

    /// `$n` placeholders become SQLite's numbered `?n`.
    static func sqliteText(_ text: String) -> String {
        guard text.contains("$") else { return text }
        var out = ""
        out.reserveCapacity(text.utf8.count)
        var previous: Character = " "
        for ch in text {
            out.append(ch == "$" && previous != "'" ? "?" : ch)
            previous = ch
        }
        return out
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

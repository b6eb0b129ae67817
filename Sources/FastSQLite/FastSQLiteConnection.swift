import CSQLite3
import SQLKernel

/// One `sqlite3` handle and its prepared-statement cache. Not thread-safe: only its worker's thread touches it.
final class FastSQLiteConnection {
    private final class Statement {
        let handle: OpaquePointer
        var lastUse: UInt64 = 0
        /// Column names, valid while SQLite has not re-prepared the statement.
        var columns: SQLColumns?
        var columnsEpoch: Int32 = -1

        init(_ handle: OpaquePointer) { self.handle = handle }
    }

    private var db: OpaquePointer?
    private var cache: [String: Statement] = [:]
    private let capacity: Int
    private var clock: UInt64 = 0
    /// Statements prepared so far (tests).
    private(set) var prepareCount = 0
    var cachedCount: Int { cache.count }

    /// `leavesWAL`: see `FastSQLiteBackend.open`.
    init(path: String, isWriter: Bool, cacheSize: Int, leavesWAL: Bool = false) throws {
        capacity = max(1, cacheSize)
        var handle: OpaquePointer?
        let rc = sqlite3_open_v2(path, &handle, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, nil)
        guard rc == SQLITE_OK, let handle else {
            let message = handle.map { String(cString: sqlite3_errmsg($0)) } ?? "cannot open"
            sqlite3_close_v2(handle)
            throw SQLiteEngineError(.sqlite(rc, message))
        }
        db = handle
        sqlite3_extended_result_codes(handle, 1)
        // Savepoint journals in memory (no temp file per group-commit member); pages read through a memory map
        // rather than a read() each. The page cache keeps SQLite's default size: every commit scans the cache's
        // whole hash table (pcache1 truncation), so a 64 MB cache cost the writer ~10%. Checkpoints: see
        // `FastSQLiteCheckpointer`.
        var pragmas = [
            "PRAGMA busy_timeout=10000", "PRAGMA synchronous=NORMAL", "PRAGMA foreign_keys=ON",
            "PRAGMA temp_store=MEMORY", "PRAGMA mmap_size=1073741824",
        ]
        if isWriter { pragmas.insert("PRAGMA journal_mode=WAL", at: 0) }
        if leavesWAL {
            // Each commit syncs the WAL, so what is committed is durable without the checkpoint closing would run.
            pragmas.append("PRAGMA synchronous=FULL")
            _ = csqlite3_no_checkpoint_on_close(handle)
        }
        do {
            for pragma in pragmas { _ = try execute(SQL(stringLiteral: pragma), cached: false) }
        } catch {
            close()
            throw error
        }
    }

    /// Runs one statement to completion and returns its rows.
    func execute(_ sql: SQL, cached: Bool = true) throws -> [SQLRow] {
        guard let db else { throw SQLiteEngineError.closed(sql: sql.text) }
        guard let statement = try prepared(sql.text, db: db, cached: cached) else { return [] }
        let stmt = statement.handle
        defer {
            sqlite3_reset(stmt)
            sqlite3_clear_bindings(stmt)
            if !cached { sqlite3_finalize(stmt) }
        }
        for (i, value) in sql.binds.enumerated() {
            let rc = Self.bind(value, to: stmt, at: Int32(i + 1))
            guard rc == SQLITE_OK else { throw Self.error(db, sql.text) }
        }
        var rows: [SQLRow] = []
        while true {
            let rc = sqlite3_step(stmt)
            if rc == SQLITE_DONE { return rows }
            guard rc == SQLITE_ROW else { throw Self.error(db, sql.text) }
            let count = sqlite3_column_count(stmt)
            let columns = Self.columns(of: statement, count: count)
            var values: [SQLValue] = []
            values.reserveCapacity(Int(count))
            for i in 0..<count { values.append(Self.value(stmt, i)) }
            rows.append(SQLRow(columns: columns, values: values))
        }
    }

    /// Reports the WAL's size after each commit to `checkpointer`, which checkpoints on its own thread. This replaces
    /// SQLite's automatic checkpoint on this connection (both are a WAL hook).
    func reportWAL(to checkpointer: FastSQLiteCheckpointer) {
        sqlite3_wal_hook(
            db,
            { context, _, _, frames in
                if let context { Unmanaged<FastSQLiteCheckpointer>.fromOpaque(context).takeUnretainedValue().walGrew(to: frames) }
                return SQLITE_OK
            }, Unmanaged.passUnretained(checkpointer).toOpaque())
    }

    /// True inside an explicit transaction.
    var inTransaction: Bool { db.map { sqlite3_get_autocommit($0) == 0 } ?? false }

    /// Finalizes every statement and closes the handle. Idempotent.
    func close() {
        for statement in cache.values { sqlite3_finalize(statement.handle) }
        cache = [:]
        sqlite3_close_v2(db)
        db = nil
    }

    private func prepared(_ text: String, db: OpaquePointer, cached: Bool) throws -> Statement? {
        clock &+= 1
        if cached, let hit = cache[text] {
            hit.lastUse = clock
            return hit
        }
        var stmt: OpaquePointer?
        let flags = cached ? UInt32(SQLITE_PREPARE_PERSISTENT) : 0
        let rc = Self.sqliteText(text).withCString { sqlite3_prepare_v3(db, $0, -1, flags, &stmt, nil) }
        guard rc == SQLITE_OK else { throw Self.error(db, text) }
        guard let stmt else { return nil }  // only whitespace or comments
        prepareCount += 1
        let statement = Statement(stmt)
        guard cached else { return statement }
        if cache.count >= capacity, let oldest = cache.min(by: { $0.value.lastUse < $1.value.lastUse }) {
            sqlite3_finalize(oldest.value.handle)
            cache[oldest.key] = nil
        }
        statement.lastUse = clock
        cache[text] = statement
        return statement
    }

    private static func columns(of statement: Statement, count: Int32) -> SQLColumns {
        let epoch = sqlite3_stmt_status(statement.handle, SQLITE_STMTSTATUS_REPREPARE, 0)
        if let columns = statement.columns, statement.columnsEpoch == epoch { return columns }
        let columns = SQLColumns((0..<count).map { String(cString: sqlite3_column_name(statement.handle, $0)) })
        statement.columns = columns
        statement.columnsEpoch = epoch
        return columns
    }

    private static func bind(_ value: SQLValue, to stmt: OpaquePointer, at index: Int32) -> Int32 {
        switch value {
        case .int(let i): return sqlite3_bind_int64(stmt, index, i)
        case .double(let d): return sqlite3_bind_double(stmt, index, d)
        case .null: return sqlite3_bind_null(stmt, index)
        case .text(var s):
            return s.withUTF8 { utf8 in
                // A nil pointer would bind NULL, so an empty string gets a real one.
                guard let base = utf8.baseAddress, !utf8.isEmpty else {
                    return sqlite3_bind_text(stmt, index, "", 0, csqlite3_transient())
                }
                return base.withMemoryRebound(to: CChar.self, capacity: utf8.count) {
                    sqlite3_bind_text64(stmt, index, $0, UInt64(utf8.count), csqlite3_transient(), UInt8(SQLITE_UTF8))
                }
            }
        }
    }

    private static func value(_ stmt: OpaquePointer, _ i: Int32) -> SQLValue {
        switch sqlite3_column_type(stmt, i) {
        case SQLITE_INTEGER: return .int(sqlite3_column_int64(stmt, i))
        case SQLITE_FLOAT: return .double(sqlite3_column_double(stmt, i))
        case SQLITE_TEXT:
            guard let text = sqlite3_column_text(stmt, i) else { return .text("") }
            return .text(String(decoding: UnsafeBufferPointer(start: text, count: Int(sqlite3_column_bytes(stmt, i))), as: UTF8.self))
        case SQLITE_BLOB:
            guard let blob = sqlite3_column_blob(stmt, i) else { return .text("") }
            let bytes = UnsafeRawBufferPointer(start: blob, count: Int(sqlite3_column_bytes(stmt, i)))
            return .text(String(decoding: bytes, as: UTF8.self))
        default: return .null
        }
    }

    private static func error(_ db: OpaquePointer, _ sql: String) -> any Error {
        let code = sqlite3_extended_errcode(db)
        let message = String(cString: sqlite3_errmsg(db))
        if code == CSQLITE3_CONSTRAINT_UNIQUE || code == CSQLITE3_CONSTRAINT_PRIMARYKEY {
            return StoreError.uniqueViolation(message)
        }
        return SQLiteEngineError(.sqlite(code, message), sql: sql)
    }

    /// `$n` placeholders become SQLite's numbered `?n` (statements never hold a literal `$`).
    static func sqliteText(_ text: String) -> String {
        var bytes = Array(text.utf8)
        guard let first = bytes.firstIndex(of: UInt8(ascii: "$")) else { return text }
        for i in first..<bytes.count where bytes[i] == UInt8(ascii: "$") { bytes[i] = UInt8(ascii: "?") }
        return String(decoding: bytes, as: UTF8.self)
    }
}

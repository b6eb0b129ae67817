import CSQLite3

/// SQLite's online backup API: a consistent copy of a database that other connections and processes keep using.
public enum SQLiteBackup {
    /// Copies `source` into `destination` in one step, so the copy is the snapshot of one read transaction. In WAL
    /// mode writers go on meanwhile; a writer that holds the lock past the busy timeout makes this throw.
    public static func copy(from source: String, to destination: String) throws(SQLiteEngineError) {
        let from = try open(source, flags: SQLITE_OPEN_READONLY)
        defer { sqlite3_close_v2(from) }
        let to = try open(destination, flags: SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE)
        defer { sqlite3_close_v2(to) }
        guard let backup = sqlite3_backup_init(to, "main", from, "main") else { throw failure(to) }
        var rc = sqlite3_backup_step(backup, -1)
        var waited: Int32 = 0
        while rc == SQLITE_BUSY || rc == SQLITE_LOCKED, waited < 10_000 {
            sqlite3_sleep(20)
            waited += 20
            rc = sqlite3_backup_step(backup, -1)
        }
        sqlite3_backup_finish(backup)
        guard rc == SQLITE_DONE else { throw SQLiteEngineError(.sqlite(rc, String(cString: sqlite3_errstr(rc)))) }
    }

    /// SQLite's `PRAGMA integrity_check`: nil when the file is sound, else its first complaint.
    public static func integrityProblem(path: String) throws(SQLiteEngineError) -> String? {
        let db = try open(path, flags: SQLITE_OPEN_READONLY)
        defer { sqlite3_close_v2(db) }
        let answers = try column(db, "PRAGMA integrity_check")
        return answers == ["ok"] ? nil : (answers.first ?? "no answer")
    }

    /// The text of the first column of every row of `sql`, for small checks of a backup file.
    public static func column(path: String, _ sql: String) throws(SQLiteEngineError) -> [String] {
        let db = try open(path, flags: SQLITE_OPEN_READONLY)
        defer { sqlite3_close_v2(db) }
        return try column(db, sql)
    }

    private static func column(_ db: OpaquePointer, _ sql: String) throws(SQLiteEngineError) -> [String] {
        var statement: OpaquePointer?
        guard sqlite3_prepare_v2(db, sql, -1, &statement, nil) == SQLITE_OK, let statement else { throw failure(db, sql: sql) }
        defer { sqlite3_finalize(statement) }
        var values: [String] = []
        while true {
            let rc = sqlite3_step(statement)
            if rc == SQLITE_DONE { return values }
            guard rc == SQLITE_ROW else { throw failure(db, sql: sql) }
            values.append(sqlite3_column_text(statement, 0).map { String(cString: $0) } ?? "")
        }
    }

    private static func open(_ path: String, flags: Int32) throws(SQLiteEngineError) -> OpaquePointer {
        var handle: OpaquePointer?
        let rc = sqlite3_open_v2(path, &handle, flags | SQLITE_OPEN_NOMUTEX, nil)
        guard rc == SQLITE_OK, let handle else {
            let message = handle.map { String(cString: sqlite3_errmsg($0)) } ?? "cannot open \(path)"
            sqlite3_close_v2(handle)
            throw SQLiteEngineError(.sqlite(rc, message))
        }
        sqlite3_busy_timeout(handle, 10_000)
        return handle
    }

    private static func failure(_ db: OpaquePointer, sql: String = "") -> SQLiteEngineError {
        SQLiteEngineError(.sqlite(sqlite3_extended_errcode(db), String(cString: sqlite3_errmsg(db))), sql: sql)
    }
}

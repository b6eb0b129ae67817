import SQLKernel

/// A failure from `FastSQLiteBackend` other than a unique violation (that one is `StoreError`).
/// Carries the statement's first 80 characters for context, never its bound values.
public struct SQLiteEngineError: Error, Equatable, Sendable, CustomStringConvertible {
    enum Code: Equatable, Sendable {
        case sqlite(Int32, String)
        case closed
        case misuse(String)
        case groupRolledBack
    }

    let code: Code
    /// The first 80 characters of the failing statement's text; empty when none.
    public let statement: String

    init(_ code: Code, sql: String = "") {
        self.code = code
        self.statement = String(sql.prefix(80))
    }

    static func closed(sql: String = "") -> SQLiteEngineError { SQLiteEngineError(.closed, sql: sql) }

    /// SQLite's extended result code; SQLITE_MISUSE (21) for misuse of this engine.
    public var resultCode: Int32 {
        if case .sqlite(let code, _) = code { code } else { 21 }
    }

    public var isClosed: Bool { code == .closed }
    /// SQLITE_BUSY or SQLITE_LOCKED: another connection held a lock past the busy timeout.
    public var isBusy: Bool { [5, 6].contains(resultCode & 0xff) }
    /// Nothing was written and trying again may succeed: busy, or rolled back with its commit group.
    public var isRetryable: Bool { isBusy || code == .groupRolledBack }

    public var description: String {
        let message =
            switch code {
            case .sqlite(let rc, let text): "SQLite error \(rc): \(text)"
            case .closed: "the database is closed"
            case .misuse(let text): text
            case .groupRolledBack: "rolled back with another transaction of its commit group"
            }
        return statement.isEmpty ? message : "\(message) (in: \(statement))"
    }
}

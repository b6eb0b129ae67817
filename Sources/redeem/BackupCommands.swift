import ArgumentParser
import FastSQLite
import Foundation
import RedeemServer
import RedeemStore

/// `redeem backup` and `redeem restore`, for the SQLite file; PostgreSQL has pg_dump and pg_restore.
enum BackupFile {
    struct Summary: Encodable {
        let path: String
        let schemaVersion: Int
        /// Rows per table, to compare a restore with its backup.
        let rows: [String: Int]
    }

    static func sqlitePath(_ database: DatabaseOptions, action: String) throws -> String {
        switch try DatabaseLocation(database.settings().url) {
        case .sqlite(let path): return URL(fileURLWithPath: path).standardizedFileURL.path
        case .postgres:
            throw ConfigurationError(
                setting: Setting.databaseURL.name,
                reason: "is PostgreSQL; \(action) it with pg_dump -Fc / pg_restore --clean --if-exists (docs/deploy.md)"
            )
        }
    }

    static func mustExist(_ path: String, setting: String) throws {
        guard FileManager.default.fileExists(atPath: path) else { throw ConfigurationError(setting: setting, reason: "no file at \(path)") }
    }

    /// Sound, made by Redeem, and not newer than this binary's migrations.
    static func check(_ path: String, setting: String) throws -> Summary {
        do {
            return try inspect(path, setting: setting)
        } catch let error as SQLiteEngineError {
            throw ConfigurationError(setting: setting, reason: "\(path) cannot be read as a SQLite database: \(error)")
        }
    }

    private static func inspect(_ path: String, setting: String) throws -> Summary {
        if let problem = try SQLiteBackup.integrityProblem(path: path) {
            throw ConfigurationError(setting: setting, reason: "\(path) is damaged: \(problem)")
        }
        let tables = try SQLiteBackup.column(path: path, "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'")
        guard tables.contains("schema_migrations") else { throw ConfigurationError(setting: setting, reason: "\(path) is not a Redeem database") }
        let version = Int(try SQLiteBackup.column(path: path, "SELECT coalesce(max(version), 0) FROM schema_migrations").first ?? "") ?? 0
        let known = Migration.all.map(\.version).max() ?? 0
        guard version <= known else {
            throw ConfigurationError(setting: setting, reason: "\(path) has schema version \(version); this redeem knows up to \(known)")
        }
        var rows: [String: Int] = [:]
        for table in tables {
            rows[table] = Int(try SQLiteBackup.column(path: path, "SELECT count(*) FROM \"\(table)\"").first ?? "") ?? 0
        }
        return Summary(path: path, schemaVersion: version, rows: rows)
    }

    static func report(_ verb: String, _ summary: Summary, json: Bool) throws {
        if json { return try Output.json(summary) }
        let total = summary.rows.values.reduce(0, +)
        print("\(verb) \(summary.path): schema version \(summary.schemaVersion), \(summary.rows.count) tables, \(total) rows, integrity ok.")
    }
}

struct Backup: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Copy the SQLite database to a file, consistently, while the server runs (SQLite's online backup).")

    @Option(help: "The backup file to write; it must not exist yet.")
    var to: String
    @Flag(help: "Print the backup's schema version and row counts as JSON.")
    var json = false
    @OptionGroup var database: DatabaseOptions

    func run() async throws {
        let source = try BackupFile.sqlitePath(database, action: "back up")
        try BackupFile.mustExist(source, setting: Setting.databaseURL.name)
        let target = URL(fileURLWithPath: to).standardizedFileURL.path
        guard !FileManager.default.fileExists(atPath: target) else { throw ConfigurationError(setting: "--to", reason: "\(target) already exists") }
        // Written beside the target and renamed when checked, so a file at `--to` is always a whole backup.
        let partial = target + ".partial"
        try? FileManager.default.removeItem(atPath: partial)
        do {
            try SQLiteBackup.copy(from: source, to: partial)
            let summary = try BackupFile.check(partial, setting: "--to")
            try FileManager.default.moveItem(atPath: partial, toPath: target)
            try BackupFile.report(
                "Backed up to", BackupFile.Summary(path: target, schemaVersion: summary.schemaVersion, rows: summary.rows), json: json)
        } catch {
            try? FileManager.default.removeItem(atPath: partial)
            throw error
        }
    }
}

struct Restore: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Check a backup and copy it over the SQLite database. Stop the server first.")

    @Option(help: "The backup file, from `redeem backup`.")
    var from: String
    @Flag(help: "Replace an existing database.")
    var force = false
    @Flag(help: "Print the restored schema version and row counts as JSON.")
    var json = false
    @OptionGroup var database: DatabaseOptions

    func run() async throws {
        let target = try BackupFile.sqlitePath(database, action: "restore")
        let backup = URL(fileURLWithPath: from).standardizedFileURL.path
        try BackupFile.mustExist(backup, setting: "--from")
        let expected = try BackupFile.check(backup, setting: "--from")
        if FileManager.default.fileExists(atPath: target), !force {
            throw ConfigurationError(setting: "--force", reason: "\(target) exists; stop the server and pass --force to replace it")
        }
        try SQLiteBackup.copy(from: backup, to: target)
        let restored = try BackupFile.check(target, setting: Setting.databaseURL.name)
        guard restored.rows == expected.rows else {
            throw ConfigurationError(setting: "--from", reason: "the restored database's row counts differ from the backup's")
        }
        try BackupFile.report("Restored", restored, json: json)
    }
}

import Foundation
import Logging

/// Applies pending migrations, each in its own transaction, recording version and checksum.
public struct MigrationRunner: Sendable {
    let database: any SQLDatabase
    let migrations: [Migration]

    public init(database: any SQLDatabase, migrations: [Migration] = Migration.all) {
        self.database = database
        self.migrations = migrations
    }

    /// Versions not yet applied.
    public func pending() async throws -> [Migration] {
        let applied = try await appliedChecksums()
        return migrations.filter { applied[$0.version] == nil }
    }

    /// Applies every pending migration; returns the versions applied now.
    @discardableResult
    public func apply(logger: Logger, now: Date = Date()) async throws -> [Int] {
        try await ensureTable()
        let engine = database.engine
        var appliedNow: [Int] = []
        for migration in migrations {
            let applied = try await database.transaction { connection in
                if engine == .postgres {
                    // Several instances may start at once: one migrates, the others wait.
                    try await connection.query("SELECT pg_advisory_xact_lock(7300000001)")
                }
                if let row = try await connection.first("SELECT checksum FROM schema_migrations WHERE version = \(migration.version)") {
                    guard try row.string("checksum") == migration.checksum(for: engine) else {
                        throw MigrationError.edited(version: migration.version, name: migration.name)
                    }
                    return false
                }
                for statement in migration.statements(for: engine) {
                    var sql = SQL(stringLiteral: statement)
                    sql.runsOnce = true
                    try await connection.query(sql)
                }
                try await connection.query(
                    """
                    INSERT INTO schema_migrations (version, name, checksum, applied_at)
                    VALUES (\(migration.version), \(migration.name), \(migration.checksum(for: engine)), \(now))
                    """)
                return true
            }
            if applied {
                logger.info("applied migration", metadata: ["version": "\(migration.version)", "name": "\(migration.name)"])
                appliedNow.append(migration.version)
            }
        }
        return appliedNow
    }

    func ensureTable() async throws {
        let engine = database.engine
        try await database.transaction { connection in
            if engine == .postgres { try await connection.query("SELECT pg_advisory_xact_lock(7300000001)") }
            try await connection.query(
                """
                CREATE TABLE IF NOT EXISTS schema_migrations (
                    version INTEGER PRIMARY KEY, name TEXT NOT NULL, checksum TEXT NOT NULL, applied_at BIGINT NOT NULL
                )
                """)
        }
    }

    func appliedChecksums() async throws -> [Int: String] {
        try await ensureTable()
        let rows = try await database.read { try await $0.query("SELECT version, checksum FROM schema_migrations") }
        var result: [Int: String] = [:]
        for row in rows { result[Int(try row.int("version"))] = try row.string("checksum") }
        return result
    }
}

public struct MigrationError: Error, CustomStringConvertible {
    let message: String

    static func edited(version: Int, name: String) -> MigrationError {
        MigrationError(message: "migration \(version) (\(name)) was edited after it was applied; add a new migration instead")
    }

    public static func pending(_ versions: [Int]) -> MigrationError {
        MigrationError(message: "pending migrations \(versions); run `redeem migrate` or start without --no-migrate")
    }

    public var description: String { message }
}

import Foundation
import Logging
import RedeemStore
import Testing

/// The engines a test can run on.
public enum TestBackend: String, CaseIterable, Sendable, CustomStringConvertible {
    case sqlite, postgres
    public var description: String { rawValue }
}

/// Fresh, migrated databases for tests: a temporary SQLite file, or a PostgreSQL database
/// copied from a migrated template (`CREATE DATABASE … TEMPLATE`), so resets are cheap.
public enum TestDatabases {
    /// Set by scripts/test.sh (and so by CI). Unset: PostgreSQL tests are skipped, never passed.
    public static let postgresURL = ProcessInfo.processInfo.environment["REDEEM_TEST_POSTGRES_URL"].flatMap { $0.isEmpty ? nil : $0 }
    public static var postgresConfigured: Bool { postgresURL != nil }
    /// The backends to run on: SQLite always, PostgreSQL when configured.
    public static var available: [TestBackend] { postgresConfigured ? [.sqlite, .postgres] : [.sqlite] }

    /// Hundreds of tests share two cores and one admin pool that creates their databases, so a call may wait long
    /// for a connection here without anything being wrong.
    public static let connectionWait: Duration = .seconds(300)

    public static let logger: Logger = {
        var logger = Logger(label: "redeem-tests")
        logger.logLevel = .warning
        return logger
    }()

    /// Runs `body` with a fresh, migrated store, and removes the database afterwards.
    public static func withStore<T: Sendable>(_ backend: TestBackend, _ body: (SQLStore) async throws -> T) async throws -> T {
        try await withStores(backend, count: 1) { try await body($0[0]) }
    }

    /// Runs `body` with a fresh store migrated only up to, not including, `version`: a database as an older Redeem left
    /// it, for a test that writes rows the old way and then runs the later migrations (`store.migrate`). Closed and
    /// removed afterwards.
    public static func withStore<T: Sendable>(
        _ backend: TestBackend, migratedBefore version: Int, _ body: (SQLStore) async throws -> T
    ) async throws -> T {
        let (url, cleanup) = try await makeDatabase(backend, migrated: false)
        let store = try await SQLStore.open(url: url, connectionWait: connectionWait, logger: logger)
        do {
            try await MigrationRunner(database: store.database, migrations: Migration.all.filter { $0.version < version }).apply(logger: logger)
            let result = try await body(store)
            await store.close()
            try await cleanup()
            return result
        } catch {
            await store.close()
            try? await cleanup()
            throw error
        }
    }

    /// Runs `body` with two stores opened on one fresh, migrated database, as two server instances would be.
    public static func withTwoStores<T: Sendable>(_ backend: TestBackend, _ body: (SQLStore, SQLStore) async throws -> T) async throws -> T {
        try await withStores(backend, count: 2) { try await body($0[0], $0[1]) }
    }

    /// `count` stores on one fresh database, migrated through the first; all closed and the database removed afterwards.
    private static func withStores<T: Sendable>(_ backend: TestBackend, count: Int, _ body: ([SQLStore]) async throws -> T) async throws -> T {
        let (url, cleanup) = try await makeDatabase(backend)
        var opened: [SQLStore] = []
        do {
            while opened.count < count {
                opened.append(try await SQLStore.open(url: url, connectionWait: connectionWait, logger: logger))
                if opened.count == 1, backend == .sqlite { try await opened[0].migrate(logger: logger) }
            }
            let result = try await body(opened)
            for store in opened { await store.close() }
            try await cleanup()
            return result
        } catch {
            for store in opened { await store.close() }
            try? await cleanup()
            throw error
        }
    }

    /// A new empty (SQLite) or template-migrated (PostgreSQL) database URL and its cleanup.
    public static func makeDatabase(_ backend: TestBackend, migrated: Bool = true) async throws -> (String, @Sendable () async throws -> Void) {
        switch backend {
        case .sqlite:
            let dir = FileManager.default.temporaryDirectory.appendingPathComponent("redeem-test-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
            let path = dir.appendingPathComponent("db.sqlite").path
            return ("sqlite://" + path, { try? FileManager.default.removeItem(at: dir) })
        case .postgres:
            recordPostgresCase()
            return try await PostgresTemplates.shared.makeDatabase(migrated: migrated)
        }
    }

    /// With `REDEEM_TEST_POSTGRES_LEDGER` set (scripts/test.sh sets it), each PostgreSQL database a test case makes adds
    /// the case's name to that file: the test command counts how many PostgreSQL cases really ran.
    static func recordPostgresCase() {
        guard let path = ProcessInfo.processInfo.environment["REDEEM_TEST_POSTGRES_LEDGER"], !path.isEmpty else { return }
        let name = Test.current?.name ?? "unnamed"
        let fd = open(path, O_WRONLY | O_APPEND | O_CREAT, 0o644)
        guard fd >= 0 else { return }
        defer { close(fd) }
        // One write per line with O_APPEND: lines from concurrent tests never interleave.
        let line = Array((name.replacingOccurrences(of: "\n", with: " ") + "\n").utf8)
        _ = line.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
    }
}

/// Creates PostgreSQL test databases from one migrated template per test process.
actor PostgresTemplates {
    static let shared = PostgresTemplates()
    private var admin: SQLStore?
    private var template: Task<String, any Error>?

    func makeDatabase(migrated: Bool) async throws -> (String, @Sendable () async throws -> Void) {
        guard let base = TestDatabases.postgresURL, var components = URLComponents(string: base) else {
            throw TestSetupError("REDEEM_TEST_POSTGRES_URL is not set")
        }
        let admin = try await adminStore(base)
        let name = "redeem_t_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased().prefix(20)
        let source = migrated ? try await migratedTemplate(components: components, admin: admin) : "template0"
        try await admin.database.read { try await $0.query("CREATE DATABASE \(unsafeRaw: name) TEMPLATE \(unsafeRaw: source)") }
        components.path = "/" + name
        let url = components.string!
        return (url, { _ = try await admin.database.read { try await $0.query("DROP DATABASE IF EXISTS \(unsafeRaw: name) WITH (FORCE)") } })
    }

    private func adminStore(_ base: String) async throws -> SQLStore {
        if let admin { return admin }
        let store = try await SQLStore.open(url: base, connectionWait: TestDatabases.connectionWait, logger: TestDatabases.logger)
        admin = store
        return store
    }

    private func migratedTemplate(components: URLComponents, admin: SQLStore) async throws -> String {
        if let template { return try await template.value }
        let task = Task { try await Self.createTemplate(components: components, admin: admin) }
        template = task
        return try await task.value
    }

    private static func createTemplate(components: URLComponents, admin: SQLStore) async throws -> String {
        let name = "redeem_template_\(ProcessInfo.processInfo.processIdentifier)_\(Int(Date().timeIntervalSince1970))"
        try await admin.database.read { try await $0.query("CREATE DATABASE \(unsafeRaw: name) TEMPLATE template0") }
        var components = components
        components.path = "/" + name
        let store = try await SQLStore.open(url: components.string!, connectionWait: TestDatabases.connectionWait, logger: TestDatabases.logger)
        try await store.migrate(logger: TestDatabases.logger)
        await store.close()
        return name
    }
}

public struct TestSetupError: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}

import ArgumentParser
import Foundation
import Logging
import RedeemServer
import RedeemStore

/// `--database-url`, falling back to `REDEEM_DATABASE_URL`, then `./redeem.sqlite`.
struct DatabaseOptions: ParsableArguments {
    @Option(
        help:
            "sqlite:///abs/path.sqlite, sqlite://relative.sqlite, a file path, or postgres://user@host:port/db (env REDEEM_DATABASE_URL; default ./redeem.sqlite)"
    )
    var databaseURL: String?

    @Option(help: "PostgreSQL connections this process may open, 1-1000 (env REDEEM_DATABASE_POOL_SIZE; default \(SQLStore.defaultPostgresPoolSize))")
    var databasePoolSize: Int?

    @Option(
        help:
            "PostgreSQL URL of a direct connection for the Customer Info listener, when --database-url is a transaction pooler's (env REDEEM_DATABASE_LISTEN_URL; default the database URL)"
    )
    var databaseListenURL: String?

    var resolvedListenURL: String? { databaseListenURL ?? Environment.value("REDEEM_DATABASE_LISTEN_URL") }

    var resolvedURL: String {
        databaseURL ?? Environment.value("REDEEM_DATABASE_URL") ?? ServerConfiguration.defaultDatabaseURL
    }

    func resolvedPoolSize() throws -> Int {
        let setting = "--database-pool-size / REDEEM_DATABASE_POOL_SIZE"
        if let databasePoolSize { return try Self.checkedPoolSize(databasePoolSize, setting: setting) }
        guard let text = Environment.value("REDEEM_DATABASE_POOL_SIZE") else { return SQLStore.defaultPostgresPoolSize }
        guard let size = Int(text) else { throw ConfigurationError(setting: setting, reason: "'\(text)' is not a whole number") }
        return try Self.checkedPoolSize(size, setting: setting)
    }

    private static func checkedPoolSize(_ size: Int, setting: String) throws -> Int {
        guard (1...1000).contains(size) else { throw ConfigurationError(setting: setting, reason: "\(size) is not between 1 and 1000") }
        return size
    }

    /// Opens the store and applies pending migrations, as `serve` does. Only `creating` callers (the demo, the
    /// benchmarks) may start a new SQLite file: anywhere else a missing file is a mistyped path or the wrong folder.
    func openStore(logger: Logger, creating: Bool = false, leavesWAL: Bool = false) async throws -> SQLStore {
        if !creating, case .sqlite(let path) = try DatabaseLocation(resolvedURL), !FileManager.default.fileExists(atPath: path) {
            throw ConfigurationError(
                setting: "--database-url / REDEEM_DATABASE_URL",
                reason: "no database at \(URL(fileURLWithPath: path).standardizedFileURL.path); run `redeem migrate` to create it, or name yours"
            )
        }
        let store = try await SQLStore.open(url: resolvedURL, poolSize: try resolvedPoolSize(), logger: logger, leavesWAL: leavesWAL)
        do {
            try await store.migrate(logger: logger)
        } catch {
            await store.close()
            throw error
        }
        return store
    }

    func withStore<T>(_ body: (SQLStore) async throws -> T) async throws -> T {
        let store = try await openStore(logger: Logger.cli)
        do {
            let result = try await body(store)
            await store.close()
            return result
        } catch {
            await store.close()
            throw error
        }
    }

    /// The admin service on the local database, its writes audited as `actor` (the CLI's, unless `redeem demo`).
    func withAdmin<T>(
        creating: Bool = false, actor: String = CLI.actor, leavesWAL: Bool = false, _ body: (AdminService) async throws -> T
    ) async throws -> T {
        let store = try await openStore(logger: Logger.cli, creating: creating, leavesWAL: leavesWAL)
        do {
            let result = try await body(AdminService(store: store, actor: actor))
            await store.close()
            return result
        } catch {
            await store.close()
            throw error
        }
    }
}

enum CLI {
    /// What the audit log records as the actor of a change made from a terminal.
    static let actor = "cli"
}

enum Environment {
    static func value(_ name: String) -> String? {
        guard let value = ProcessInfo.processInfo.environment[name], !value.isEmpty else { return nil }
        return value
    }
}

extension Logger {
    static var cli: Logger {
        var logger = Logger(label: "redeem")
        logger.logLevel = .warning
        return logger
    }
}

/// Prints a value as the API would (`--json`), or as readable lines.
enum Output {
    static func json(_ value: some Encodable) throws {
        let data = try JSONCoding.encoder.encode(value)
        print(String(decoding: data, as: UTF8.self))
    }
}

/// The public base URL the CLI makes links with: `--public-url`, then `REDEEM_PUBLIC_URL`, then the local default.
enum PublicURL {
    static func resolve(_ option: String?) throws -> URL {
        let base = option ?? Environment.value("REDEEM_PUBLIC_URL") ?? "http://127.0.0.1:8080"
        guard let url = URL(string: base), url.scheme == "https" || url.scheme == "http" else {
            throw ConfigurationError(setting: "--public-url / REDEEM_PUBLIC_URL", reason: "'\(base)' is not an http(s) URL")
        }
        return url
    }
}

import ArgumentParser
import Foundation
import Logging
import RedeemServer
import RedeemStore

/// `--database-url`, falling back to `REDEEM_DATABASE_URL`, then `./redeem.sqlite`.
struct DatabaseOptions: ParsableArguments {
    @Option(
        help:
            "sqlite:///abs/path.sqlite, sqlite://relative.sqlite, a file path, or postgres://user@host:port/db (env \(Setting.databaseURL.environmentName); default ./redeem.sqlite)"
    )
    var databaseURL: String?

    @Option(
        help:
            "PostgreSQL connections this process may open, 1-1000 (env \(Setting.databasePoolSize.environmentName); default \(SQLStore.defaultPostgresPoolSize))"
    )
    var databasePoolSize: Int?

    @Option(
        help:
            "PostgreSQL URL of a direct connection for the Customer Info listener, when --database-url is a transaction pooler's (env \(Setting.databaseListenURL.environmentName); default the database URL)"
    )
    var databaseListenURL: String?

    var flags: [Setting: String?] {
        [.databaseURL: databaseURL, .databasePoolSize: databasePoolSize.map(String.init), .databaseListenURL: databaseListenURL]
    }

    /// The database settings, each from its flag or else its variable.
    func settings() throws -> DatabaseSettings { try DatabaseSettings(reader: Settings.reader(flags: flags)) }

    /// Opens the store and applies pending migrations, as `serve` does. Only `creating` callers (the demo, the
    /// benchmarks) may start a new SQLite file: anywhere else a missing file is a mistyped path or the wrong folder.
    func openStore(logger: Logger, creating: Bool = false, leavesWAL: Bool = false) async throws -> SQLStore {
        let settings = try settings()
        if !creating, case .sqlite(let path) = try DatabaseLocation(settings.url), !FileManager.default.fileExists(atPath: path) {
            throw ConfigurationError(
                setting: Setting.databaseURL.name,
                reason: "no database at \(URL(fileURLWithPath: path).standardizedFileURL.path); run `redeem migrate` to create it, or name yours"
            )
        }
        let store = try await SQLStore.open(url: settings.url, poolSize: settings.poolSize, logger: logger, leavesWAL: leavesWAL)
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
        try given(option) ?? ServerConfiguration.defaultPublicURL
    }

    /// The URL when one is given, for commands that make no links without it.
    static func given(_ option: String?) throws -> URL? {
        try Settings.reader(flags: [.publicURL: option]).text(.publicURL).map { try ServerConfiguration.publicURL($0) }
    }
}

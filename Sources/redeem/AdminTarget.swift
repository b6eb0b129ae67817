import ArgumentParser
import Foundation
import RedeemCore
import RedeemServer
import RedeemStore

/// Where an admin command runs: the local database (`--database-url`), or with `--server` a running Redeem's admin
/// API. Each command gives both ways; they call the same service, locally in-process or remotely over HTTP.
struct AdminTarget: ParsableArguments {
    @Option(
        help:
            "Run against a Redeem server's admin API instead of a local database, e.g. https://pay.example.com (env \(Setting.server.environmentName); key from \(Setting.adminKey.environmentName))."
    )
    var server: String?
    @OptionGroup var database: DatabaseOptions

    var remote: RemoteAdmin? {
        get throws {
            let settings = Settings.reader(flags: [.server: server])
            guard let server = settings.text(.server) else { return nil }
            return try RemoteAdmin(server: server, key: settings.text(.adminKey))
        }
    }

    func run<T>(local: (AdminService) async throws -> T, remote: (RemoteAdmin) async throws -> T) async throws -> T {
        if let admin = try self.remote { return try await remote(admin) }
        return try await database.withAdmin(local)
    }

    func runWebhooks<T>(local: (WebhookEndpointService) async throws -> T, remote: (RemoteAdmin) async throws -> T) async throws -> T {
        if let admin = try self.remote { return try await remote(admin) }
        return try await database.withStore {
            try await local(WebhookEndpointService(store: $0, clock: SystemClock(), worker: nil, actor: CLI.actor))
        }
    }

    /// Support operations: locally with links against `publicURL` (the CLI queues no e-mail), or through the admin API.
    func runSupport<T>(publicURL: URL, local: (SupportService) async throws -> T, remote: (RemoteAdmin) async throws -> T) async throws -> T {
        if let admin = try self.remote { return try await remote(admin) }
        return try await database.withStore { try await local(SupportService(store: $0, publicURL: publicURL)) }
    }

    /// Any other feature: `local` makes its service from the local database's store, or `remote` asks the admin API.
    func run<T>(store local: (SQLStore) async throws -> T, remote: (RemoteAdmin) async throws -> T) async throws -> T {
        if let admin = try self.remote { return try await remote(admin) }
        return try await database.withStore { try await local($0) }
    }

    /// For commands only a local database can serve (they read files or the database itself).
    func localOnly(_ command: String) throws {
        if try remote != nil { throw ConfigurationError(setting: "--server", reason: "`redeem \(command)` works on a local database only") }
    }
}

/// `--app`, or `REDEEM_APP`: the app a command works on.
struct AppOption: ParsableArguments {
    @Option(help: "The app's ID (env \(Setting.app.environmentName)).")
    var app: String?

    var id: String {
        get throws {
            guard let id = optionalID else {
                throw ConfigurationError(setting: Setting.app.name, reason: "is required: the app's ID (app_…)")
            }
            return id
        }
    }

    /// The app when given, for commands where it only narrows the answer.
    var optionalID: String? { Settings.reader(flags: [.app: app]).text(.app) }
}

import Foundation
import Logging
import RedeemMail
import RedeemStore

/// `redeem serve --check`: what `serve` would run with, and whether its database is ready, without listening,
/// migrating or creating anything. It can run beside the live server, before a restart: the port is not tried.
public enum ConfigurationCheck {
    /// Lines for the operator; throws what would stop `serve` (an unreachable database, pending migrations under
    /// `--no-migrate`, a migration edited after it was applied).
    public static func run(_ configuration: ServerConfiguration, logger: Logger) async throws -> [String] {
        var lines = configuration.summary.sorted { $0.key < $1.key }.map { "  \($0.key): \($0.value)" }
        if let mail = configuration.mail {
            lines.append("  smtp: " + (await reach(mail.smtp)))
        }
        if case .sqlite(let path) = try DatabaseLocation(configuration.databaseURL), !FileManager.default.fileExists(atPath: path) {
            lines.append("  migrations: no database yet; serve creates it and applies every migration")
            return lines
        }
        let store = try await SQLStore.open(url: configuration.databaseURL, poolSize: 1, logger: logger)
        let pending: [Migration]
        do {
            pending = try await MigrationRunner(database: store.database).pending()
            await store.close()
        } catch {
            await store.close()
            throw error
        }
        guard !pending.isEmpty else { return lines + ["  migrations: up to date"] }
        let versions = pending.map(\.version)
        if !configuration.migrateOnStart { throw MigrationError.pending(versions) }
        let named = versions.count > 4 ? "\(versions[0]) to \(versions[versions.count - 1])" : versions.map(String.init).joined(separator: ", ")
        return lines + ["  migrations: \(versions.count) pending (\(named)); serve applies them"]
    }

    /// The mail server, tried as `serve` tries it at start: a failure is said, not thrown, since `serve` starts anyway
    /// and keeps e-mails queued until it answers.
    static func reach(_ smtp: SMTPConfiguration) async -> String {
        do {
            try await SMTPClient(configuration: smtp).probe()
            return "reachable"
        } catch {
            return "cannot connect (\(error)); serve starts anyway and keeps e-mails queued"
        }
    }
}

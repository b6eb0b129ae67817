import ArgumentParser
import Foundation
import RedeemCore
import RedeemServer

struct Apps: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Create, show, update and list apps.", subcommands: [Create.self, List.self, Show.self, Update.self]
    )

    /// App settings as flags; the same fields as the admin API.
    struct SettingsOptions: ParsableArguments {
        @Option var iconURL: String?
        @Option var appStoreURL: String?
        @Option var playStoreURL: String?
        @Option var iosTeamID: String?
        @Option var iosBundleID: String?
        @Option var androidPackageName: String?
        @Option(help: "SHA-256 signing certificate fingerprint; repeat for several.")
        var androidCertFingerprint: [String] = []
        @Option(help: "disabled, sandbox_only or enabled")
        var redemptionLinkPolicy: String?
        @Option(help: "transfer, transfer_if_no_active_subscription or keep_with_original")
        var restoreBehavior: String?
        @Option var redemptionLinkLifetimeSeconds: Int?
        @Option var supportEmail: String?

        func changes(name: String?) -> AppChanges {
            var changes = AppChanges()
            changes.name = name
            changes.iconURL = iconURL
            changes.appStoreURL = appStoreURL
            changes.playStoreURL = playStoreURL
            changes.iosTeamID = iosTeamID
            changes.iosBundleID = iosBundleID
            changes.androidPackageName = androidPackageName
            changes.androidCertFingerprints = androidCertFingerprint.isEmpty ? nil : androidCertFingerprint
            changes.redemptionLinkPolicy = redemptionLinkPolicy
            changes.restoreBehavior = restoreBehavior
            changes.redemptionLinkLifetimeSeconds = redemptionLinkLifetimeSeconds
            changes.supportEmail = supportEmail
            return changes
        }
    }

    struct Create: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Create an app and print its keys (shown once).")
        @Option var name: String
        @OptionGroup var settings: SettingsOptions
        @OptionGroup var database: DatabaseOptions
        @Flag var json = false

        func run() async throws {
            let created = try await database.withAdmin { try await $0.createApp(settings.changes(name: name)) }
            if json { return try Output.json(created) }
            print(
                """
                Created app \(created.app.name) (\(created.app.id))
                  scheme:            \(created.app.scheme)
                  public sandbox:    \(created.plaintext(.publicSandbox) ?? "")
                  public production: \(created.plaintext(.publicProduction) ?? "")
                  secret:            \(created.plaintext(.secret) ?? "")
                Keys are shown only now; store them safely.
                """)
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List apps.")
        @OptionGroup var database: DatabaseOptions
        @Flag var json = false

        func run() async throws {
            let apps = try await database.withAdmin { try await $0.store.apps() }
            if json { return try Output.json(["apps": apps]) }
            for app in apps { print("\(app.id)  \(app.scheme)  \(app.name)") }
        }
    }

    struct Show: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Show one app.")
        @Argument var id: String
        @OptionGroup var database: DatabaseOptions
        @Flag var json = false

        func run() async throws {
            let app = try await database.withAdmin { try await $0.store.app(id: id) }
            if json { return try Output.json(app) }
            print(
                "\(app.id)  \(app.scheme)  \(app.name)\n  policy: \(app.redemptionLinkPolicy.rawValue), restore: \(app.restoreBehavior.rawValue), link lifetime: \(app.redemptionLinkLifetimeSeconds)s"
            )
        }
    }

    struct Update: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Change an app's settings; an empty value clears a field.")
        @Argument var id: String
        @Option var name: String?
        @OptionGroup var settings: SettingsOptions
        @OptionGroup var database: DatabaseOptions
        @Flag var json = false

        func run() async throws {
            let app = try await database.withAdmin { try await $0.updateApp(id: id, settings.changes(name: name)) }
            if json { return try Output.json(app) }
            print("Updated \(app.id) (\(app.name)).")
        }
    }
}

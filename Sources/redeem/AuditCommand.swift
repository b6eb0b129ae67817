import ArgumentParser
import Foundation
import RedeemCore
import RedeemServer
import RedeemStore

/// `redeem audit`: the newest entries of the audit log (who changed what, when, on which object).
struct Audit: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Show the audit log, newest first.")
    @Option(help: "Only this app's entries.")
    var app: String?
    @Option(help: "How many entries (1-1000).")
    var limit: Int = 50
    @OptionGroup var database: DatabaseOptions
    @Flag var json = false

    func validate() throws {
        guard (1...1000).contains(limit) else { throw ValidationError("--limit must be between 1 and 1000.") }
    }

    func run() async throws {
        let entries = try await database.withStore { try await $0.auditLog(appID: app, limit: limit) }
        if json { return try Output.json(["entries": entries]) }
        if entries.isEmpty { print("The audit log is empty.") }
        for entry in entries {
            let app = entry.appID.map { " app \($0)" } ?? ""
            let detail = entry.detail.map { " (\($0))" } ?? ""
            print("\(ISODate.format(entry.at))  \(entry.actor)  \(entry.action)  \(entry.objectType) \(entry.objectID)\(app)\(detail)")
        }
    }
}

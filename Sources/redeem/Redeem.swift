import ArgumentParser
import Foundation
import Logging
import RedeemCore
import RedeemServer
import RedeemStore

@main
struct Redeem: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "redeem",
        abstract: "Self-hosted web-to-app purchases: redemption links, offer codes and customer info.",
        subcommands: [
            Serve.self, Demo.self, Migrate.self, Apps.self, Products.self, Entitlements.self, Keys.self, Links.self, Purchases.self, Offers.self,
            Codes.self, Offerings.self, Webhooks.self, Customers.self, Grants.self, Emails.self, Overview.self, Metrics.self, Operators.self,
            Audit.self,
            Backup.self, Restore.self,
            Bench.self,
        ]
    )

    static func main() async {
        do { try Settings.loadSecretFiles() } catch { exit(withError: error) }
        if Settings.reader().text(.logFormat) == "json" {
            LoggingSystem.bootstrap { JSONLogHandler(label: $0) }
        } else {
            LoggingSystem.bootstrap { StreamLogHandler.standardError(label: $0) }
        }
        do {
            var command = try parseAsRoot()
            if var parsed = command as? any AsyncParsableCommand {
                try await parsed.run()
            } else {
                try command.run()
            }
        } catch let error as RedeemCore.ValidationError {
            // The services name API fields (`icon_url`); the operator typed a flag (`--icon-url`).
            FileHandle.standardError.write(Data("Error: \(CLIFlags.name(ofField: error.field)) \(error.reason)\n".utf8))
            Foundation.exit(EXIT_FAILURE)
        } catch {
            exit(withError: error)
        }
    }
}

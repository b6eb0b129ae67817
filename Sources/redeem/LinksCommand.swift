import ArgumentParser
import Foundation
import RedeemCore
import RedeemQR
import RedeemServer

struct Links: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Redemption-link tools.", subcommands: [Test.self])

    struct Test: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Print both forms of a link with an invalid token, and a QR code, to check an app's setup.",
            discussion: "Opening either link in the app must show the invalid-link state."
        )
        @OptionGroup var app: AppOption
        @Option(help: "Public base URL of the server (env REDEEM_PUBLIC_URL; default http://127.0.0.1:8080).")
        var publicURL: String?
        @OptionGroup var database: DatabaseOptions
        @Flag var json = false

        func run() async throws {
            let app = try await database.withAdmin { try await $0.store.app(id: try self.app.id) }
            let url = try PublicURL.resolve(publicURL)
            // A well-formed token that was never issued: the app must report it as invalid.
            let link = RedemptionLink(token: RedemptionLink.newToken(), scheme: app.scheme, publicURL: url, expiresAt: Date())
            if json { return try Output.json(["https_url": link.httpsURL, "custom_scheme_url": link.customSchemeURL]) }
            print(
                """
                Setup check for \(app.name) — these links carry a token that was never issued.
                Opening either in the app must show the "invalid link" state.

                  HTTPS:         \(link.httpsURL)
                  Custom scheme: \(link.customSchemeURL)

                \(try QRCode(encoding: link.httpsURL).terminal())
                """)
        }
    }
}

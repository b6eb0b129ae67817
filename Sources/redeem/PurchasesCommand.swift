import ArgumentParser
import Foundation
import RedeemServer

struct Purchases: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Record, list and show purchases; send new links; refund, cancel or transfer them.",
        subcommands: [Create.self, List.self, Show.self, Link.self, Refund.self, Cancel.self, Transfer.self])

    struct Create: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Record a purchase and print it with its redemption links (when the app's policy gives links)."
        )
        @OptionGroup var app: AppOption
        @Option var product: String
        @Option var email: String
        @Option(help: "The buyer's app user ID; omit for an anonymous purchase, claimed later with its link.")
        var appUserID: String?
        @Flag(help: "A sandbox purchase.")
        var sandbox = false
        @Option(help: "The buyer's language tag (e.g. de, pt-BR): its receipt and later e-mails speak it when Redeem does.")
        var language: String?
        @Option(help: "Public base URL of the server, for the HTTPS link (env REDEEM_PUBLIC_URL; default http://127.0.0.1:8080).")
        var publicURL: String?
        @OptionGroup var database: DatabaseOptions
        @Flag var json = false

        func run() async throws {
            let url = try PublicURL.resolve(publicURL)
            let recorded = try await database.withAdmin {
                try await $0.recordPurchase(
                    appID: try app.id, productID: product, email: email, appUserID: appUserID, sandbox: sandbox, publicURL: url,
                    language: language)
            }
            if json { return try Output.json(recorded) }
            print("Recorded purchase \(recorded.purchase.id) of \(recorded.purchase.productID).")
            if let link = recorded.link { print("Redemption link: \(link.httpsURL)\n            app: \(link.customSchemeURL)") }
        }
    }
}

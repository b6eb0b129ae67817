import ArgumentParser
import Foundation
import RedeemCore
import RedeemQR
import RedeemServer

struct Links: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Purchase links, and redemption-link tools.", subcommands: [Purchase.self, Test.self])

    struct Purchase: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Print a product's purchase links: production and sandbox, or the one asked for.",
            discussion: """
                With --app-user-id the links are for that app user (…/{app_user_id}); the --utm-* values are added to the \
                query and kept with the purchase. With --server the server's public URL is used; locally --public-url. \
                --json prints {"production_url", "sandbox_url"} as the admin API gives it.
                """
        )
        @OptionGroup var app: AppOption
        @Option(help: "The product's ID.")
        var product: String
        @Option(help: "The app user the links are for (the identified form).")
        var appUserID: String?
        @Option(help: "utm_source, kept with the purchase.")
        var utmSource: String?
        @Option(help: "utm_medium, kept with the purchase.")
        var utmMedium: String?
        @Option(help: "utm_campaign, kept with the purchase.")
        var utmCampaign: String?
        @Flag(help: "Only the sandbox link (for testing; never for buyers).")
        var sandbox = false
        @Flag(help: "Only the production link.")
        var production = false
        @Flag(help: "Also print each link as a QR code for the terminal.")
        var qr = false
        @Option(
            help:
                "Public base URL of the server, for a local database (env \(Setting.publicURL.environmentName); default \(ServerConfiguration.defaultPublicURL.absoluteString))."
        )
        var publicURL: String?
        @OptionGroup var target: AdminTarget
        @Flag var json = false

        func validate() throws {
            if sandbox && production {
                throw ValidationError("--sandbox and --production cannot be used together; without either, both links are printed")
            }
        }

        func run() async throws {
            let appID = try app.id
            let utm = ["utm_source": utmSource, "utm_medium": utmMedium, "utm_campaign": utmCampaign].compactMapValues { $0 }
            let links = try await target.run(
                local: { admin in
                    try await admin.purchaseLinks(
                        appID: appID, productID: product, publicURL: try PublicURL.resolve(publicURL), appUserID: appUserID, utm: utm)
                },
                remote: { admin in
                    let query = Operations.GetProductLinks.Input.Query(
                        appUserId: appUserID, utmSource: utmSource, utmMedium: utmMedium, utmCampaign: utmCampaign)
                    return try await admin.call { try await $0.getProductLinks(path: .init(appId: appID, productId: product), query: query) }
                        .ok.body.json
                })
            if json { return try Output.json(links) }
            var shown: [(label: String, url: String)] = []
            if !sandbox { shown.append(("Production", links.productionURL)) }
            if !production { shown.append(("Sandbox", links.sandboxURL)) }
            for (index, link) in shown.enumerated() {
                // One link alone prints bare, for scripts; both are labelled.
                print(shown.count == 1 ? link.url : "\(link.label):\(link.label == "Sandbox" ? "   " : "") \(link.url)")
                if qr { print(try QRCode(encoding: link.url).terminal()) }
                if qr && index < shown.count - 1 { print("") }
            }
        }
    }

    struct Test: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Print both forms of a link with an invalid token, and a QR code, to check an app's setup.",
            discussion: "Opening either link in the app must show the invalid-link state."
        )
        @OptionGroup var app: AppOption
        @Option(
            help:
                "Public base URL of the server (env \(Setting.publicURL.environmentName); default \(ServerConfiguration.defaultPublicURL.absoluteString))."
        )
        var publicURL: String?
        @OptionGroup var database: DatabaseOptions
        @Flag var json = false

        func run() async throws {
            let app = try await database.withAdmin { try await $0.app(id: try self.app.id) }
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

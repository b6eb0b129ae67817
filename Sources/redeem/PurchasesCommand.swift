import ArgumentParser
import Foundation
import RedeemCore
import RedeemServer

struct Purchases: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Record, list and show purchases; send new links; refund, cancel, resume, switch the plan of or transfer them.",
        subcommands: [Create.self, List.self, Show.self, Link.self, Refund.self, Cancel.self, Resume.self, ChangePlan.self, Transfer.self])

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
        @Option(
            help:
                "Public base URL of the server, for the HTTPS link (env \(Setting.publicURL.environmentName); default \(ServerConfiguration.defaultPublicURL.absoluteString)). With --server, the server's."
        )
        var publicURL: String?
        @OptionGroup var target: AdminTarget
        @Flag var json = false

        func run() async throws {
            let url = try PublicURL.resolve(publicURL)
            let appID = try app.id
            let recorded = try await target.run(
                local: {
                    try await $0.recordPurchase(
                        appID: appID, productID: product, email: email, appUserID: appUserID, sandbox: sandbox, publicURL: url,
                        language: language)
                },
                remote: { try await record(through: $0, appID: appID) })
            if json { return try Output.json(recorded) }
            print("Recorded purchase \(recorded.purchase.id) of \(recorded.purchase.productID).")
            if let https = recorded.redemptionHTTPSURL, let app = recorded.redemptionURL {
                print("Redemption link: \(https)\n            app: \(app)")
            }
        }

        /// Through the server API (`POST /v1/purchases`), which takes the app's secret key, so the app is the key's own:
        /// reading the named app first refuses a key of another app before anything is recorded. The server sends the
        /// receipt when it has e-mail, as for any purchase it records.
        func record(through server: RemoteAdmin, appID: String) async throws -> RecordedPurchase {
            if server.key.hasPrefix(APIKeyKind.admin.prefix) {
                throw ConfigurationError(
                    setting: Setting.adminKey.name,
                    reason: "is the admin key; recording a purchase through --server takes the app's secret key (rdm_sk_…)")
            }
            do {
                _ = try await server.call { try await $0.getApp(path: .init(appId: appID)) }.ok.body.json
            } catch let refusal as RemoteError where refusal.status == 403 {
                throw ConfigurationError(setting: Setting.adminKey.name, reason: "is not the secret key of \(appID), the app the purchase is for")
            }
            let body = Schemas.GrantRequest(
                appUserId: appUserID ?? AppUserID.anonymous().rawValue, productId: product, store: .external, isSandbox: sandbox, email: email,
                language: language)
            // A new key per command: running it twice records two purchases, as the local command does.
            let answer = try await server.call {
                try await $0.createPurchase(headers: .init(idempotencyKey: UUID().uuidString), body: .json(body))
            }.created.body.json
            return RecordedPurchase(
                purchase: answer.purchase, redemptionURL: answer.redemptionUrl, redemptionHTTPSURL: answer.redemptionHttpsUrl,
                redemptionExpiresAt: answer.redemptionExpiresAt.flatMap(ISODate.parse))
        }
    }
}

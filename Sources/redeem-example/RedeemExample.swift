import ArgumentParser
import Foundation
import RedeemKit

/// Redeems one link for one app user, the way an app does when it is opened with the link.
struct RedeemExample: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "redeem-example",
        abstract: "Redeem a web purchase link with RedeemKit and print the outcome and the active entitlements.",
        discussion: "Exits with 0 when the purchase was redeemed, 1 otherwise."
    )

    @Option(help: "The Redeem server, e.g. https://pay.example.com (http:// for a local server).")
    var baseURL: String

    @Option(help: "A public API key of the app (public_sandbox or public_production).")
    var apiKey: String

    @Option(name: .customLong("app-user-id"), help: "The app user to redeem for. Default: a persisted anonymous ID.")
    var appUserID: String?

    @Option(help: "Where RedeemKit keeps its files (app user ID, cached customer info). Default: RedeemKit's own directory.")
    var storage: String?

    @Argument(help: "The link: <scheme>://redeem_web_purchase?redemption_token=… or <base-url>/r/<token>.")
    var link: String

    func validate() throws {
        guard server != nil else {
            throw ValidationError("--base-url must be an absolute http(s) URL, e.g. https://pay.example.com")
        }
        if let appUserID, appUserID.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty {
            throw ValidationError("--app-user-id must not be blank")
        }
    }

    func run() async throws {
        guard let server else { throw ValidationError("--base-url is not a URL") }
        let redeem = Redeem(
            configuration: Redeem.Configuration(
                apiKey: apiKey,
                baseURL: server,
                appUserID: appUserID,
                storageDirectory: storage.map { URL(fileURLWithPath: $0, isDirectory: true) }
                    ?? Redeem.Configuration.defaultStorageDirectory,
                refreshOnConfigure: false
            ))
        print("App user: \(redeem.appUserID)")

        guard let url = URL(string: link.trimmingCharacters(in: .whitespacesAndNewlines)),
            let redemption = redeem.webPurchaseRedemption(from: url)
        else {
            print(OutcomeMessage.notALink(baseURL: server))
            throw ExitCode.failure
        }

        let result = await redeem.redeemWebPurchase(redemption)
        print(OutcomeMessage.line(for: result))
        print(EntitlementLines.describe(await customerInfo(after: result, redeem: redeem)))
        if !result.isSuccess { throw ExitCode.failure }
    }

    private var server: URL? {
        guard let url = URL(string: baseURL), let scheme = url.scheme?.lowercased(),
            scheme == "https" || scheme == "http", url.host != nil
        else { return nil }
        return url
    }

    /// The info a result carries; otherwise the server's current view (or, after a failure, the cache).
    private func customerInfo(after result: WebPurchaseRedemptionResult, redeem: Redeem) async -> CustomerInfo? {
        switch result {
        case .success(let info, _), .expiredSubscription(let info):
            return info
        case .error:
            return await redeem.cachedCustomerInfo()
        case .invalidToken, .purchaseBelongsToOtherUser, .expired:
            return try? await redeem.customerInfo()
        }
    }
}

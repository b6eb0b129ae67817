import Foundation
import RedeemKit
import Testing

/// The app installed on one device, signed in as one app user: a RedeemKit instance with its own
/// storage directory (removed when the device goes away).
final class TestDevice: Sendable {
    let sdk: Redeem
    private let directory: URL

    init(baseURL: URL, apiKey: String, appUserID: String, clock: any RedeemClock = SystemClock()) {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("redeemkit-it-\(UUID().uuidString)")
        sdk = Redeem(
            configuration: Redeem.Configuration(
                apiKey: apiKey,
                baseURL: baseURL,
                appUserID: appUserID,
                redemptionLinkHosts: [TestShop.publicHost],
                storageDirectory: directory,
                keyValueStorage: InMemoryStorage(),
                clock: clock,
                refreshOnConfigure: false
            ))
    }

    deinit { try? FileManager.default.removeItem(at: directory) }

    /// Parses `link` with RedeemKit's parser and redeems it, as the app does when opened with it.
    func open(_ link: URL) async throws -> WebPurchaseRedemptionResult {
        let redemption = try #require(sdk.webPurchaseRedemption(from: link), "RedeemKit did not take \(link) for a redemption link")
        return await sdk.redeemWebPurchase(redemption)
    }
}

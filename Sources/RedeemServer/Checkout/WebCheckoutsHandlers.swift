import Foundation
import RedeemCore
import RedeemStore

/// The JSON purchase API for web apps that build their own checkout, like RevenueCat's Web SDK: start a checkout, send
/// the buyer to its URL, poll its status, and present `redemption_info` yourself.
extension APIHandlers {
    func startWebCheckout(_ input: Operations.StartWebCheckout.Input) async throws -> Operations.StartWebCheckout.Output {
        let context = try self.context
        guard case .json(let request) = input.body else { throw APIError.badRequest("A JSON body is required.") }
        let state = try await deps.webCheckouts.start(
            .init(
                productID: request.productId, appUserID: request.appUserId, email: request.email,
                metadata: request.metadata?.additionalProperties ?? [:], language: request.language,
                acceptLanguage: input.headers.acceptLanguage),
            appID: try context.sdkAppID(), sandbox: context.key?.kind == .publicSandbox
        )
        return .created(.init(body: .json(WebCheckoutStatus(state))))
    }

    /// The checkout's state; once it has succeeded, a fresh single-use redemption link on every call.
    func getWebCheckout(_ input: Operations.GetWebCheckout.Input) async throws -> Operations.GetWebCheckout.Output {
        let state = try await deps.webCheckouts.state(appID: try context.sdkAppID(), id: input.path.checkoutId)
        return .ok(.init(body: .json(WebCheckoutStatus(state))))
    }
}

/// A succeeded checkout's fresh redemption link.
struct WebCheckoutRedemptionInfo: Encodable, Hashable, Sendable {
    let redemptionURL: String
    let redemptionHTTPSURL: String
    let expiresAt: Date

    enum CodingKeys: String, CodingKey {
        case redemptionURL = "redemption_url"
        case redemptionHTTPSURL = "redemption_https_url"
        case expiresAt = "expires_at"
    }
}

/// A web checkout as the API shows it.
struct WebCheckoutStatus: Encodable, Hashable, Sendable {
    let id: String
    let status: WebCheckout.Status
    let isSandbox: Bool
    var checkoutURL: String?
    var purchaseID: String?
    var redemptionInfo: WebCheckoutRedemptionInfo?

    enum CodingKeys: String, CodingKey {
        case id, status
        case isSandbox = "is_sandbox"
        case checkoutURL = "checkout_url"
        case purchaseID = "purchase_id"
        case redemptionInfo = "redemption_info"
    }
}

extension WebCheckoutStatus {
    init(_ state: WebCheckoutService.State) {
        self.init(
            id: state.checkout.id, status: state.checkout.status, isSandbox: state.checkout.isSandbox, checkoutURL: state.checkoutURL,
            purchaseID: state.purchaseID,
            redemptionInfo: state.link.map {
                .init(redemptionURL: $0.customSchemeURL, redemptionHTTPSURL: $0.httpsURL, expiresAt: $0.expiresAt)
            }
        )
    }
}

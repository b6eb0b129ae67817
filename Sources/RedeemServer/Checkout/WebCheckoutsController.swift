import Foundation
import Hummingbird
import RedeemCore
import RedeemStore

/// Routes of the JSON purchase API for web apps that build their own checkout, like RevenueCat's Web SDK:
/// start a checkout, send the buyer to its URL, poll its status, and present `redemption_info` yourself.
struct WebCheckoutsController {
    let service: WebCheckoutService

    func addRoutes(to group: RouterGroup<AppRequestContext>) {
        group.post("/web_checkouts", use: start)
        group.get("/web_checkouts/{checkout_id}", use: status)
    }

    struct StartRequest: Decodable {
        let productID: String
        let appUserID: String?
        let email: String?
        let metadata: [String: String]?

        enum CodingKeys: String, CodingKey {
            case email, metadata
            case productID = "product_id"
            case appUserID = "app_user_id"
        }
    }

    struct RedemptionInfo: Encodable {
        let redemptionURL: String
        let redemptionHTTPSURL: String
        let expiresAt: Date

        enum CodingKeys: String, CodingKey {
            case redemptionURL = "redemption_url"
            case redemptionHTTPSURL = "redemption_https_url"
            case expiresAt = "expires_at"
        }
    }

    struct Status: Encodable {
        let id: String
        let status: WebCheckout.Status
        let isSandbox: Bool
        var checkoutURL: String?
        var purchaseID: String?
        var redemptionInfo: RedemptionInfo?

        enum CodingKeys: String, CodingKey {
            case id, status
            case isSandbox = "is_sandbox"
            case checkoutURL = "checkout_url"
            case purchaseID = "purchase_id"
            case redemptionInfo = "redemption_info"
        }
    }

    @Sendable func start(_ request: Request, context: AppRequestContext) async throws -> JSONResponse<Status> {
        let input = try await request.decodeJSON(StartRequest.self, context: context)
        let state = try await service.start(
            .init(productID: input.productID, appUserID: input.appUserID, email: input.email, metadata: input.metadata ?? [:]),
            appID: try context.sdkAppID(), sandbox: context.key?.kind == .publicSandbox
        )
        return JSONResponse(Status(state), status: .created)
    }

    /// The checkout's state; once it has succeeded, a fresh single-use redemption link on every call.
    @Sendable func status(_ request: Request, context: AppRequestContext) async throws -> JSONResponse<Status> {
        JSONResponse(Status(try await service.state(appID: try context.sdkAppID(), id: try context.parameters.decoded("checkout_id"))))
    }
}

extension WebCheckoutsController.Status {
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

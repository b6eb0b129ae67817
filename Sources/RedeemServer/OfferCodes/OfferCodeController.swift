import Foundation
import Hummingbird
import RedeemCore
import RedeemStore

/// `POST /v1/subscribers/redeem_offer_code`: an offer code typed in the app.
struct OfferCodeController {
    let service: OfferCodeService

    func addRoutes(to group: RouterGroup<AppRequestContext>) {
        group.post("/subscribers/redeem_offer_code", use: redeem)
    }

    struct RedeemRequest: Decodable {
        let appUserID: String
        let code: String

        enum CodingKeys: String, CodingKey {
            case code
            case appUserID = "app_user_id"
        }
    }

    @Sendable func redeem(_ request: Request, context: AppRequestContext) async throws -> Response {
        let appID = try context.sdkAppID()
        let input = try await request.decodeJSON(RedeemRequest.self, context: context)
        let claimant = try AppUserID.parse(input.appUserID)
        let sandbox = context.key?.kind == .publicSandbox
        switch try await service.redeemInApp(appID: appID, code: input.code, claimant: claimant, sandbox: sandbox, ip: context.remoteIP) {
        case .success(let (redemption, info)):
            return try JSONResponse(CustomerInfoWith(info, "offer_redemption", OfferRedemptionInfo(redemption)))
                .response(from: request, context: context)
        case .failure(let refusal):
            var error = APIError(refusal.failure.errorCode, refusal.failure.message)
            if let url = refusal.redeemURL { error.extra["redeem_url"] = url }
            return try error.response(from: request, context: context)
        }
    }
}

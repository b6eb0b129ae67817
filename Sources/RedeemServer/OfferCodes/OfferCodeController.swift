import Hummingbird
import RedeemCore

/// `POST /v1/subscribers/redeem_offer_code`: an offer code typed in the app. Written by hand for the same reason as
/// `RedeemPurchaseController`: its answer is CustomerInfo, written by `JSONWriter` rather than `JSONEncoder`.
struct OfferCodeController {
    let deps: ServerDependencies

    func addRoutes(to group: RouterGroup<AppRequestContext>) {
        group.post("/subscribers/redeem_offer_code", use: redeem)
    }

    @Sendable func redeem(_ request: Request, context: AppRequestContext) async throws -> Response {
        let appID = try context.sdkAppID()
        let body = try await request.decodeRequiredJSON(Components.Schemas.OfferCodeRequest.self, context: context)
        let claimant = try AppUserID.parse(body.appUserId)
        let sandbox = context.key?.kind == .publicSandbox
        switch try await deps.offerCodes.redeemInApp(appID: appID, code: body.code, claimant: claimant, sandbox: sandbox, ip: context.remoteIP) {
        case .success(let (redemption, info)):
            let answer = CustomerInfoWith(deps.managed(info, appID: appID), "offer_redemption", OfferRedemptionInfo(redemption))
            return WrittenJSON(answer).response()
        case .failure(let refusal):
            var error = APIError(refusal.failure.errorCode, refusal.failure.message)
            if let url = refusal.redeemURL { error.extra["redeem_url"] = url }
            throw error
        }
    }
}

/// `redeem_offer_code`'s success body: CustomerInfo plus `offer_redemption`.
typealias OfferCodeSuccess = CustomerInfoWith<OfferRedemptionInfo>

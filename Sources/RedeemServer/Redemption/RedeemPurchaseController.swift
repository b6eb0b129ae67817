import Hummingbird
import RedeemCore

/// `POST /v1/subscribers/redeem_purchase`: a redemption link opened in the app (RevenueCat's wire format). Written by
/// hand, not generated: its answer is written with `JSONWriter`, since `JSONEncoder` cost 12–15% of the server's CPU per
/// redemption. The request is the generated `RedeemRequest`; the contract tests hold the route to openapi.yaml.
struct RedeemPurchaseController {
    let deps: ServerDependencies

    func addRoutes(to group: RouterGroup<AppRequestContext>) {
        group.post("/subscribers/redeem_purchase", use: redeem)
    }

    @Sendable func redeem(_ request: Request, context: AppRequestContext) async throws -> Response {
        let appID = try context.sdkAppID()
        let body = try await request.decodeRequiredJSON(Components.Schemas.RedeemRequest.self, context: context)
        let claimant = try AppUserID.parse(body.appUserId)
        let reply = try await deps.redemption.redeem(appID: appID, token: body.redemptionToken, claimant: claimant, ip: context.remoteIP)
        switch reply {
        case .success(let info, let redemption):
            return WrittenJSON(CustomerInfoWith(deps.managed(info, appID: appID), "redemption_info", redemption)).response()
        case .subscriptionExpired(let info):
            let failure = try RedemptionReply.subscriptionExpired(deps.managed(info, appID: appID)).failure
            return try JSONResponse(failure, status: .forbidden).response(from: request, context: context)
        case .expired: return try JSONResponse(try reply.failure, status: .forbidden).response(from: request, context: context)
        case .invalid, .otherApp, .belongsToOtherUser, .offerRefused: throw reply.error
        }
    }
}

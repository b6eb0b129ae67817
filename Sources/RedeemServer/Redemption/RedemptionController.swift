import Foundation
import Hummingbird
import RedeemCore
import RedeemStore

/// `POST /v1/subscribers/redeem_purchase`: a redemption link opened in the app, RevenueCat's wire format.
struct RedemptionController {
    let service: RedemptionService

    func addRoutes(to group: RouterGroup<AppRequestContext>) {
        group.post("/subscribers/redeem_purchase", use: redeem)
        group.post("/redemption_links/request", use: requestNewLink)
    }

    struct RedeemRequest: Decodable {
        let appUserID: String
        let redemptionToken: String

        enum CodingKeys: String, CodingKey {
            case appUserID = "app_user_id"
            case redemptionToken = "redemption_token"
        }
    }

    @Sendable func redeem(_ request: Request, context: AppRequestContext) async throws -> Response {
        let appID = try context.sdkAppID()
        let input = try await request.decodeJSON(RedeemRequest.self, context: context)
        let claimant = try AppUserID.parse(input.appUserID)
        let reply = try await service.redeem(appID: appID, token: input.redemptionToken, claimant: claimant, ip: context.remoteIP)
        return try reply.response(from: request, context: context)
    }
}

extension RedemptionController {
    struct NewLinkRequest: Decodable { let email: String }
    struct Accepted: Encodable { let status = "accepted" }

    /// `POST /v1/redemption_links/request`: e-mails a new link for each of the app's purchases billed to `email`.
    /// The answer is the same whether or not the address has purchases, so it reveals nothing.
    @Sendable func requestNewLink(_ request: Request, context: AppRequestContext) async throws -> JSONResponse<Accepted> {
        let appID = try context.sdkAppID()
        let input = try await request.decodeJSON(NewLinkRequest.self, context: context)
        try await service.requestNewLinks(appID: appID, email: input.email, ip: context.remoteIP)
        return JSONResponse(Accepted(), status: .accepted)
    }
}

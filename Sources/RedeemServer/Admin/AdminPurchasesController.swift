import Foundation
import Hummingbird
import RedeemCore
import RedeemStore

/// `/admin/v1/apps/{app_id}/purchases/{purchase_id}`: a purchase and the history of its redemption links, for support.
struct AdminPurchasesController {
    let admin: AdminService
    let store: any AdminStore

    func addRoutes(to group: RouterGroup<AppRequestContext>) {
        group.get("/apps/{app_id}/purchases/{purchase_id}", use: show)
    }

    struct Detail: Encodable {
        let purchase: Purchase
        let redemptionAttempts: [RedemptionAttempt]

        enum CodingKeys: String, CodingKey {
            case purchase
            case redemptionAttempts = "redemption_attempts"
        }
    }

    @Sendable func show(_ request: Request, context: AppRequestContext) async throws -> JSONResponse<Detail> {
        let appID = try await admin.authorizedAppID(context)
        let purchaseID = try context.parameters.decoded("purchase_id")
        let purchase = try await store.purchase(appID: appID, id: purchaseID)
        return JSONResponse(Detail(purchase: purchase, redemptionAttempts: try await store.redemptionAttempts(appID: appID, purchaseID: purchaseID)))
    }
}

import Foundation
import Hummingbird
import RedeemCore

/// The SDK's CustomerInfo route, in RevenueCat's wire format.
struct CustomerInfoController {
    let service: CustomerInfoService

    func addRoutes(to group: RouterGroup<AppRequestContext>) {
        group.get("/subscribers/{app_user_id}", use: customerInfo)
    }

    @Sendable func customerInfo(_ request: Request, context: AppRequestContext) async throws -> CustomerInfoResponse {
        let appID = try context.sdkAppID()
        let appUserID = try AppUserID.parse(try context.parameters.decoded("app_user_id"))
        return try await service.customerInfo(appID: appID, appUserID: appUserID, withAttributes: context.key?.kind == .secret)
    }
}

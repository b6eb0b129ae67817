import Foundation
import Hummingbird
import RedeemCore
import RedeemStore

/// The SDK's CustomerInfo route, in RevenueCat's wire format.
struct SubscribersController<Store: RedeemStore> {
    let store: Store
    let clock: any RedeemClock

    func addRoutes(to group: RouterGroup<AppRequestContext>) {
        group.get("/subscribers/{app_user_id}", use: customerInfo)
    }

    @Sendable func customerInfo(_ request: Request, context: AppRequestContext) async throws -> JSONResponse<CustomerInfo> {
        let appID = try context.sdkAppID()
        let appUserID = try AppUserID.parse(try context.parameters.decoded("app_user_id"))
        return JSONResponse(try await store.customerInfo(appID: appID, appUserID: appUserID, now: clock.now()))
    }
}

extension AppUserID {
    /// Validates a client-sent ID, as a 400 with RevenueCat's invalid-app-user-ID code.
    static func parse(_ string: String) throws -> AppUserID {
        do { return try AppUserID(validating: string) } catch { throw APIError.invalidAppUserID(error) }
    }
}

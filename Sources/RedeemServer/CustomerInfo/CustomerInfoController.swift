import Foundation
import Hummingbird
import RedeemCore
import RedeemStore

/// The SDK's CustomerInfo route, in RevenueCat's wire format.
struct CustomerInfoController {
    let store: any CustomerInfoStore
    let clock: any RedeemClock
    let cache: CustomerInfoCache

    func addRoutes(to group: RouterGroup<AppRequestContext>) {
        group.get("/subscribers/{app_user_id}", use: customerInfo)
    }

    @Sendable func customerInfo(_ request: Request, context: AppRequestContext) async throws -> CustomerInfoResponse {
        let appID = try context.sdkAppID()
        let appUserID = try AppUserID.parse(try context.parameters.decoded("app_user_id"))
        let now = clock.now()
        let key = CustomerInfoCache.Key(appID: appID, appUserID: appUserID.rawValue)
        let token = try await store.changeToken()
        if let token, let subscriber = cache.lookup(key, token: token, now: now) {
            return CustomerInfoResponse(requestDate: now, subscriber: subscriber)
        }
        let info = try await store.customerInfo(appID: appID, appUserID: appUserID, now: now)
        let subscriber = try CustomerInfoResponse.render(info.subscriber)
        if let token { cache.store(key, token: token, info: info, subscriber: subscriber) }
        return CustomerInfoResponse(requestDate: now, subscriber: subscriber)
    }
}

extension AppUserID {
    /// Validates a client-sent ID, as a 400 with RevenueCat's invalid-app-user-ID code.
    static func parse(_ string: String) throws -> AppUserID {
        do { return try AppUserID(validating: string) } catch { throw APIError.invalidAppUserID(error) }
    }
}

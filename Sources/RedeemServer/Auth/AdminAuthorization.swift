import Hummingbird
import RedeemStore

extension AdminService {
    /// The `{app_id}` of an admin route, once the key may manage it and the app exists.
    func authorizedAppID(_ context: AppRequestContext) async throws -> String {
        let appID = try context.parameters.decoded("app_id")
        try context.requireAdmin(appID: appID)
        _ = try await store.app(id: appID)
        return appID
    }
}

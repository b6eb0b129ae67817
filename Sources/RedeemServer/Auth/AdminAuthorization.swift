import Hummingbird
import RedeemStore

extension AdminService {
    /// `appID`, once the request's key may manage it and the app exists.
    func authorized(appID: String, _ context: AppRequestContext) async throws -> String {
        try context.requireAdmin(appID: appID)
        _ = try await store.app(id: appID)
        return appID
    }
}

import Foundation
import HTTPTypes
import Hummingbird
import RedeemCore

/// RevenueCat's `GET /v1/subscribers/{id}/offerings` and `GET /v1/product_entitlement_mapping`, written from the
/// per-app cache (`OfferingsService`) rather than through a generated handler's encoder.
struct OfferingsController {
    let service: OfferingsService

    func addRoutes(to group: RouterGroup<AppRequestContext>) {
        group.get("/subscribers/{app_user_id}/offerings", use: offerings)
        group.get("/product_entitlement_mapping", use: mapping)
    }

    @Sendable func offerings(_ request: Request, context: AppRequestContext) async throws -> Response {
        let appID = try context.sdkAppID()
        let user = try AppUserID.parse(try context.parameters.decoded("app_user_id"))
        let platform = StorePlatform(xPlatform: request.headers[Self.platformHeader])
        let bytes = try await service.offerings(
            appID: appID, appUserID: user.rawValue, platform: platform, sandbox: context.key?.kind == .publicSandbox)
        return Self.json(bytes)
    }

    @Sendable func mapping(_ request: Request, context: AppRequestContext) async throws -> Response {
        Self.json(try await service.productEntitlementMapping(appID: try context.sdkAppID()))
    }

    static let platformHeader = HTTPField.Name("X-Platform")!

    /// The cached buffer itself: a `ByteBuffer` shares its storage, so no request copies the document.
    static func json(_ bytes: ByteBuffer) -> Response {
        Response(status: .ok, headers: [.contentType: "application/json"], body: .init(byteBuffer: bytes))
    }
}

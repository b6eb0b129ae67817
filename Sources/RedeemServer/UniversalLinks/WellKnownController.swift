import Foundation
import Hummingbird
import RedeemCore
import RedeemStore

/// The association files that make `https://<host>/r/<token>` open the app when it is installed:
/// Apple's `apple-app-site-association` and Android's `assetlinks.json`, built from every app's settings.
struct WellKnownController {
    let store: any UniversalLinkStore

    func addRoutes(to router: Router<AppRequestContext>) {
        router.get("/.well-known/apple-app-site-association", use: appleAppSiteAssociation)
        router.get("/.well-known/assetlinks.json", use: assetLinks)
    }

    @Sendable func appleAppSiteAssociation(_ request: Request, context: AppRequestContext) async throws -> Response {
        let details: [[String: Any]] = try await store.apps().compactMap { app in
            guard let team = app.iosTeamID, let bundle = app.iosBundleID else { return nil }
            let appID = "\(team).\(bundle)"
            // `appIDs` + `components` for iOS 13+, `appID` + `paths` for older systems.
            return [
                "appIDs": [appID], "components": [["/": "/r/*", "comment": "Redeem redemption links"]],
                "appID": appID, "paths": ["/r/*"],
            ]
        }
        return try Self.json(["applinks": ["apps": [String](), "details": details]])
    }

    @Sendable func assetLinks(_ request: Request, context: AppRequestContext) async throws -> Response {
        let statements: [[String: Any]] = try await store.apps().compactMap { app in
            guard let package = app.androidPackageName, !app.androidCertFingerprints.isEmpty else { return nil }
            return [
                "relation": ["delegate_permission/common.handle_all_urls"],
                "target": ["namespace": "android_app", "package_name": package, "sha256_cert_fingerprints": app.androidCertFingerprints],
            ]
        }
        return try Self.json(statements)
    }

    static func json(_ object: Any) throws -> Response {
        let data = try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])
        return Response(status: .ok, headers: [.contentType: "application/json"], body: .init(byteBuffer: ByteBuffer(bytes: data)))
    }
}

import Foundation
import RedeemCore

/// The association files' contents, built from every app's settings: Apple's `apple-app-site-association` and
/// Android's `assetlinks.json`, as each platform documents them.
struct AssociationFiles: Sendable {
    let store: any UniversalLinkStore

    struct Apple: Encodable {
        struct Links: Encodable {
            let apps: [String]
            let details: [Detail]
        }

        struct Detail: Encodable {
            let appIDs: [String]
            let components: [Component]
            let appID: String
            let paths: [String]
        }

        struct Component: Encodable {
            let path: String
            let comment: String

            enum CodingKeys: String, CodingKey {
                case path = "/"
                case comment
            }
        }

        let applinks: Links
    }

    struct AndroidStatement: Encodable {
        struct Target: Encodable {
            let namespace: String
            let packageName: String
            let sha256CertFingerprints: [String]

            enum CodingKeys: String, CodingKey {
                case namespace
                case packageName = "package_name"
                case sha256CertFingerprints = "sha256_cert_fingerprints"
            }
        }

        let relation: [String]
        let target: Target
    }

    /// `appIDs` + `components` for iOS 13+, `appID` + `paths` for older systems.
    func apple() async throws -> Apple {
        let details = try await store.apps().compactMap { app -> Apple.Detail? in
            guard let team = app.iosTeamID, let bundle = app.iosBundleID else { return nil }
            let appID = "\(team).\(bundle)"
            return Apple.Detail(
                appIDs: [appID], components: [Apple.Component(path: "/r/*", comment: "Redeem redemption links")], appID: appID, paths: ["/r/*"])
        }
        return Apple(applinks: Apple.Links(apps: [], details: details))
    }

    func android() async throws -> [AndroidStatement] {
        try await store.apps().compactMap { app in
            guard let package = app.androidPackageName, !app.androidCertFingerprints.isEmpty else { return nil }
            return AndroidStatement(
                relation: ["delegate_permission/common.handle_all_urls"],
                target: .init(namespace: "android_app", packageName: package, sha256CertFingerprints: app.androidCertFingerprints))
        }
    }
}

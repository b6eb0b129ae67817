import Foundation
import Hummingbird

/// The association files that make `https://<host>/r/<token>` open the app when it is installed.
struct WellKnownController {
    let files: AssociationFiles

    func addRoutes(to router: Router<AppRequestContext>) {
        router.get("/.well-known/apple-app-site-association") { _, _ in try Self.json(try await files.apple()) }
        router.get("/.well-known/assetlinks.json") { _, _ in try Self.json(try await files.android()) }
    }

    static func json(_ value: some Encodable) throws -> Response {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let data = try encoder.encode(value)
        return Response(status: .ok, headers: [.contentType: "application/json"], body: .init(byteBuffer: ByteBuffer(bytes: data)))
    }
}

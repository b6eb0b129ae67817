import Foundation
import Hummingbird

/// `GET /assets/{file}`: the few static files Redeem ships (the demo app's icon), read once at start.
struct AssetsController {
    let files: [String: (body: ByteBuffer, type: String)]

    static func load() throws -> AssetsController {
        guard let directory = Bundle.module.url(forResource: "assets", withExtension: nil, subdirectory: "Resources") else {
            throw ConfigurationError(setting: "assets", reason: "are missing from the RedeemServer bundle")
        }
        var files: [String: (ByteBuffer, String)] = [:]
        for name in try FileManager.default.contentsOfDirectory(atPath: directory.path) {
            let type =
                switch (name as NSString).pathExtension {
                case "svg": "image/svg+xml"
                case "png": "image/png"
                default: "application/octet-stream"
                }
            files[name] = (ByteBuffer(bytes: Array(try Data(contentsOf: directory.appendingPathComponent(name)))), type)
        }
        return AssetsController(files: files)
    }

    func addRoutes(to router: Router<AppRequestContext>) {
        router.get("/assets/{file}", use: file)
    }

    @Sendable func file(_ request: Request, context: AppRequestContext) async throws -> Response {
        guard let file = files[try context.parameters.require("file")] else { throw APIError.notFound("No such asset.") }
        return Response(
            status: .ok,
            headers: [
                .contentType: file.type, .cacheControl: "public, max-age=86400", .init("X-Content-Type-Options")!: "nosniff",
                // An SVG opened on its own runs nothing.
                .contentSecurityPolicy: "default-src 'none'; style-src 'unsafe-inline'",
            ],
            body: .init(byteBuffer: file.body))
    }
}

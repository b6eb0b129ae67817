import Foundation
import Hummingbird

/// Serves the OpenAPI 3.1 document that describes every route.
struct OpenAPIController {
    let document: ByteBuffer

    init() throws {
        guard let url = Bundle.module.url(forResource: "openapi", withExtension: "json", subdirectory: "Resources") else {
            throw ConfigurationError(setting: "openapi.json", reason: "is missing from the RedeemServer bundle")
        }
        self.document = ByteBuffer(bytes: try Data(contentsOf: url))
    }

    func addRoutes(to router: Router<AppRequestContext>) {
        router.get("/openapi.json", use: serve)
    }

    @Sendable func serve(_ request: Request, context: AppRequestContext) -> Response {
        Response(status: .ok, headers: [.contentType: "application/json"], body: .init(byteBuffer: document))
    }
}

import Foundation
import Hummingbird
import Yams

/// Serves the OpenAPI 3.1 document, written as `Resources/openapi.yaml` (the contract's source), as JSON.
struct OpenAPIController {
    let document: ByteBuffer

    init() throws {
        self.document = try Self.bundled.get()
    }

    /// Read once per process: the document is a quarter of a megabyte of YAML, and every router built (each test's
    /// server among them) serves the same bytes.
    private static let bundled = Result<ByteBuffer, any Error> {
        guard let url = Bundle.module.url(forResource: "openapi", withExtension: "yaml", subdirectory: "Resources") else {
            throw ConfigurationError(setting: "openapi.yaml", reason: "is missing from the RedeemServer bundle")
        }
        return ByteBuffer(bytes: try json(fromYAML: String(contentsOf: url, encoding: .utf8)))
    }

    /// The YAML document as JSON, keys sorted so the answer is the same on every start.
    static func json(fromYAML yaml: String) throws -> Data {
        guard let object = try Yams.load(yaml: yaml) else {
            throw ConfigurationError(setting: "openapi.yaml", reason: "is empty")
        }
        return try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])
    }

    func addRoutes(to router: Router<AppRequestContext>) {
        router.get("/openapi.json", use: serve)
    }

    @Sendable func serve(_ request: Request, context: AppRequestContext) -> Response {
        Response(status: .ok, headers: [.contentType: "application/json"], body: .init(byteBuffer: document))
    }
}

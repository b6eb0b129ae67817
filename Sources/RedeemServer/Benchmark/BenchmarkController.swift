import Foundation
import Hummingbird
import RedeemCore
import RedeemStore

/// `POST /v1/benchmark/baseline` (only with `--benchmark-routes`): the redemption benchmark's yardstick, the same
/// request and authentication as a redemption but a single `UPDATE … RETURNING` on the token table.
struct BenchmarkController {
    let store: any BenchmarkStore

    func addRoutes(to group: RouterGroup<AppRequestContext>) {
        group.post("/benchmark/baseline", use: baseline)
    }

    struct Body: Decodable {
        let redemptionToken: String
        enum CodingKeys: String, CodingKey { case redemptionToken = "redemption_token" }
    }

    struct Reply: Encodable { let found: Bool }

    @Sendable func baseline(_ request: Request, context: AppRequestContext) async throws -> JSONResponse<Reply> {
        _ = try context.sdkAppID()
        let body = try await request.decodeJSON(Body.self, context: context)
        return JSONResponse(Reply(found: try await store.benchmarkBaseline(tokenHash: SecretToken.hash(body.redemptionToken))))
    }
}

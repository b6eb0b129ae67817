import Foundation
import Hummingbird
import RedeemCore
import RedeemStore

/// The redemption benchmark's yardsticks (only with `--benchmark-routes`), with the same request and authentication as
/// a redemption: `POST /v1/benchmark/baseline` runs a single `UPDATE … RETURNING` on the token table;
/// `POST /v1/benchmark/same-writes` makes the writes a redemption makes, with no reads, rules or JSON answer: its
/// rate-limit hits (as the redemption counts them, before its own writes), then its rows in one transaction.
struct BenchmarkController {
    let service: BenchmarkService

    func addRoutes(to group: RouterGroup<AppRequestContext>) {
        group.post("/benchmark/baseline", use: baseline)
        group.post("/benchmark/same-writes", use: sameWrites)
    }

    struct Body: Decodable {
        let redemptionToken: String
        let appUserID: String?
        enum CodingKeys: String, CodingKey {
            case redemptionToken = "redemption_token"
            case appUserID = "app_user_id"
        }
    }

    struct Reply: Encodable { let found: Bool }

    @Sendable func baseline(_ request: Request, context: AppRequestContext) async throws -> JSONResponse<Reply> {
        _ = try context.sdkAppID()
        let body = try await request.decodeJSON(Body.self, context: context)
        return JSONResponse(Reply(found: try await service.baseline(token: body.redemptionToken)))
    }

    @Sendable func sameWrites(_ request: Request, context: AppRequestContext) async throws -> JSONResponse<Reply> {
        let appID = try context.sdkAppID()
        let body = try await request.decodeJSON(Body.self, context: context)
        let found = try await service.sameWrites(appID: appID, token: body.redemptionToken, appUserID: body.appUserID, ip: context.remoteIP)
        return JSONResponse(Reply(found: found))
    }
}

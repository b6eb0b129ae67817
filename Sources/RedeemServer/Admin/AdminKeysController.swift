import Foundation
import Hummingbird
import RedeemCore
import RedeemStore

/// `/admin/v1/apps/{app_id}/keys`: create (shown once), list (never the plaintext), revoke.
struct AdminKeysController {
    let admin: AdminService

    func addRoutes(to group: RouterGroup<AppRequestContext>) {
        group.post("/apps/{app_id}/keys", use: create)
        group.get("/apps/{app_id}/keys", use: list)
        group.delete("/apps/{app_id}/keys/{key_id}", use: revoke)
    }

    struct KeyRequest: Decodable {
        let kind: String
        let label: String?
    }
    struct KeyList: Encodable { let keys: [APIKey] }

    @Sendable func create(_ request: Request, context: AppRequestContext) async throws -> JSONResponse<CreatedKey> {
        let appID = try await admin.authorizedAppID(context)
        let input = try await request.decodeAdminJSON(KeyRequest.self, context: context)
        return JSONResponse(try await admin.createKey(appID: appID, kind: input.kind, label: input.label), status: .created)
    }

    @Sendable func list(_ request: Request, context: AppRequestContext) async throws -> JSONResponse<KeyList> {
        JSONResponse(KeyList(keys: try await admin.store.keys(appID: try await admin.authorizedAppID(context))))
    }

    @Sendable func revoke(_ request: Request, context: AppRequestContext) async throws -> HTTPResponse.Status {
        let appID = try await admin.authorizedAppID(context)
        try await admin.revokeKey(id: try context.parameters.decoded("key_id"), appID: appID)
        return .noContent
    }
}

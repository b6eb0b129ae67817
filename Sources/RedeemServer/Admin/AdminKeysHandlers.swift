import RedeemCore

/// `/admin/v1/apps/{app_id}/keys`: create (shown once), list (never the plaintext), revoke.
extension APIHandlers {
    func createKey(_ input: Operations.CreateKey.Input) async throws -> Operations.CreateKey.Output {
        let appID = try await admin.authorized(appID: input.path.appId, context)
        guard case .json(let request) = input.body else { throw APIError.badRequest("A JSON body is required.") }
        let key = try await admin.createKey(appID: appID, kind: request.kind, label: request.label)
        return .created(.init(body: .json(key)))
    }

    func listKeys(_ input: Operations.ListKeys.Input) async throws -> Operations.ListKeys.Output {
        let appID = try await admin.authorized(appID: input.path.appId, context)
        return .ok(.init(body: .json(.init(keys: try await admin.keys(appID: appID)))))
    }

    func revokeKey(_ input: Operations.RevokeKey.Input) async throws -> Operations.RevokeKey.Output {
        let appID = try await admin.authorized(appID: input.path.appId, context)
        try await admin.revokeKey(id: input.path.keyId, appID: appID)
        return .noContent(.init())
    }
}

/// `POST …/keys`: the kind is read as text so an unknown one is a 422 naming the field, as for every other field.
struct KeyRequest: Codable, Hashable, Sendable {
    let kind: String
    let label: String?
}

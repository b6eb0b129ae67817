import RedeemCore

/// `/admin/v1/apps`: create, read, update and list apps.
extension APIHandlers {
    func createApp(_ input: Operations.CreateApp.Input) async throws -> Operations.CreateApp.Output {
        try context.requireAdmin(appID: nil)
        guard case .json(let changes) = input.body else { throw APIError.badRequest("A JSON body is required.") }
        return .created(.init(body: .json(try await admin.createApp(changes))))
    }

    /// An app's secret key lists its own app only; the admin key lists every app.
    func listApps(_ input: Operations.ListApps.Input) async throws -> Operations.ListApps.Output {
        let context = try self.context
        guard let key = context.key else { throw APIError.unauthenticated }
        if key.kind == .secret, let appID = key.appID {
            return .ok(.init(body: .json(.init(apps: [try await admin.app(id: appID)]))))
        }
        try context.requireAdmin(appID: nil)
        return .ok(.init(body: .json(.init(apps: try await admin.apps()))))
    }

    func getApp(_ input: Operations.GetApp.Input) async throws -> Operations.GetApp.Output {
        let appID = input.path.appId
        try context.requireAdmin(appID: appID)
        return .ok(.init(body: .json(try await admin.app(id: appID))))
    }

    func updateApp(_ input: Operations.UpdateApp.Input) async throws -> Operations.UpdateApp.Output {
        let appID = input.path.appId
        try context.requireAdmin(appID: appID)
        guard case .json(let changes) = input.body else { throw APIError.badRequest("A JSON body is required.") }
        return .ok(.init(body: .json(try await admin.updateApp(id: appID, changes))))
    }
}

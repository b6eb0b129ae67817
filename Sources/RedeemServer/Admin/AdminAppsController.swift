import Foundation
import Hummingbird
import RedeemCore
import RedeemStore

/// `/admin/v1/apps`: create, read, update and list apps.
struct AdminAppsController {
    let admin: AdminService

    func addRoutes(to group: RouterGroup<AppRequestContext>) {
        group.post("/apps", use: create)
        group.get("/apps", use: list)
        group.get("/apps/{app_id}", use: show)
        group.patch("/apps/{app_id}", use: update)
    }

    struct AppList: Encodable { let apps: [App] }

    @Sendable func create(_ request: Request, context: AppRequestContext) async throws -> JSONResponse<CreatedApp> {
        try context.requireAdmin(appID: nil)
        let changes = try await request.decodeAdminJSON(AppChanges.self, context: context)
        return JSONResponse(try await admin.createApp(changes), status: .created)
    }

    @Sendable func list(_ request: Request, context: AppRequestContext) async throws -> JSONResponse<AppList> {
        guard let key = context.key else { throw APIError.unauthenticated }
        if key.kind == .secret, let appID = key.appID {
            return JSONResponse(AppList(apps: [try await admin.store.app(id: appID)]))
        }
        try context.requireAdmin(appID: nil)
        return JSONResponse(AppList(apps: try await admin.store.apps()))
    }

    @Sendable func show(_ request: Request, context: AppRequestContext) async throws -> JSONResponse<App> {
        let appID = try context.parameters.decoded("app_id")
        try context.requireAdmin(appID: appID)
        return JSONResponse(try await admin.store.app(id: appID))
    }

    @Sendable func update(_ request: Request, context: AppRequestContext) async throws -> JSONResponse<App> {
        let appID = try context.parameters.decoded("app_id")
        try context.requireAdmin(appID: appID)
        let changes = try await request.decodeAdminJSON(AppChanges.self, context: context)
        return JSONResponse(try await admin.updateApp(id: appID, changes))
    }
}

import Hummingbird
import RedeemCore
import RedeemStore

/// `/console/apps/{app_id}/audit`: the audit log, for owners.
struct ConsoleAuditController {
    let service: ConsoleService
    let pages: ConsolePages

    func addRoutes(to router: RouterGroup<ConsoleContext>) {
        router.get("/console/apps/{app_id}/audit", use: audit)
    }

    /// The audit log of the app's objects and of the instance (operators), newest first, 50 a page, filtered by who, what
    /// and the object. Owners only.
    @Sendable func audit(_ request: Request, context: ConsoleContext) async throws -> Response {
        try context.require(.changeSettings, "read the audit log")
        let appID = try context.appID
        let asked = request.uri.queryParameters
        func field(_ name: String) -> String? {
            asked[Substring(name)].map { String($0).removingPercentEncoding ?? String($0) }.flatMap { $0.isEmpty ? nil : $0 }
        }
        var query = AuditQuery(appID: appID, actor: field("actor"), action: field("action"), object: field("object"))
        if let cursor = field("before") {
            guard let parsed = AuditPresenter.cursor(cursor) else { throw APIError.badRequest("This page of the log is not known.", field: "before") }
            query.before = parsed
        }
        let page = try await service.auditPage(query)
        return pages.page("console-audit", context: context, AuditPresenter.values(page, query: query))
    }
}

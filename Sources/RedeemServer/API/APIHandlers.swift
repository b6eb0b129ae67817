import Foundation
import Hummingbird
import OpenAPIHummingbird
import OpenAPIRuntime

/// The JSON API's generated operations (`APIProtocol`, generated from openapi.yaml by scripts/openapi-generate.sh).
/// Each feature implements its operations in an extension beside its service: turn the input into a service call and
/// the result into the output, nothing more. Errors are thrown as they are and answered by `ErrorMiddleware`.
struct APIHandlers: APIProtocol {
    let deps: ServerDependencies

    /// The admin service, its writes audited under the request's key.
    var admin: AdminService { get throws { deps.admin.acting(as: try keyActor()) } }
    var webhookEndpoints: WebhookEndpointService { get throws { deps.webhookEndpoints.acting(as: try keyActor()) } }

    /// The audit log's name for the request's key (`key:<id>`); the admin routes all have one.
    func keyActor() throws -> String {
        guard let key = try context.key else { throw APIError.unauthenticated }
        return "key:\(key.id)"
    }

    /// The request's Hummingbird context: its key and client address (`RequestScope`).
    var context: AppRequestContext {
        get throws {
            guard let context = RequestScope.context else { throw APIError(.internalError, "No request context.") }
            return context
        }
    }

    /// Serves the generated operations from `router`, behind the key check and the body rules of the JSON API.
    static func register(_ deps: ServerDependencies, on router: Router<AppRequestContext>) throws {
        let group = router.group()
            .add(middleware: AuthMiddleware(keys: deps.keyCache))
            .add(middleware: JSONBodyMiddleware())
            .add(middleware: RequestScopeMiddleware())
        try APIHandlers(deps: deps).registerHandlers(
            on: group, serverURL: URL(string: "/")!, configuration: .redeem, middlewares: [AbsentBodyMiddleware()])
    }
}

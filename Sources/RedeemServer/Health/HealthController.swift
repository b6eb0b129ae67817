import Foundation
import Hummingbird
import RedeemStore

/// `GET /health`: the process is up and the database answers.
struct HealthController {
    let database: any SQLDatabase
    let started = Date()

    func addRoutes(to router: Router<AppRequestContext>) {
        router.get("/health", use: health)
    }

    struct Health: Encodable {
        let status: String
        let database: String
        let databaseOK: Bool
        let uptimeSeconds: Int

        enum CodingKeys: String, CodingKey {
            case status, database
            case databaseOK = "database_ok"
            case uptimeSeconds = "uptime_seconds"
        }
    }

    @Sendable func health(_ request: Request, context: AppRequestContext) async throws -> JSONResponse<Health> {
        let ok = (try? await database.read { try await $0.query("SELECT 1 AS ok") }) != nil
        let health = Health(
            status: ok ? "ok" : "degraded", database: database.engine.rawValue, databaseOK: ok,
            uptimeSeconds: Int(Date().timeIntervalSince(started))
        )
        return JSONResponse(health, status: ok ? .ok : .serviceUnavailable)
    }
}

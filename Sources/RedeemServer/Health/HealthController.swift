import Foundation
import Hummingbird
import RedeemCore
import RedeemStore

/// `GET /health`: the process is up and the database answers; `GET /`, the same for people.
struct HealthController {
    let database: any SQLDatabase
    let started = Date()

    let templates: Templates
    let publicURL: URL

    func addRoutes(to router: Router<AppRequestContext>) {
        router.get("/health", use: health)
        router.get("/", use: landing)
    }

    /// `GET /`: what this instance is, whether its database answers, and where the console and the API document are.
    @Sendable func landing(_ request: Request, context: AppRequestContext) async throws -> Response {
        let ok = (try? await database.read { try await $0.query("SELECT 1 AS ok") }) != nil
        let page = LandingPage(
            host: publicURL.host ?? publicURL.absoluteString, healthy: ok, engine: database.engine == .postgres ? "PostgreSQL" : "SQLite",
            uptime: Self.uptime(Date().timeIntervalSince(started)))
        return PageRenderer(templates: templates).response("landing", page, layout: Branding(name: "Redeem"), status: ok ? .ok : .serviceUnavailable)
    }

    /// `landing`: this instance's host, whether its database answers, its engine and uptime.
    struct LandingPage: PageModel {
        let host: String
        let healthy: Bool
        let engine: String
        let uptime: String
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

    /// "3 days", "5 hours", "12 minutes".
    static func uptime(_ seconds: TimeInterval) -> String {
        let minutes = Int(seconds) / 60
        if minutes < 60 { return TimeLeft.words(seconds: Int(seconds)) }
        if minutes < 48 * 60 { return minutes / 60 == 1 ? "1 hour" : "\(minutes / 60) hours" }
        return "\(minutes / 1440) days"
    }
}

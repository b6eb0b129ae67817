import Hummingbird

/// The two routes RevenueCat's SDKs call with no key: `GET /v1/health` (`{}`) and, from debug builds of the iOS SDK,
/// `GET /v1/subscribers/{id}/health_report_availability` (`{"report_logs": false}`: no report is ever wanted).
struct SDKHealthController {
    func addRoutes(to router: Router<AppRequestContext>) {
        router.get("/v1/health") { _, _ in Self.json("{}") }
        router.get("/v1/subscribers/{app_user_id}/health_report_availability") { _, _ in Self.json(#"{"report_logs":false}"#) }
    }

    static func json(_ text: String) -> Response {
        Response(status: .ok, headers: [.contentType: "application/json"], body: .init(byteBuffer: ByteBuffer(string: text)))
    }
}

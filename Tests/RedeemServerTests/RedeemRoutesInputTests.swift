import Foundation
import HTTPTypes
import RedeemTestSupport
import Testing

/// The two hand-written redeem routes read their bodies as the generated routes did: a missing, malformed or
/// incomplete body is a 400 (7000) naming what is wrong, never a 5xx; a bad app user ID is 7256.
@Suite struct RedeemRoutesInputTests {
    @Test(
        arguments: TestDatabases.available, [("/v1/subscribers/redeem_purchase", "redemption_token"), ("/v1/subscribers/redeem_offer_code", "code")])
    func badBodiesAreNamed400s(_ backend: TestBackend, _ route: (path: String, tokenField: String)) async throws {
        let (route, tokenField) = route
        try await TestServer.with(backend) { server in
            let app = try await server.createAppWithCatalog()
            let none = try await server.send(.post, route, key: app.publicSandbox)
            #expect(none.status == 400 && none.code == 7000, "\(none.body)")
            let malformed = try await server.send(.post, route, key: app.publicSandbox, json: #"{"app_user_id": "#)
            #expect(malformed.status == 400 && malformed.code == 7000, "\(malformed.body)")
            let missing = try await server.send(.post, route, key: app.publicSandbox, json: #"{"app_user_id": "jane"}"#)
            #expect(missing.status == 400 && missing.code == 7000 && missing.body.contains(tokenField), "\(missing.body)")
            let wrongType = try await server.send(.post, route, key: app.publicSandbox, json: #"{"app_user_id": 7, "\#(tokenField)": "x"}"#)
            #expect(wrongType.status == 400 && wrongType.code == 7000 && wrongType.body.contains("app_user_id"), "\(wrongType.body)")
            // RevenueCat's codes: 7220 for an empty ID, 7256 for one it refuses.
            let emptyUser = try await server.send(.post, route, key: app.publicSandbox, json: #"{"app_user_id": "", "\#(tokenField)": "x"}"#)
            #expect(emptyUser.status == 400 && emptyUser.code == 7220, "\(emptyUser.body)")
            let badUser = try await server.send(.post, route, key: app.publicSandbox, json: #"{"app_user_id": "null", "\#(tokenField)": "x"}"#)
            #expect(badUser.status == 400 && badUser.code == 7256, "\(badUser.body)")
            let noKey = try await server.send(.post, route, key: nil, json: #"{"app_user_id": "jane", "\#(tokenField)": "x"}"#)
            #expect(noKey.status == 401, "\(noKey.body)")
        }
    }

    /// A path the router has with another method answers 405 with `Allow`; one with an empty last ID (a trailing
    /// slash) is that ID's route, unknown: 404, as documented, not the collection's 405.
    @Test func aWrongMethodIs405AndAnEmptyIDIs404() async throws {
        try await TestServer.with(.sqlite) { server in
            let app = try await server.createAppWithCatalog()
            let wrong = try await server.send(.put, "/admin/v1/apps/\(app.id)/offers", key: app.secret, json: "{}")
            #expect(wrong.status == 405 && wrong.headers[.allow] == "GET, POST", "\(wrong.body)")
            let empty = try await server.send(.patch, "/admin/v1/apps/\(app.id)/offers/", key: app.secret, json: #"{"active": false}"#)
            #expect(empty.status == 404, "\(empty.status) \(empty.body)")
        }
    }
}

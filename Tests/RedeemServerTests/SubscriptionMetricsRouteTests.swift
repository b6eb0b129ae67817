import Foundation
import HTTPTypes
import RedeemCore
import RedeemTestSupport
import Testing

@testable import RedeemServer

/// `GET /admin/v1/apps/{app_id}/metrics`: the numbers of purchases recorded through the server API, each environment
/// apart, the window bounded, and the keys checked.
@Suite struct SubscriptionMetricsRouteTests {
    @Test(arguments: TestDatabases.available)
    func theRouteAnswersEachEnvironmentsNumbers(_ backend: TestBackend) async throws {
        // The server's clock is 2026-06-01 00:00; purchases are dated before it.
        try await TestServer.with(backend) { server in
            let app = try await server.createAppWithCatalog()
            _ = try await server.grant(
                app,
                #"{"app_user_id": "alice", "product_id": "monthly", "purchase_date": "2026-05-20T10:00:00Z", "price": {"amount": "9.99", "currency": "USD"}}"#
            )
            _ = try await server.grant(
                app,
                #"{"app_user_id": "bob", "product_id": "monthly", "purchase_date": "2026-05-21T10:00:00Z", "price": {"amount": "4.00", "currency": "EUR"}}"#
            )
            let sandboxPurchase = try await server.grant(
                app,
                #"{"app_user_id": "sam", "product_id": "monthly", "is_sandbox": true, "purchase_date": "2026-05-22T10:00:00Z", "price": {"amount": "1.00", "currency": "USD"}}"#
            )
            let path = "/admin/v1/apps/\(app.id)/metrics"
            let production = try await server.send(.get, path + "?days=30", key: app.secret)
            #expect(production.status == 200, "\(production.body)")
            let body = try production.object()
            #expect(
                body["environment"] as? String == "production" && body["from"] as? String == "2026-05-03" && body["to"] as? String == "2026-06-01")
            #expect(body["active_subscriptions"] as? Int == 2)
            let mrr = try #require(body["mrr"] as? [[String: Any]])
            #expect(mrr.map { "\($0["amount"]!) \($0["currency"]!)" } == ["4.00 EUR", "9.99 USD"])
            #expect((body["daily"] as? [Any])?.count == 30)

            let week = try await server.send(.get, path + "?environment=sandbox&days=7", key: server.adminKey).object()
            #expect(week["active_subscriptions"] as? Int == 1 && week["days"] as? Int == 7)
            #expect((week["revenue"] as? [Any])?.isEmpty == true, "bought May 22, before the week")
            let month = try await server.send(.get, path + "?environment=sandbox", key: server.adminKey).object()
            #expect((month["revenue"] as? [[String: Any]])?.first?["amount_micros"] as? Int == 1_000_000)
            #expect(month["new_customers"] as? Int == 1 && month["days"] as? Int == 30)

            #expect((month["cancellations"] as? [Any])?.isEmpty == true)

            // Cancelled today with the buyer's reason: counted by it.
            let purchaseID = try #require((try sandboxPurchase.object()["purchase"] as? [String: Any])?["id"] as? String)
            let cancel = "/admin/v1/apps/\(app.id)/purchases/\(purchaseID)/cancel"
            #expect(try await server.send(.post, cancel, key: app.secret, json: #"{"feedback": "too_complex"}"#).status == 200)
            let cancelled = try await server.send(.get, path + "?environment=sandbox", key: server.adminKey).object()
            let reasons = try #require(cancelled["cancellations"] as? [[String: Any]])
            #expect(reasons.count == 1 && reasons.first?["reason"] as? String == "too_complex" && reasons.first?["count"] as? Int == 1)
            #expect((try await server.send(.get, path, key: app.secret).object()["cancellations"] as? [Any])?.isEmpty == true, "production")

            // Refunded today: the day's revenue is negative, written with its sign.
            #expect(
                try await server.send(.post, "/admin/v1/apps/\(app.id)/purchases/\(purchaseID)/refund", key: app.secret, json: "{}").status == 200)
            let refunded = try await server.send(.get, path + "?environment=sandbox", key: server.adminKey).object()
            let today = try #require((refunded["daily"] as? [[String: Any]])?.last)
            #expect((today["revenue"] as? [[String: Any]])?.first?["amount"] as? String == "-1.00")
            #expect((refunded["refunded"] as? [[String: Any]])?.first?["amount"] as? String == "1.00" && refunded["refunds"] as? Int == 1)

            for bad in ["0", "366"] {
                let refused = try await server.send(.get, path + "?days=" + bad, key: app.secret)
                #expect(refused.status == 422, "\(refused.body)")
                #expect(try refused.string("field") == "days")
            }
            #expect(try await server.send(.get, path + "?environment=staging", key: app.secret).status == 400)
            #expect(try await server.send(.get, path, key: app.publicSandbox).status == 403)
            #expect(try await server.send(.get, path, key: nil).status == 401)
            #expect(try await server.send(.get, "/admin/v1/apps/app_nope/metrics", key: server.adminKey).status == 404)
        }
    }
}

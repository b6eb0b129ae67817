import Foundation
import RedeemCore
import RedeemServer
import RedeemStore
import RedeemTestSupport
import Testing

/// The same-writes baseline makes a redemption's writes: the token is consumed once, the purchase moves to a new
/// customer under the given user ID, and the attempt is recorded.
@Suite struct BenchmarkBaselineTests {
    @Test(arguments: TestDatabases.available)
    func sameWritesMakesARedemptionsWrites(_ backend: TestBackend) async throws {
        try await TestServer.with(backend) { server in
            let app = try await server.createAppWithCatalog()
            let token = try RedemptionAPITests.token(from: try await server.grant(app, #"{"app_user_id": "owner", "product_id": "lifetime"}"#))
            let store = server.deps.store
            let now = server.deps.clock.now()
            #expect(try await store.benchmarkSameWrites(appID: app.id, tokenHash: SecretToken.hash(token), appUserID: "bench-1", now: now))
            #expect(!(try await store.benchmarkSameWrites(appID: app.id, tokenHash: SecretToken.hash(token), appUserID: "bench-2", now: now)))
            let info = try await store.customerInfo(appID: app.id, appUserID: .init(validating: "bench-1"), now: now)
            #expect(info.subscriber.nonSubscriptions["lifetime"]?.count == 1)
            let owner = try await store.customerInfo(appID: app.id, appUserID: .init(validating: "owner"), now: now)
            #expect(owner.subscriber.nonSubscriptions.isEmpty)
            let state = try #require(try await store.redemptionTokenState(tokenHash: SecretToken.hash(token)))
            #expect(state.consumedAt != nil)
            #expect(try await store.redemptionAttempts(appID: app.id, purchaseID: state.purchaseID).map(\.outcome) == ["redeemed"])
        }
    }

    /// Through its route the baseline also counts the redemption's rate-limit hits, as a redemption does before its
    /// writes: a client over the limit is refused there too.
    @Test(arguments: TestDatabases.available)
    func theRouteCountsTheRedemptionsRateLimitHits(_ backend: TestBackend) async throws {
        var limits = RateLimits.unlimited
        limits.redeemPerIP = 2
        try await TestServer.with(backend, rateLimits: limits, benchmarkRoutes: true) { server in
            let app = try await server.createAppWithCatalog()
            var statuses: [Int] = []
            for n in 0..<3 {
                let token = try RedemptionAPITests.token(from: try await server.grant(app, #"{"app_user_id": "owner", "product_id": "lifetime"}"#))
                statuses.append(
                    try await server.send(
                        .post, "/v1/benchmark/same-writes", key: app.publicSandbox,
                        json: #"{"app_user_id": "bench-\#(n)", "redemption_token": "\#(token)"}"#
                    ).status)
            }
            #expect(statuses == [200, 200, 429])
        }
    }
}

import Foundation
import HTTPTypes
import RedeemCore
import RedeemServer
import RedeemStore
import RedeemTestSupport
import Testing

@Suite struct RateLimitTests {
    @Test(arguments: TestDatabases.available)
    func guessingIsLimitedPerUserWithRetryAfter(_ backend: TestBackend) async throws {
        var limits = RateLimits.unlimited
        limits.redeemPerUser = 5
        let clock = ManualClock(TestServer.start.addingTimeInterval(10))
        try await TestServer.with(backend, clock: clock, rateLimits: limits) { server in
            let app = try await server.createAppWithCatalog()
            for _ in 0..<5 {
                #expect(try await RedemptionAPITests.redeem(server, app, user: "guesser", token: RedemptionLink.newToken()).code == 7849)
            }
            let limited = try await RedemptionAPITests.redeem(server, app, user: "guesser", token: RedemptionLink.newToken())
            #expect(limited.status == 429)
            #expect(limited.headers[.retryAfter] == "50")
            // Other users are not affected; the window passes.
            #expect(try await RedemptionAPITests.redeem(server, app, user: "someone-else", token: RedemptionLink.newToken()).code == 7849)
            clock.advance(by: 50)
            #expect(try await RedemptionAPITests.redeem(server, app, user: "guesser", token: RedemptionLink.newToken()).code == 7849)
        }
    }

    /// Behind a trusted proxy each client has its own per-IP bucket, named by the last `X-Forwarded-For` address; from
    /// any other peer the header is ignored, so a client cannot pick its bucket.
    @Test(arguments: TestDatabases.available, [true, false])
    func perIPLimitsSeeTheClientBehindATrustedProxy(_ backend: TestBackend, _ trusted: Bool) async throws {
        var limits = RateLimits.unlimited
        limits.redeemPerIP = 3
        try await TestServer.with(backend, setup: .live, rateLimits: limits, trustedProxies: trusted ? ["127.0.0.1"] : []) { server in
            let app = try await server.createAppWithCatalog()
            func redeem(from forwardedFor: String, user: String) async throws -> Int {
                try await server.send(
                    .post, "/v1/subscribers/redeem_purchase", key: app.publicProduction,
                    json: #"{"app_user_id": "\#(user)", "redemption_token": "\#(RedemptionLink.newToken())"}"#,
                    headers: [HTTPField.Name("X-Forwarded-For")!: forwardedFor]
                ).status
            }
            for n in 0..<3 { #expect(try await redeem(from: "10.0.0.1", user: "u\(n)") == 400) }
            // A forged first address does not change the bucket: the proxy's own (last) one counts.
            #expect(try await redeem(from: "10.0.0.9, 10.0.0.1", user: "u3") == 429)
            #expect(try await redeem(from: "10.0.0.2", user: "u4") == (trusted ? 400 : 429))
            // PostgreSQL's counters are rows: they name the client by its hash, never its address.
            let buckets = try await server.deps.store.database.read { try await $0.query("SELECT bucket FROM rate_limits") }.map {
                try $0.string("bucket")
            }
            #expect(backend == .sqlite || buckets.contains { $0.hasPrefix("redeem:ip:") })
            #expect(!buckets.contains { $0.contains("10.0.0.") || $0.contains("127.0.0.1") })
        }
    }

    @Test(arguments: TestDatabases.available)
    func limitsAreSharedThroughTheDatabase(_ backend: TestBackend) async throws {
        try await TestDatabases.withTwoStores(backend) { one, two in
            let now = TestServer.start
            let counts = try await withThrowingTaskGroup(of: Int.self) { group in
                for i in 0..<40 {
                    group.addTask { try await (i % 2 == 0 ? one : two).hit(bucket: "b", window: 60, now: now).hits }
                }
                return try await group.reduce(into: [Int]()) { $0.append($1) }
            }
            #expect(counts.sorted() == Array(1...40))
        }
    }

    /// A request's buckets are counted by one statement: each bucket sees every hit once, from any instance.
    @Test(arguments: TestDatabases.available)
    func severalBucketsInOneStatement(_ backend: TestBackend) async throws {
        try await TestDatabases.withTwoStores(backend) { one, two in
            let now = TestServer.start
            let results = try await withThrowingTaskGroup(of: [String: Int].self) { group in
                for i in 0..<40 {
                    let buckets = i % 4 == 0 ? ["ip", "user", "ip"] : ["ip", "user"]  // a repeated name counts once
                    group.addTask { try await (i % 2 == 0 ? one : two).hit(buckets: buckets, window: 60, now: now).hits }
                }
                return try await group.reduce(into: [[String: Int]]()) { $0.append($1) }
            }
            let ipCounts = results.compactMap { $0["ip"] }.sorted()
            let userCounts = results.compactMap { $0["user"] }.sorted()
            #expect(ipCounts == Array(1...40))
            #expect(userCounts == Array(1...40))
            // A new window starts over.
            let later = try await one.hit(buckets: ["ip"], window: 60, now: now.addingTimeInterval(60))
            #expect(later.hits == ["ip": 1])
        }
    }
}

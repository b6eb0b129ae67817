import Foundation
import Logging
import RedeemCore
import RedeemStore
import RedeemTestSupport
import Testing

@testable import RedeemServer

/// The database's rate-limit counters keep the current window's buckets only: hashed client addresses, app users and
/// e-mail addresses of ended windows are deleted, a batch at a time, while the current window counts on.
@Suite struct RateLimitPrunerTests {
    static func buckets(_ store: SQLStore) async throws -> [String] {
        try await store.database.read { try await $0.query("SELECT bucket FROM rate_limits ORDER BY bucket") }.map { try $0.string("bucket") }
    }

    @Test(arguments: TestDatabases.available)
    func endedWindowsArePrunedAndTheCurrentOneCountsOn(_ backend: TestBackend) async throws {
        try await TestDatabases.withStore(backend) { store in
            let clock = ManualClock(TestServer.start)
            let old = (0..<7).map { "newlink:email:app_1:\($0)" } + ["redeem:ip:a"]
            _ = try await store.hit(buckets: old, window: 60, now: clock.now())
            clock.advance(by: 60)
            #expect(
                try await store.hit(buckets: ["redeem:ip:a", "redeem:ip:b"], window: 60, now: clock.now()).hits == [
                    "redeem:ip:a": 1, "redeem:ip:b": 1,
                ])
            #expect(try await Self.buckets(store).count == 9)

            // Three to a statement, so the pass takes several: the six ended buckets not counted again go, the two of
            // the current window stay and count on.
            let pruner = RateLimitPruner(store: store, window: 60, clock: clock, logger: Logger(label: "test"), batch: 3)
            #expect(try await pruner.prune() == 7)
            #expect(try await Self.buckets(store) == ["redeem:ip:a", "redeem:ip:b"])
            #expect(try await store.hit(buckets: ["redeem:ip:a"], window: 60, now: clock.now()).hits == ["redeem:ip:a": 2])
            #expect(try await pruner.prune() == 0)
            // A window later, they go too.
            clock.advance(by: 60)
            #expect(try await pruner.prune() == 2)
            #expect(try await Self.buckets(store) == [])
        }
    }
}

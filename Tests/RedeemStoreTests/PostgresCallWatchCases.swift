import Foundation
import Testing

@testable import RedeemStore

@Suite struct PostgresCallWatchCases {
    /// After an outage the pool may hold a lease request back for a long time; the call answers unavailable instead
    /// (a 503), and does not wait for the work it abandons.
    @Test func aCallThatNeverGetsAConnectionIsGivenUp() async throws {
        let watch = PostgresCallWatch(stall: .milliseconds(50), leaseWait: .seconds(3600))
        let sweeper = Task { await watch.runSweeps(every: .milliseconds(20)) }
        defer { sweeper.cancel() }
        let started = ContinuousClock.now
        await #expect(throws: StoreError.self) {
            try await watch.run { _ in
                try? await Task.sleep(for: .seconds(3600))
                return 1
            }
        }
        #expect(ContinuousClock.now - started < .seconds(60))
    }

    @Test func aCallThatFinishesIsNotTouched() async throws {
        let watch = PostgresCallWatch(stall: .milliseconds(50))
        let value = try await watch.run { _ in 42 }
        #expect(value == 42)
        watch.sweep()
    }
}

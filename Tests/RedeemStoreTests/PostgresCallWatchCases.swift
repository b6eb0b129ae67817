import Foundation
import NIOConcurrencyHelpers
import RedeemTestSupport
import Testing

@testable import PostgresEngine
@testable import RedeemStore

// The time limit is the hang guard: a call the watch failed to give up would wait an hour.
@Suite(.timeLimit(.minutes(2))) struct PostgresCallWatchCases {
    /// After an outage the pool may hold a lease request back for a long time; the call answers unavailable instead
    /// (a 503), and does not wait for the work it abandons.
    @Test func aCallThatNeverGetsAConnectionIsGivenUp() async throws {
        let watch = PostgresCallWatch(stall: .milliseconds(50), leaseWait: .seconds(3600))
        let sweeper = Task { await watch.runSweeps(every: .milliseconds(20)) }
        defer { sweeper.cancel() }
        let error = await #expect(throws: StoreError.self) {
            try await watch.run { _ in
                try? await Task.sleep(for: .seconds(3600))
                return 1
            }
        }
        #expect(error?.isUnavailable == true, "given up as unavailable: \(String(describing: error))")
    }

    @Test func aCallThatFinishesIsNotTouched() async throws {
        let watch = PostgresCallWatch(stall: .milliseconds(50))
        let value = try await watch.run { _ in 42 }
        #expect(value == 42)
        watch.sweep()
    }
}

/// Two transactions that lock two rows in opposite orders deadlock; PostgreSQL aborts one, which is run again.
@Suite(.enabled(if: TestDatabases.postgresConfigured, "needs REDEEM_TEST_POSTGRES_URL"))
struct PostgresDeadlockCases {
    @Test func aDeadlockVictimIsRunAgain() async throws {
        try await TestDatabases.withStore(.postgres) { store in
            try await store.database.transaction { try await $0.query("CREATE TABLE probe (id INTEGER PRIMARY KEY, n INTEGER NOT NULL)") }
            try await store.database.transaction { try await $0.query("INSERT INTO probe VALUES (1, 0), (2, 0)") }
            let locked = NIOLockedValueBox<Set<Int>>([])
            @Sendable func cross(_ first: Int, _ second: Int) async throws {
                try await store.database.transaction { connection in
                    try await connection.query("UPDATE probe SET n = n + 1 WHERE id = \(first)")
                    locked.withLockedValue { _ = $0.insert(first) }
                    while locked.withLockedValue({ $0.count < 2 }) { try await Task.sleep(for: .milliseconds(5)) }
                    try await connection.query("UPDATE probe SET n = n + 1 WHERE id = \(second)")
                }
            }
            async let one: Void = cross(1, 2)
            async let two: Void = cross(2, 1)
            _ = try await (one, two)
            let rows = try await store.database.read { try await $0.query("SELECT n FROM probe ORDER BY id") }
            #expect(try rows.map { try $0.int("n") } == [2, 2])
        }
    }
}

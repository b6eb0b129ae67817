import Foundation
import NIOConcurrencyHelpers
import RedeemStore
import RedeemTestSupport
import Testing

@testable import RedeemServer

/// Rate-limit hits on PostgreSQL go to the database one batch at a time, and each hit still gets the count it would have
/// got alone.
// The time limit is the hang guard for the waits on a queued hit.
@Suite(.timeLimit(.minutes(2))) struct BatchedCounterTests {
    /// A database stand-in whose first statement waits until the test lets it go, so the hits behind it pile up.
    final class GatedStore: HitBatchStore {
        let statements = NIOLockedValueBox<[[String: Int]]>([])
        let totals = NIOLockedValueBox<[String: Int]>([:])
        let gate = NIOLockedValueBox<CheckedContinuation<Void, Never>?>(nil)
        let failNext = NIOLockedValueBox(false)

        func addHits(_ increments: [String: Int], window: TimeInterval, now: Date) async throws -> (hits: [String: Int], windowEnds: Date) {
            let first = statements.withLockedValue { statements in
                statements.append(increments)
                return statements.count == 1
            }
            if first { await withCheckedContinuation { continuation in gate.withLockedValue { $0 = continuation } } }
            let fails = failNext.withLockedValue { fail in
                defer { fail = false }
                return fail
            }
            if fails { throw StoreError.conflict("the database is down") }
            let hits = totals.withLockedValue { totals in
                for (bucket, added) in increments { totals[bucket, default: 0] += added }
                return totals
            }
            return (hits, now.addingTimeInterval(window))
        }

        /// Returns once the first statement is in flight, held at the gate.
        func held() async {
            while gate.withLockedValue({ $0 == nil }) { try? await Task.sleep(for: .milliseconds(5)) }
        }

        func open() async {
            await held()
            gate.withLockedValue { $0?.resume() }
        }
    }

    static func waitUntil(_ counter: BatchedCounter, hasWaiting count: Int) async {
        while counter.waitingCount < count { try? await Task.sleep(for: .milliseconds(5)) }
    }

    @Test func hitsThatArriveDuringAStatementShareTheNextAndEachGetsItsOwnCount() async throws {
        let store = GatedStore()
        let counter = BatchedCounter(store: store)
        let results = try await withThrowingTaskGroup(of: [String: Int].self) { group in
            group.addTask { try await counter.hit(buckets: ["ip", "user:0"], window: 60, now: TestServer.start).hits }
            await store.held()
            for n in 1..<50 {
                // A repeated name counts once, as alone.
                let buckets = n % 5 == 0 ? ["ip", "ip"] : ["ip", "user:\(n % 2)"]
                group.addTask { try await counter.hit(buckets: buckets, window: 60, now: TestServer.start).hits }
            }
            await Self.waitUntil(counter, hasWaiting: 49)
            await store.open()
            return try await group.reduce(into: [[String: Int]]()) { $0.append($1) }
        }
        // The first hit's statement, then one for the 49 that waited behind it.
        #expect(store.statements.withLockedValue { $0.map { $0.values.reduce(0, +) } } == [2, 49 + 40])
        #expect(results.compactMap { $0["ip"] }.sorted() == Array(1...50))
        let users = [0, 1].map { user in results.compactMap { $0["user:\(user)"] }.sorted() }
        #expect(users[0] == Array(1...users[0].count))
        #expect(users[1] == Array(1...users[1].count))
        #expect(users[0].count + users[1].count == 41)  // the first hit, and 40 of the 49 behind it
        #expect(store.totals.withLockedValue { $0 } == ["ip": 50, "user:0": users[0].count, "user:1": users[1].count])
    }

    @Test func aFailedStatementFailsItsHitsAndTheNextHitSendsItsOwn() async throws {
        let store = GatedStore()
        let counter = BatchedCounter(store: store)
        let outcomes = await withTaskGroup(of: Bool.self) { group in
            for n in 0..<10 {
                group.addTask { (try? await counter.hit(buckets: ["ip"], window: 60, now: TestServer.start)) != nil }
                if n == 0 { await store.held() }
            }
            await Self.waitUntil(counter, hasWaiting: 9)
            store.failNext.withLockedValue { $0 = true }
            await store.open()
            return await group.reduce(into: [Bool]()) { $0.append($1) }
        }
        // The first statement failed; the nine behind it went in the next and were counted.
        #expect(outcomes.filter { !$0 }.count == 1)
        #expect(try await counter.hit(buckets: ["ip"], window: 60, now: TestServer.start).hits == ["ip": 10])
        #expect(store.statements.withLockedValue { $0.count } == 3)
    }

    /// Two instances, each batching its own hits, on one database: every hit is counted once, from either.
    @Test(arguments: TestDatabases.available)
    func batchesFromTwoInstancesCountEveryHitOnce(_ backend: TestBackend) async throws {
        try await TestDatabases.withTwoStores(backend) { one, two in
            let counters = [BatchedCounter(store: one), BatchedCounter(store: two)]
            let results = try await withThrowingTaskGroup(of: [String: Int].self) { group in
                for n in 0..<100 {
                    group.addTask { try await counters[n % 2].hit(buckets: ["ip", "user:\(n % 3)"], window: 60, now: TestServer.start).hits }
                }
                return try await group.reduce(into: [[String: Int]]()) { $0.append($1) }
            }
            #expect(results.compactMap { $0["ip"] }.sorted() == Array(1...100))
            for user in 0..<3 {
                let counts = results.compactMap { $0["user:\(user)"] }.sorted()
                #expect(counts == Array(1...counts.count))
            }
            // A new window starts over.
            #expect(try await counters[0].hit(buckets: ["ip"], window: 60, now: TestServer.start.addingTimeInterval(60)).hits == ["ip": 1])
        }
    }
}

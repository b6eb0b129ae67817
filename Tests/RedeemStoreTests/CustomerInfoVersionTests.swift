import Foundation
import RedeemStore
import RedeemTestSupport
import Testing

/// PostgreSQL's customer info versions (migration 17), which the Customer Info cache is checked against, move by exactly
/// one for each write that changes what a customer's info shows, whether the write sets the version or a trigger does.
@Suite(.enabled(if: TestDatabases.postgresConfigured, "needs REDEEM_TEST_POSTGRES_URL"))
struct CustomerInfoVersionTests {
    @Test func eachWriteMovesTheVersionOnce() async throws {
        try await TestDatabases.withStore(.postgres) { store in
            let app = try await Fixture.app(store)
            try await Fixture.catalog(store, appID: app.id)
            let ann = try await store.customer(appID: app.id, appUserID: Fixture.user("ann"), now: Fixture.now)
            let bob = try await store.customer(appID: app.id, appUserID: Fixture.user("bob"), now: Fixture.now)
            func version(_ id: String) async throws -> Int64 {
                try await store.database.read { try await $0.query("SELECT info_version FROM customers WHERE id = \(id)") }[0].int("info_version")
            }
            func write(_ sql: SQL) async throws { try await store.database.transaction { try await $0.query(sql) } }
            let start = try await version(ann.id)
            // An update that leaves the version alone: the trigger moves it.
            try await write("UPDATE customers SET last_seen = last_seen + 1 WHERE id = \(ann.id)")
            #expect(try await version(ann.id) == start + 1)
            // An update that sets it: kept as set, not moved again.
            try await write("UPDATE customers SET info_version = info_version + 5 WHERE id = \(ann.id)")
            #expect(try await version(ann.id) == start + 6)
            // A purchase granted, then moved to another customer: each customer once per write.
            let grant = PurchaseGrant(appID: app.id, appUserID: Fixture.user("ann"), productID: "lifetime", purchaseDate: Fixture.now)
            _ = try await store.grant(grant, idempotency: nil, now: Fixture.now)
            #expect(try await version(ann.id) == start + 7)
            let bobBefore = try await version(bob.id)
            try await write("UPDATE purchases SET customer_id = \(bob.id) WHERE customer_id = \(ann.id)")
            #expect(try await version(ann.id) == start + 8)
            #expect(try await version(bob.id) == bobBefore + 1)
        }
    }
}

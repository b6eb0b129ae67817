import Foundation
import RedeemStore
import RedeemTestSupport
import Testing

enum MigrationCases {
    static let all: [StoreCase] = [
        StoreCase("migrations apply once and nothing stays pending") { store in
            let runner = MigrationRunner(database: store.database)
            #expect(try await runner.pending().isEmpty)
            #expect(try await runner.apply(logger: TestDatabases.logger).isEmpty)
            let versions = try await store.database.read { try await $0.query("SELECT version FROM schema_migrations ORDER BY version") }
            #expect(try versions.map { try $0.int("version") } == Migration.all.map { Int64($0.version) })
        },
        StoreCase("an applied migration that was edited stops the runner") { store in
            _ = try await store.database.transaction { try await $0.query("UPDATE schema_migrations SET checksum = 'edited' WHERE version = 1") }
            await #expect { try await MigrationRunner(database: store.database).apply(logger: TestDatabases.logger) } throws: {
                "\($0)".contains("was edited")
            }
        },
        StoreCase("a failing statement rolls the whole transaction back") { store in
            await #expect(throws: (any Error).self) {
                try await store.database.transaction { connection in
                    try await connection.query(
                        "INSERT INTO idempotency_keys (app_id, idempotency_key, request_hash, resource_id, created_at) VALUES ('a', 'k', 'h', 'r', 1)"
                    )
                    try await connection.query("INSERT INTO no_such_table VALUES (1)")
                }
            }
            let rows = try await store.database.read { try await $0.query("SELECT COUNT(*) AS n FROM idempotency_keys") }
            #expect(try rows[0].int("n") == 0)
        },
    ]
}

@Suite struct SQLiteChangeTokenTests {
    @Test func tokenMovesExactlyWhenAnyConnectionCommits() async throws {
        try await TestDatabases.withTwoStores(.sqlite) { a, b in
            // Every reader has reported once, so the token is settled.
            var token = try #require(try await a.changeToken())
            for _ in 0..<8 { token = try #require(try await a.changeToken()) }
            for _ in 0..<8 { #expect(try await a.changeToken() == token) }
            // A commit by another process (here: another store on the same file) moves it on every reader.
            _ = try await b.database.transaction { try await $0.query("INSERT INTO idempotency_keys VALUES ('a', 'k', 'h', 'r', 1)") }
            for _ in 0..<8 { #expect(try await a.changeToken() != token) }
            // So does a commit by this store's own writer.
            token = try #require(try await a.changeToken())
            _ = try await a.database.transaction { try await $0.query("INSERT INTO idempotency_keys VALUES ('a', 'k2', 'h', 'r', 1)") }
            for _ in 0..<8 { #expect(try await a.changeToken() != token) }
        }
    }

    @Test(.enabled(if: TestDatabases.postgresConfigured, "needs REDEEM_TEST_POSTGRES_URL"))
    func postgresNeverAllowsCaching() async throws {
        let token = try await TestDatabases.withStore(.postgres) { try await $0.changeToken() }
        #expect(token == nil)
    }
}

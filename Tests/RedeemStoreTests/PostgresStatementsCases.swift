import Foundation
import PostgresNIO
import RedeemTestSupport
import Testing

@testable import PostgresEngine
@testable import RedeemStore

@Suite struct PostgresStatementsCases {
    @Test func aTextIsNamedOncePerParameterTypesUpToTheLimit() {
        let statements = PostgresStatements(limit: 3)
        let first = statements.name(for: "SELECT $1", types: [.int8])
        #expect(first != nil)
        #expect(statements.name(for: "SELECT $1", types: [.int8]) == first)
        // A NULL is typed by the server, so the same text with a NULL there is another statement.
        let withNull = statements.name(for: "SELECT $1", types: [.null])
        #expect(withNull != nil && withNull != first)
        #expect(statements.name(for: "SELECT 2", types: []) != nil)
        // Past the limit new texts go unnamed; named ones keep their names.
        #expect(statements.name(for: "SELECT 3", types: []) == nil)
        #expect(statements.name(for: "SELECT $1", types: [.int8]) == first)
    }

    /// On a real connection: a statement run twice is prepared once, under its name, and the same text bound first
    /// with a NULL and then with a value answers both times.
    @Test(.enabled(if: TestDatabases.postgresConfigured, "needs REDEEM_TEST_POSTGRES_URL")) func aConnectionPreparesAStatementOnceAndReusesIt()
        async throws
    {
        try await TestDatabases.withStore(.postgres) { store in
            let prepared = try await store.database.read { connection in
                let values: [Int64?] = [nil, 7, 8]
                for value in values {
                    let rows = try await connection.query("SELECT COALESCE(\(value), 0) + 1 AS n")
                    let expected = (value ?? 0) + 1
                    #expect(try rows.first?.int("n") == expected)
                }
                return try await connection.query(
                    "SELECT name FROM pg_prepared_statements WHERE statement = 'SELECT COALESCE($1, 0) + 1 AS n' ORDER BY name")
            }
            #expect(prepared.count == 2, "one statement for the NULL, one for the value")
            #expect(prepared.allSatisfy { ($0.optionalString("name") ?? "").hasPrefix("redeem_") })
        }
    }

    /// `prepared_statements=off` in the URL (for a pooler that cannot keep them) sends every statement unnamed; a value
    /// other than on or off is refused.
    @Test(.enabled(if: TestDatabases.postgresConfigured, "needs REDEEM_TEST_POSTGRES_URL")) func theURLCanTurnNamingOff() async throws {
        let base = try #require(TestDatabases.postgresURL)
        let backend = try PostgresBackend(url: URL(string: base + "?prepared_statements=off")!, logger: TestDatabases.logger)
        let prepared = try await backend.read { connection in
            for _ in 0..<2 { try await PostgresStatementsCases.check(connection) }
            return try await connection.query("SELECT COUNT(*) AS n FROM pg_prepared_statements")
        }
        await backend.close()
        #expect(try prepared.first?.int("n") == 0)
        #expect(throws: StoreError.self) {
            try PostgresBackend(url: URL(string: base + "?prepared_statements=maybe")!, logger: TestDatabases.logger)
        }
    }

    /// A server connection that already holds a statement of the name this client would prepare (as when a transaction
    /// pooler hands it clients in turn) fails with a sentence naming the cure, not the driver's generic text.
    @Test(.enabled(if: TestDatabases.postgresConfigured, "needs REDEEM_TEST_POSTGRES_URL")) func aPoolersForeignStatementNamesTheCure()
        async throws
    {
        let base = try #require(TestDatabases.postgresURL)
        let backend = try PostgresBackend(url: URL(string: base)!, maxConnections: 1, logger: TestDatabases.logger)
        let foreign: SQL = {
            var sql: SQL = "PREPARE redeem_1 AS SELECT 2 AS n"
            sql.runsOnce = true
            return sql
        }()
        let error = await #expect(throws: StoreError.self) {
            try await backend.read { connection in
                try await connection.query(foreign)
                return try await connection.query("SELECT 1 AS n")
            }
        }
        await backend.close()
        #expect(error?.description.contains("?prepared_statements=off") == true)
    }

    /// Migrating turns JIT off for the database's later sessions (migration 20): a plan estimated above
    /// `jit_above_cost` would otherwise compile on every execution.
    @Test(.enabled(if: TestDatabases.postgresConfigured, "needs REDEEM_TEST_POSTGRES_URL")) func aMigratedDatabaseRunsWithoutJIT() async throws {
        let (url, cleanup) = try await TestDatabases.makeDatabase(.postgres, migrated: false)
        let jit: @Sendable (SQLStore) async throws -> String? = { store in
            try await store.database.read { try await $0.query("SELECT current_setting('jit') AS jit") }.first?.optionalString("jit")
        }
        let before = try await SQLStore.open(url: url, connectionWait: TestDatabases.connectionWait, logger: TestDatabases.logger)
        #expect(try await jit(before) == "on", "PostgreSQL's default")
        try await before.migrate(logger: TestDatabases.logger)
        await before.close()
        let after = try await SQLStore.open(url: url, connectionWait: TestDatabases.connectionWait, logger: TestDatabases.logger)
        #expect(try await jit(after) == "off")
        await after.close()
        try await cleanup()
    }

    static func check(_ connection: any SQLConnection) async throws {
        let value: Int64 = 41
        #expect(try await connection.query("SELECT \(value) + 1 AS n").first?.int("n") == 42)
    }
}

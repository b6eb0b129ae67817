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
            try await store.database.transaction { try await $0.query("UPDATE schema_migrations SET checksum = 'edited' WHERE version = 1") }
            await #expect { try await MigrationRunner(database: store.database).apply(logger: TestDatabases.logger) } throws: {
                "\($0)".contains("was edited")
            }
        },
        StoreCase("a failing statement rolls the whole transaction back") { store in
            await #expect(throws: (any Error).self) {
                try await store.database.transaction { connection in
                    try await connection.query("INSERT INTO idempotency_keys (app_id, idempotency_key, request_hash, resource_id, created_at) VALUES ('a', 'k', 'h', 'r', 1)")
                    try await connection.query("INSERT INTO no_such_table VALUES (1)")
                }
            }
            let rows = try await store.database.read { try await $0.query("SELECT COUNT(*) AS n FROM idempotency_keys") }
            #expect(try rows[0].int("n") == 0)
        },
    ]
}

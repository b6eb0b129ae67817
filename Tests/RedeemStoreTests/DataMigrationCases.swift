import Foundation
import RedeemCore
import Testing

@testable import RedeemStore

/// Migrations that mend rows written before a rule, run again over such rows on each engine.
enum DataMigrationCases {
    static let all: [StoreCase] = [
        StoreCase("an app name from before the one-line rule loses its line breaks and tabs") { store in
            var broken = try await Fixture.app(store)
            broken.name = "Lumen\r\nPro\tApp\n"
            try await store.updateApp(broken)
            let fine = try await Fixture.app(store)
            try await store.database.transaction { connection in
                for statement in Migration.v037AppNamesOnOneLine.statements(for: store.database.engine) {
                    try await connection.query(SQL(stringLiteral: statement))
                }
            }
            #expect(try await store.app(id: broken.id).name == "Lumen Pro App")
            #expect(try await store.app(id: fine.id).name == fine.name, "a name on one line is left as it was")
        }
    ]
}

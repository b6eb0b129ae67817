import Foundation
import RedeemTestSupport
import SQLKernel
import Testing

@testable import RedeemStore

/// Migration 32: the statements a merge and an erasure run by customer find their rows through an index, not by
/// reading the whole table (on PostgreSQL with sequential scans priced out, so that a tiny table's plan says which
/// indexes exist rather than what is cheapest at this size).
@Suite struct CustomerKeyedIndexCases {
    static let statements: [(SQL, index: String)] = [
        ("UPDATE offer_redemptions SET customer_id = 'cus_b' WHERE customer_id = 'cus_a'", "offer_redemptions_customer"),
        ("SELECT offer_id FROM offer_redemptions WHERE customer_id = 'cus_a'", "offer_redemptions_customer"),
        ("UPDATE offer_codes SET redeemed_by = 'erased' WHERE redeemed_by IN ('a', 'b')", "offer_codes_redeemed_by"),
        ("DELETE FROM redemption_attempts WHERE app_id = 'app_a' AND app_user_id IN ('a', 'b')", "redemption_attempts_app_user"),
    ]

    @Test(arguments: TestDatabases.available)
    func lookupsByCustomerUseAnIndex(_ backend: TestBackend) async throws {
        try await TestDatabases.withStore(backend) { store in
            try await store.database.transaction { connection in
                let explain: SQL = connection.engine == .postgres ? "EXPLAIN " : "EXPLAIN QUERY PLAN "
                if connection.engine == .postgres { try await connection.query("SET LOCAL enable_seqscan = off") }
                for (statement, index) in Self.statements {
                    let plan = try await connection.query("\(sql: explain)\(sql: statement)").map { row in
                        row.values.compactMap { value -> String? in
                            if case .text(let text) = value { return text }
                            return nil
                        }.joined(separator: " ")
                    }.joined(separator: "\n")
                    #expect(plan.contains(index), "\(statement.text):\n\(plan)")
                }
            }
        }
    }
}

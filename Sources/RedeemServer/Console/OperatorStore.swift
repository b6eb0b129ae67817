import Foundation
import RedeemCore
import RedeemStore

/// What `OperatorService` (the CLI's `operators` commands) reads and writes: the operators themselves. Every write
/// carries its audit entry, committed with it.
public protocol OperatorStore: Sendable {
    func createOperator(_ op: Operator, passwordHash: String, audit: AuditEntry) async throws
    func operators() async throws -> [Operator]
    func setOperatorDisabled(email: String, _ disabled: Bool, now: Date, audit: AuditEntry) async throws -> Operator
    func setOperatorPassword(email: String, passwordHash: String, now: Date, audit: AuditEntry) async throws
    /// For one who lost their phone; also `ConsoleSessionStore`'s, where an operator turns it off themselves.
    func disableTwoFactor(email: String, audit: AuditEntry) async throws
}

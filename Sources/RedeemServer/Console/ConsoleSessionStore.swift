import Foundation
import RedeemCore
import RedeemStore

/// What `ConsoleService` needs to sign operators in and out: their credentials, sessions (kept by the token's hash
/// only) and two-factor sign-in.
protocol ConsoleSessionStore: Sendable {
    func operatorCredentials(email: String) async throws -> OperatorCredentials?
    func createOperatorSession(tokenHash: String, operatorID: String, awaitingCode: Bool, now: Date) async throws
    /// Opens a session waiting for its code; false when a code of that time step or a later one was used (a code works once).
    func completeSecondFactor(tokenHash: String, operatorID: String, step: Int64) async throws -> Bool
    func startTwoFactorEnrolment(operatorID: String, secret: String) async throws
    func enableTwoFactor(operatorID: String, step: Int64, now: Date, audit: AuditEntry) async throws
    func disableTwoFactor(email: String, audit: AuditEntry) async throws
    func operatorSession(tokenHash: String) async throws -> OperatorSessionRecord?
    func touchOperatorSession(tokenHash: String, now: Date) async throws
    func endOperatorSession(tokenHash: String, now: Date) async throws
}

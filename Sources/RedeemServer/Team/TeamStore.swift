import Foundation
import RedeemCore
import RedeemStore

/// What `TeamService` and `TeamMailer` read and write: operators, invitations, reset links and their e-mails. Every
/// change carries (or writes) its audit entry in its own transaction.
protocol TeamStore: Sendable {
    func teamMembers() async throws -> [TeamMember]
    func openInvitations() async throws -> [OperatorInvitation]
    func invitation(tokenHash: String) async throws -> OperatorInvitation?
    func createInvitation(_ invitation: OperatorInvitation, tokenHash: String, email: TeamEmail?, audit: AuditEntry) async throws
    func revokeInvitation(id: String, now: Date, audit: AuditEntry) async throws -> OperatorInvitation
    func renewInvitation(id: String, tokenHash: String, expiresAt: Date, email: TeamEmail?, audit: AuditEntry) async throws -> OperatorInvitation
    func mintInvitationToken(id: String, tokenHash: String, now: Date) async throws -> OperatorInvitation?
    func acceptInvitation(tokenHash: String, operatorID: String, name: String, passwordHash: String, now: Date) async throws -> Operator
    func changeOperator(actorID: String, targetID: String, _ change: TeamRules.Change, now: Date, audit: AuditEntry) async throws -> Operator
    func requestPasswordReset(email: String, now: Date, quietPeriod: TimeInterval) async throws -> Bool
    func insertPasswordResetToken(tokenHash: String, operatorID: String, now: Date, expiresAt: Date) async throws -> String?
    func passwordResetIsLive(tokenHash: String, now: Date) async throws -> Bool
    func completePasswordReset(tokenHash: String, passwordHash: String, now: Date) async throws -> String?
    func claimDueTeamEmails(now: Date, lease: TimeInterval, limit: Int) async throws -> [TeamEmail]
    func markTeamEmailSent(id: String, at date: Date, skipped: String?) async throws
    func markTeamEmailFailed(id: String, error: String, retryAt: Date?, at date: Date) async throws
}

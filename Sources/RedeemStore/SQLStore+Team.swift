import Foundation
import RedeemCore

/// An operator as the team page lists them: with the name they gave when accepting their invitation.
public struct TeamMember: Sendable, Equatable {
    public let `operator`: Operator
    public let name: String?
}

/// An invitation to join the console's team, as stored (its link only as the token's hash).
public struct OperatorInvitation: Sendable, Equatable {
    public var id: String
    public var email: String
    public var role: OperatorRole
    /// Who sent it, as the audit log names actors.
    public var invitedBy: String
    public var createdAt: Date
    public var expiresAt: Date
    public var acceptedAt: Date?
    public var revokedAt: Date?

    public init(id: String, email: String, role: OperatorRole, invitedBy: String, createdAt: Date, expiresAt: Date) {
        self.id = id
        self.email = email
        self.role = role
        self.invitedBy = invitedBy
        self.createdAt = createdAt
        self.expiresAt = expiresAt
    }

    public func state(now: Date) -> TeamRules.InvitationState {
        TeamRules.state(expiresAt: expiresAt, acceptedAt: acceptedAt, revokedAt: revokedAt, now: now)
    }
}

/// A queued e-mail to an operator or an invitee: its link is minted when it is composed, so none is stored in plaintext.
public struct TeamEmail: Sendable, Equatable {
    public enum Kind: String, Sendable {
        case invitation
        case passwordReset = "password_reset"
    }

    public var id: String
    public var kind: Kind
    public var recipient: String
    /// The invitation's ID, or the operator's for a reset.
    public var subjectID: String
    public var createdAt: Date
    public var attempts: Int

    public init(kind: Kind, recipient: String, subjectID: String, createdAt: Date, attempts: Int = 0) {
        self.id = Identifier.make(prefix: "tml")
        self.kind = kind
        self.recipient = recipient
        self.subjectID = subjectID
        self.createdAt = createdAt
        self.attempts = attempts
    }
}

/// An invitation link that cannot be used: unknown (nil), or expired, accepted or revoked.
public struct InvitationUnusable: Error, Equatable {
    public let state: TeamRules.InvitationState?

    public init(state: TeamRules.InvitationState?) { self.state = state }
}

extension SQLStore {
    public func teamMembers() async throws -> [TeamMember] {
        try await read { connection in
            try await connection.query("SELECT * FROM operators ORDER BY created_at, id").map {
                TeamMember(operator: try Operator(row: $0), name: $0.optionalString("name"))
            }
        }
    }

    /// Invitations neither accepted nor revoked (expired ones too, so they can be sent again), newest first.
    public func openInvitations() async throws -> [OperatorInvitation] {
        try await read { connection in
            try await connection.query(
                "SELECT * FROM operator_invitations WHERE accepted_at IS NULL AND revoked_at IS NULL ORDER BY created_at DESC, id"
            ).map(OperatorInvitation.init(row:))
        }
    }

    public func invitation(tokenHash: String) async throws -> OperatorInvitation? {
        try await read { try await $0.first("SELECT * FROM operator_invitations WHERE token_hash = \(tokenHash)").map(OperatorInvitation.init(row:)) }
    }

    /// Records an invitation (and its e-mail, when one goes out); refused when the address is an operator's already or
    /// has an invitation still pending.
    public func createInvitation(_ invitation: OperatorInvitation, tokenHash: String, email: TeamEmail?, audit: AuditEntry) async throws {
        try await write(audit: audit) { connection in
            if try await connection.first("SELECT id FROM operators WHERE email = \(invitation.email)") != nil {
                throw StoreError.conflict("\(invitation.email) is already on the team")
            }
            let pending = try await connection.first(
                """
                SELECT id FROM operator_invitations WHERE email = \(invitation.email) AND accepted_at IS NULL AND revoked_at IS NULL
                    AND expires_at > \(invitation.createdAt)
                """)
            if pending != nil { throw StoreError.conflict("\(invitation.email) has an invitation waiting; send it again or revoke it") }
            try await connection.query(
                """
                INSERT INTO operator_invitations (id, email, role, token_hash, invited_by, created_at, expires_at)
                VALUES (\(invitation.id), \(invitation.email), \(invitation.role.rawValue), \(tokenHash), \(invitation.invitedBy),
                    \(invitation.createdAt), \(invitation.expiresAt))
                """)
            if let email { try await Self.insertTeamEmail(email, on: connection) }
        }
    }

    /// Revokes an open invitation; its link stops working at once.
    public func revokeInvitation(id: String, now: Date, audit: AuditEntry) async throws -> OperatorInvitation {
        try await write(audit: audit) { connection in
            guard
                let row = try await connection.first(
                    """
                    UPDATE operator_invitations SET revoked_at = \(now)
                    WHERE id = \(id) AND accepted_at IS NULL AND revoked_at IS NULL RETURNING *
                    """)
            else { throw StoreError.notFound("open invitation '\(id)'") }
            return try OperatorInvitation(row: row)
        }
    }

    /// Sends an open invitation again: a new token (the old link stops working) and a new week.
    public func renewInvitation(
        id: String, tokenHash: String, expiresAt: Date, email: TeamEmail?, audit: AuditEntry
    ) async throws
        -> OperatorInvitation
    {
        try await write(audit: audit) { connection in
            guard
                let row = try await connection.first(
                    """
                    UPDATE operator_invitations SET token_hash = \(tokenHash), expires_at = \(expiresAt)
                    WHERE id = \(id) AND accepted_at IS NULL AND revoked_at IS NULL RETURNING *
                    """)
            else { throw StoreError.notFound("open invitation '\(id)'") }
            let invitation = try OperatorInvitation(row: row)
            if var email {
                email.recipient = invitation.email
                try await Self.insertTeamEmail(email, on: connection)
            }
            return invitation
        }
    }

    /// The e-mail's own token for a pending invitation, replacing the stored hash; nil when it is no longer pending.
    public func mintInvitationToken(id: String, tokenHash: String, now: Date) async throws -> OperatorInvitation? {
        try await write { connection in
            try await connection.first(
                """
                UPDATE operator_invitations SET token_hash = \(tokenHash)
                WHERE id = \(id) AND accepted_at IS NULL AND revoked_at IS NULL AND expires_at > \(now) RETURNING *
                """
            ).map(OperatorInvitation.init(row:))
        }
    }

    /// Uses an invitation once: the new operator, with their name and password, and the invitation marked accepted,
    /// in one transaction with its record. Throws `InvitationUnusable` when the link is unknown or no longer pending.
    public func acceptInvitation(
        tokenHash: String, operatorID: String, name: String, passwordHash: String, now: Date
    ) async throws
        -> Operator
    {
        try await write { connection in
            guard let row = try await connection.first("SELECT * FROM operator_invitations WHERE token_hash = \(tokenHash)") else {
                throw InvitationUnusable(state: nil)
            }
            let invitation = try OperatorInvitation(row: row)
            let state = invitation.state(now: now)
            guard state == .pending else { throw InvitationUnusable(state: state) }
            // Marked first, conditionally: of two concurrent acceptances one wins.
            let won = try await connection.query(
                "UPDATE operator_invitations SET accepted_at = \(now) WHERE id = \(invitation.id) AND accepted_at IS NULL RETURNING id")
            guard !won.isEmpty else { throw InvitationUnusable(state: .accepted) }
            if try await connection.first("SELECT id FROM operators WHERE email = \(invitation.email)") != nil {
                throw StoreError.conflict("\(invitation.email) is already on the team; sign in instead")
            }
            let op = Operator(id: operatorID, email: invitation.email, role: invitation.role, createdAt: now)
            try await connection.query(
                """
                INSERT INTO operators (id, email, role, password_hash, created_at, name)
                VALUES (\(op.id), \(op.email), \(op.role.rawValue), \(passwordHash), \(now), \(name))
                """)
            try await connection.query("UPDATE operator_invitations SET operator_id = \(op.id) WHERE id = \(invitation.id)")
            try await Self.insertAudit(
                AuditEntry(
                    at: now, actor: "operator:\(op.email)", action: "team.invitation.accept", objectType: "operator", objectID: op.id,
                    appID: nil, detail: "\(op.email) joined as \(op.role.rawValue)"),
                on: connection)
            return op
        }
    }

    /// Applies one owner's change to another operator, deciding it by `TeamRules` over the team as it is inside the
    /// transaction (rows locked on PostgreSQL), so two owners demoting each other at once cannot leave none.
    public func changeOperator(
        actorID: String, targetID: String, _ change: TeamRules.Change, now: Date, audit: AuditEntry
    ) async throws
        -> Operator
    {
        try await write(audit: audit) { connection in
            let lock = connection.engine == .postgres ? "FOR UPDATE" : ""
            let team = try await connection.query("SELECT * FROM operators ORDER BY id \(unsafeRaw: lock)").map(Operator.init(row:))
            guard let actor = team.first(where: { $0.id == actorID }) else { throw StoreError.notFound("operator '\(actorID)'") }
            guard let target = team.first(where: { $0.id == targetID }) else { throw StoreError.notFound("operator '\(targetID)'") }
            if let refusal = TeamRules.refusal(change, by: actor, to: target, team: team) { throw refusal }
            switch change {
            case .disable:
                try await connection.query("UPDATE operators SET disabled_at = \(now) WHERE id = \(targetID)")
                try await connection.query("UPDATE operator_sessions SET ended_at = \(now) WHERE operator_id = \(targetID) AND ended_at IS NULL")
            case .enable:
                try await connection.query("UPDATE operators SET disabled_at = NULL WHERE id = \(targetID)")
            case .changeRole(let role):
                try await connection.query("UPDATE operators SET role = \(role.rawValue) WHERE id = \(targetID)")
            case .resetTwoFactor:
                try await connection.query(
                    "UPDATE operators SET totp_secret = NULL, totp_enabled_at = NULL, totp_last_step = NULL WHERE id = \(targetID)")
            }
            guard let row = try await connection.first("SELECT * FROM operators WHERE id = \(targetID)") else {
                throw StoreError.notFound("operator '\(targetID)'")
            }
            return try Operator(row: row)
        }
    }

    /// Queues a reset e-mail to the enabled operator with `email`, at most one per `quietPeriod`, with its record.
    /// Returns whether one was queued; an unknown or disabled address queues nothing and records nothing.
    public func requestPasswordReset(email: String, now: Date, quietPeriod: TimeInterval) async throws -> Bool {
        try await write { connection in
            guard let row = try await connection.first("SELECT * FROM operators WHERE email = \(email) AND disabled_at IS NULL") else {
                return false
            }
            let op = try Operator(row: row)
            let recent = try await connection.first(
                """
                SELECT id FROM team_emails WHERE subject_id = \(op.id) AND kind = \(TeamEmail.Kind.passwordReset.rawValue)
                    AND created_at > \(now.addingTimeInterval(-quietPeriod))
                """)
            guard recent == nil else { return false }
            try await Self.insertTeamEmail(TeamEmail(kind: .passwordReset, recipient: op.email, subjectID: op.id, createdAt: now), on: connection)
            try await Self.insertAudit(
                AuditEntry(
                    at: now, actor: "sign-in page", action: "operator.password_reset.request", objectType: "operator", objectID: op.id,
                    appID: nil, detail: "asked for anonymously; the link went to the operator's address"),
                on: connection)
            return true
        }
    }

    /// Records the hash of a reset link minted as its e-mail is composed; nil (no link) when the operator is disabled.
    public func insertPasswordResetToken(tokenHash: String, operatorID: String, now: Date, expiresAt: Date) async throws -> String? {
        try await write { connection in
            guard let row = try await connection.first("SELECT email FROM operators WHERE id = \(operatorID) AND disabled_at IS NULL") else {
                return nil
            }
            try await connection.query(
                """
                INSERT INTO operator_password_resets (token_hash, operator_id, created_at, expires_at)
                VALUES (\(tokenHash), \(operatorID), \(now), \(expiresAt))
                """)
            return try row.string("email")
        }
    }

    /// Whether a reset link works now (the form's page; showing it uses nothing).
    public func passwordResetIsLive(tokenHash: String, now: Date) async throws -> Bool {
        try await read { connection in
            guard
                let row = try await connection.first(
                    """
                    SELECT r.expires_at, r.used_at FROM operator_password_resets r JOIN operators o ON o.id = r.operator_id
                    WHERE r.token_hash = \(tokenHash) AND o.disabled_at IS NULL
                    """)
            else { return false }
            return TeamRules.resetLinkWorks(expiresAt: try row.date("expires_at"), usedAt: row.optionalDate("used_at"), now: now)
        }
    }

    /// Uses a reset link once: the new password, every session of the operator ended, their other links spent, and the
    /// record, in one transaction. Returns the operator's address, or nil when the link does not work.
    public func completePasswordReset(tokenHash: String, passwordHash: String, now: Date) async throws -> String? {
        try await write { connection in
            guard
                let link = try await connection.first(
                    """
                    UPDATE operator_password_resets SET used_at = \(now)
                    WHERE token_hash = \(tokenHash) AND used_at IS NULL AND expires_at > \(now) RETURNING operator_id
                    """)
            else { return nil }
            let operatorID = try link.string("operator_id")
            guard
                let row = try await connection.first(
                    "UPDATE operators SET password_hash = \(passwordHash) WHERE id = \(operatorID) AND disabled_at IS NULL RETURNING email")
            else { return nil }
            let email = try row.string("email")
            try await connection.query("UPDATE operator_sessions SET ended_at = \(now) WHERE operator_id = \(operatorID) AND ended_at IS NULL")
            try await connection.query("UPDATE operator_password_resets SET used_at = \(now) WHERE operator_id = \(operatorID) AND used_at IS NULL")
            try await Self.insertAudit(
                AuditEntry(
                    at: now, actor: "operator:\(email)", action: "operator.password_reset.complete", objectType: "operator", objectID: operatorID,
                    appID: nil, detail: "every session ended"),
                on: connection)
            return email
        }
    }

    /// Leases up to `limit` due team e-mails for `lease` seconds, as `claimDueEmails` does the purchase e-mails.
    public func claimDueTeamEmails(now: Date, lease: TimeInterval, limit: Int) async throws -> [TeamEmail] {
        try await write { connection in
            try await Self.leaseDue(.teamEmails, now: now, lease: lease, limit: limit, on: connection)
                .map(TeamEmail.init(row:)).sorted { $0.createdAt < $1.createdAt }
        }
    }

    /// Sent, or (with `skipped`) not sent because its invitation or operator no longer wants it.
    public func markTeamEmailSent(id: String, at date: Date, skipped: String? = nil) async throws {
        try await single { connection in
            try await connection.query(
                """
                UPDATE team_emails SET sent_at = \(date), attempts = attempts + 1, locked_until = NULL, last_error = \(skipped)
                WHERE id = \(id)
                """)
        }
    }

    public func markTeamEmailFailed(id: String, error: String, retryAt: Date?, at date: Date) async throws {
        try await single { connection in
            if let retryAt {
                try await connection.query(
                    """
                    UPDATE team_emails SET attempts = attempts + 1, next_attempt_at = \(retryAt), locked_until = NULL, last_error = \(error)
                    WHERE id = \(id)
                    """)
            } else {
                try await connection.query(
                    """
                    UPDATE team_emails SET attempts = attempts + 1, failed_at = \(date), locked_until = NULL, last_error = \(error)
                    WHERE id = \(id)
                    """)
            }
        }
    }

    static func insertTeamEmail(_ email: TeamEmail, on connection: any SQLConnection) async throws {
        try await connection.query(
            """
            INSERT INTO team_emails (id, kind, recipient, subject_id, created_at, next_attempt_at)
            VALUES (\(email.id), \(email.kind.rawValue), \(email.recipient), \(email.subjectID), \(email.createdAt), \(email.createdAt))
            """)
    }
}

extension OperatorInvitation {
    init(row: SQLRow) throws {
        self.init(
            id: try row.string("id"), email: try row.string("email"), role: try row.enumeration("role"), invitedBy: try row.string("invited_by"),
            createdAt: try row.date("created_at"), expiresAt: try row.date("expires_at"))
        acceptedAt = row.optionalDate("accepted_at")
        revokedAt = row.optionalDate("revoked_at")
    }
}

extension TeamEmail {
    init(row: SQLRow) throws {
        self.init(
            kind: try row.enumeration("kind"), recipient: try row.string("recipient"), subjectID: try row.string("subject_id"),
            createdAt: try row.date("created_at"), attempts: Int(try row.int("attempts")))
        id = try row.string("id")
    }
}

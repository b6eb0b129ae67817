import Foundation
import RedeemCore
import RedeemStore
import RedeemTestSupport
import Testing

/// Invitations, team changes, reset links and the team's outbox, on both engines.
@Suite struct TeamStoreTests {
    static let now = ISODate.parse("2026-06-01T00:00:00Z")!

    static func audit(_ action: String, _ id: String = "x") -> AuditEntry {
        AuditEntry(at: now, actor: "operator:owner@example.com", action: action, objectType: "operator", objectID: id, appID: nil)
    }

    static func owner(_ store: SQLStore, _ email: String = "owner@example.com", role: OperatorRole = .owner) async throws -> Operator {
        let op = Operator(id: Operator.generateID(), email: email, role: role, createdAt: now)
        try await store.createOperator(op, passwordHash: "hash", audit: audit("operator.create", op.id))
        return op
    }

    static func invite(_ store: SQLStore, _ email: String, token: String, mail: Bool = true) async throws -> OperatorInvitation {
        let invitation = OperatorInvitation(
            id: Identifier.make(prefix: "inv"), email: email, role: .support, invitedBy: "operator:owner@example.com", createdAt: now,
            expiresAt: now.addingTimeInterval(TeamRules.invitationLifetime))
        try await store.createInvitation(
            invitation, tokenHash: SecretToken.hash(token),
            email: mail ? TeamEmail(kind: .invitation, recipient: email, subjectID: invitation.id, createdAt: now) : nil,
            audit: audit("team.invite", invitation.id))
        return invitation
    }

    @Test(arguments: TestDatabases.available)
    func anInvitationIsAcceptedOnceAndOnlyWhilePending(_ backend: TestBackend) async throws {
        try await TestDatabases.withStore(backend) { store in
            _ = try await Self.owner(store)
            let invitation = try await Self.invite(store, "new@example.com", token: "token-one-aaaaaaaaaaaaaaaa")
            // The same address cannot be invited twice while one is pending, nor an operator's.
            await #expect(throws: StoreError.self) { _ = try await Self.invite(store, "new@example.com", token: "token-two-aaaaaaaaaaaaaaaa") }
            await #expect(throws: StoreError.self) { _ = try await Self.invite(store, "owner@example.com", token: "token-3-aaaaaaaaaaaaaaaa") }
            // Past its week it is expired, and nothing is created.
            await #expect(throws: InvitationUnusable(state: .expired)) {
                _ = try await store.acceptInvitation(
                    tokenHash: SecretToken.hash("token-one-aaaaaaaaaaaaaaaa"), operatorID: "op_late", name: "Late", passwordHash: "h",
                    now: invitation.expiresAt)
            }
            let op = try await store.acceptInvitation(
                tokenHash: SecretToken.hash("token-one-aaaaaaaaaaaaaaaa"), operatorID: "op_new", name: "New Person", passwordHash: "h",
                now: Self.now.addingTimeInterval(60))
            #expect(op.email == "new@example.com" && op.role == .support)
            let members = try await store.teamMembers()
            #expect(members.first { $0.operator.id == "op_new" }?.name == "New Person")
            await #expect(throws: InvitationUnusable(state: .accepted)) {
                _ = try await store.acceptInvitation(
                    tokenHash: SecretToken.hash("token-one-aaaaaaaaaaaaaaaa"), operatorID: "op_again", name: "Again", passwordHash: "h",
                    now: Self.now.addingTimeInterval(120))
            }
            await #expect(throws: InvitationUnusable(state: nil)) {
                _ = try await store.acceptInvitation(
                    tokenHash: SecretToken.hash("unknown"), operatorID: "op_x", name: "X", passwordHash: "h", now: Self.now)
            }
            #expect(try await store.openInvitations().isEmpty)
            let log = try await store.auditLog()
            #expect(log.contains { $0.action == "team.invitation.accept" && $0.objectID == "op_new" })
            #expect(try await store.operators().count == 2)
        }
    }

    @Test(arguments: TestDatabases.available)
    func revokedAndRenewedInvitationsChangeWhichLinkWorks(_ backend: TestBackend) async throws {
        try await TestDatabases.withStore(backend) { store in
            let first = try await Self.invite(store, "a@example.com", token: "first-token-aaaaaaaaaaaaaa", mail: false)
            let renewed = try await store.renewInvitation(
                id: first.id, tokenHash: SecretToken.hash("second-token-aaaaaaaaaaaaa"), expiresAt: Self.now.addingTimeInterval(9 * 86_400),
                email: nil, audit: Self.audit("team.invitation.resend", first.id))
            #expect(renewed.expiresAt == Self.now.addingTimeInterval(9 * 86_400))
            #expect(try await store.invitation(tokenHash: SecretToken.hash("first-token-aaaaaaaaaaaaaa")) == nil)
            #expect(try await store.invitation(tokenHash: SecretToken.hash("second-token-aaaaaaaaaaaaa"))?.id == first.id)
            _ = try await store.revokeInvitation(id: first.id, now: Self.now, audit: Self.audit("team.invitation.revoke", first.id))
            await #expect(throws: InvitationUnusable(state: .revoked)) {
                _ = try await store.acceptInvitation(
                    tokenHash: SecretToken.hash("second-token-aaaaaaaaaaaaa"), operatorID: "op_r", name: "R", passwordHash: "h", now: Self.now)
            }
            // A revoked invitation's queued e-mail mints no link.
            #expect(try await store.mintInvitationToken(id: first.id, tokenHash: "h", now: Self.now) == nil)
            await #expect(throws: StoreError.self) {
                _ = try await store.revokeInvitation(id: first.id, now: Self.now, audit: Self.audit("team.invitation.revoke", first.id))
            }
        }
    }

    @Test(arguments: TestDatabases.available)
    func changesFollowTheRulesAndDisablingEndsSessions(_ backend: TestBackend) async throws {
        try await TestDatabases.withStore(backend) { store in
            let owner = try await Self.owner(store)
            let helper = try await Self.owner(store, "help@example.com", role: .support)
            try await store.createOperatorSession(tokenHash: "session-hash", operatorID: helper.id, now: Self.now)
            await #expect(throws: TeamRules.Refusal.lastOwner) {
                _ = try await store.changeOperator(
                    actorID: owner.id, targetID: owner.id, .changeRole(.support), now: Self.now, audit: Self.audit("operator.role"))
            }
            await #expect(throws: TeamRules.Refusal.notOwner) {
                _ = try await store.changeOperator(
                    actorID: helper.id, targetID: owner.id, .disable, now: Self.now, audit: Self.audit("operator.disable"))
            }
            let disabled = try await store.changeOperator(
                actorID: owner.id, targetID: helper.id, .disable, now: Self.now, audit: Self.audit("operator.disable", helper.id))
            #expect(disabled.disabledAt == Self.now)
            #expect(try await store.operatorSession(tokenHash: "session-hash")?.endedAt == Self.now)
            let promoted = try await store.changeOperator(
                actorID: owner.id, targetID: helper.id, .changeRole(.owner), now: Self.now, audit: Self.audit("operator.role", helper.id))
            #expect(promoted.role == .owner)
            // A refused change leaves no record; the applied ones each left theirs.
            let actions = try await store.auditLog().map(\.action)
            #expect(actions.filter { $0 == "operator.disable" }.count == 1)
            #expect(actions.filter { $0 == "operator.role" }.count == 1)
        }
    }

    @Test(arguments: TestDatabases.available)
    func aResetLinkWorksOnceEndsSessionsAndUnknownAddressesQueueNothing(_ backend: TestBackend) async throws {
        try await TestDatabases.withStore(backend) { store in
            let owner = try await Self.owner(store)
            #expect(try await store.requestPasswordReset(email: "nobody@example.com", now: Self.now, quietPeriod: 60) == false)
            #expect(try await store.requestPasswordReset(email: owner.email, now: Self.now, quietPeriod: 60))
            // Within the quiet period a second request queues nothing.
            #expect(try await store.requestPasswordReset(email: owner.email, now: Self.now.addingTimeInterval(30), quietPeriod: 60) == false)
            let due = try await store.claimDueTeamEmails(now: Self.now, lease: 60, limit: 10)
            #expect(due.map(\.kind) == [.passwordReset] && due.first?.subjectID == owner.id)
            #expect(try await store.claimDueTeamEmails(now: Self.now, lease: 60, limit: 10).isEmpty)
            let expires = Self.now.addingTimeInterval(TeamRules.resetLinkLifetime)
            #expect(
                try await store.insertPasswordResetToken(tokenHash: "reset-hash", operatorID: owner.id, now: Self.now, expiresAt: expires)
                    == owner.email)
            #expect(try await store.passwordResetIsLive(tokenHash: "reset-hash", now: Self.now))
            #expect(try await store.passwordResetIsLive(tokenHash: "reset-hash", now: expires) == false)
            try await store.createOperatorSession(tokenHash: "s1", operatorID: owner.id, now: Self.now)
            #expect(try await store.completePasswordReset(tokenHash: "reset-hash", passwordHash: "new", now: expires) == nil)
            #expect(try await store.completePasswordReset(tokenHash: "reset-hash", passwordHash: "new", now: Self.now) == owner.email)
            #expect(try await store.completePasswordReset(tokenHash: "reset-hash", passwordHash: "newer", now: Self.now) == nil)
            #expect(try await store.operatorCredentials(email: owner.email)?.passwordHash == "new")
            #expect(try await store.operatorSession(tokenHash: "s1")?.endedAt == Self.now)
            let audit = try await store.auditLog()
            let actions = audit.map(\.action)
            #expect(actions.contains("operator.password_reset.request") && actions.contains("operator.password_reset.complete"))
            // Anyone can ask for a reset: the request is not recorded as the operator's own act.
            #expect(audit.first { $0.action == "operator.password_reset.request" }?.actor == "sign-in page")
        }
    }
}

import Foundation
import HummingbirdBcrypt
import RedeemCore
import RedeemStore

/// The console's team: owners invite operators by e-mail, revoke and resend invitations, disable and enable operators,
/// change roles and reset two-factor sign-in; anyone asks for a password-reset link. Who may do what to whom is Core's
/// `TeamRules`, applied by the store inside each change's transaction; every change is audited.
public struct TeamService: Sendable {
    let store: any TeamStore
    let clock: any RedeemClock
    let limiter: RateLimiter
    /// Sends invitations and reset links; nil without e-mail (an invitation's link is then shown to the owner).
    let mailer: TeamMailer?
    let publicURL: URL
    /// bcrypt's cost, as `OperatorService`'s.
    var cost: UInt8 = 12

    /// One reset e-mail per operator per this long, whoever asks.
    static let resetQuietPeriod: TimeInterval = 60

    struct Team: Sendable {
        let members: [TeamMember]
        let invitations: [OperatorInvitation]
    }

    func team() async throws -> Team {
        Team(members: try await store.teamMembers(), invitations: try await store.openInvitations())
    }

    /// A new or renewed invitation; `link` is its URL when no e-mail carries it (e-mail off), to hand over by other means.
    struct Invited: Sendable {
        let invitation: OperatorInvitation
        let link: String?
    }

    func invite(email text: String, role: OperatorRole, by session: ConsoleSession) async throws -> Invited {
        try requireOwner(session)
        return try await invite(email: text, role: role, actor: session.actor)
    }

    /// An invitation from `actor` (an owner's session, or the CLI, which has the server's database).
    func invite(email text: String, role: OperatorRole, actor: String) async throws -> Invited {
        let email = Operator.normalize(email: text)
        guard Formats.isEmail(email), email.count <= 254 else { throw ValidationError(field: "email", reason: "must be an e-mail address") }
        let now = clock.now()
        let invitation = OperatorInvitation(
            id: Identifier.make(prefix: "inv"), email: email, role: role, invitedBy: actor, createdAt: now,
            expiresAt: now.addingTimeInterval(TeamRules.invitationLifetime))
        let token = SecretToken.generate(byteCount: 32)
        let audit = AuditEntry(
            at: now, actor: actor, action: "team.invite", objectType: "invitation", objectID: invitation.id, appID: nil,
            detail: "\(email) as \(role.rawValue)")
        try await store.createInvitation(invitation, tokenHash: SecretToken.hash(token), email: mail(invitation, now: now), audit: audit)
        mailer?.wake()
        return Invited(invitation: invitation, link: mailer == nil ? Self.invitationURL(publicURL, token: token) : nil)
    }

    /// Sends an open invitation again with a new link and a new week; the old link stops working.
    func resend(invitationID: String, by session: ConsoleSession) async throws -> Invited {
        try requireOwner(session)
        let now = clock.now()
        let token = SecretToken.generate(byteCount: 32)
        let audit = AuditEntry(
            at: now, actor: session.actor, action: "team.invitation.resend", objectType: "invitation", objectID: invitationID, appID: nil)
        let email = mailer == nil ? nil : TeamEmail(kind: .invitation, recipient: "", subjectID: invitationID, createdAt: now)
        let invitation = try await store.renewInvitation(
            id: invitationID, tokenHash: SecretToken.hash(token), expiresAt: now.addingTimeInterval(TeamRules.invitationLifetime), email: email,
            audit: audit)
        mailer?.wake()
        return Invited(invitation: invitation, link: mailer == nil ? Self.invitationURL(publicURL, token: token) : nil)
    }

    func revoke(invitationID: String, by session: ConsoleSession) async throws -> OperatorInvitation {
        try requireOwner(session)
        let now = clock.now()
        let audit = AuditEntry(
            at: now, actor: session.actor, action: "team.invitation.revoke", objectType: "invitation", objectID: invitationID, appID: nil)
        return try await store.revokeInvitation(id: invitationID, now: now, audit: audit)
    }

    /// Disables, enables, changes the role of, or resets the two-factor sign-in of another operator.
    func change(_ change: TeamRules.Change, operatorID: String, by session: ConsoleSession) async throws -> Operator {
        try requireOwner(session)
        let now = clock.now()
        let (action, detail): (String, String?) =
            switch change {
            case .disable: ("operator.disable", "every session ended")
            case .enable: ("operator.enable", nil)
            case .changeRole(let role): ("operator.role", "now \(role.rawValue)")
            case .resetTwoFactor: ("operator.two_factor.reset", "enrols again at next sign-in")
            }
        let audit = AuditEntry(
            at: now, actor: session.actor, action: action, objectType: "operator", objectID: operatorID, appID: nil, detail: detail)
        do {
            return try await store.changeOperator(actorID: session.operator.id, targetID: operatorID, change, now: now, audit: audit)
        } catch let refusal as TeamRules.Refusal {
            throw refusal == .notOwner ? APIError.forbidden(refusal.message) : APIError.conflict(refusal.message)
        }
    }

    /// The invitation a link names, for its page (opening it uses nothing); rate-limited, as a token can be guessed at.
    func invitation(token: String, ip: String?) async throws -> (OperatorInvitation?, TeamRules.InvitationState?) {
        try await limiter.teamLink(ip: ip)
        guard Self.plausible(token), let invitation = try await store.invitation(tokenHash: SecretToken.hash(token)) else { return (nil, nil) }
        return (invitation, invitation.state(now: clock.now()))
    }

    /// Uses an invitation: the new operator with their name and password (the CLI's rules). Throws
    /// `InvitationUnusable` when the link no longer works, `ValidationError` for the form.
    func accept(token: String, name text: String, password: String, confirmation: String, ip: String?) async throws -> Operator {
        try await limiter.teamLink(ip: ip)
        guard Self.plausible(token) else { throw InvitationUnusable(state: nil) }
        guard let name = TeamRules.name(text) else {
            throw ValidationError(field: "name", reason: "must be 1 to \(TeamRules.maximumNameLength) characters on one line")
        }
        try Self.check(password: password, confirmation: confirmation)
        return try await store.acceptInvitation(
            tokenHash: SecretToken.hash(token), operatorID: Operator.generateID(), name: name,
            passwordHash: Bcrypt.hash(password, cost: cost), now: clock.now())
    }

    /// E-mails a reset link when an enabled operator has the address; the caller answers the same either way.
    func requestReset(email text: String, ip: String?) async throws {
        let email = Operator.normalize(email: text)
        guard Formats.isEmail(email), email.count <= 254 else { throw ValidationError(field: "email", reason: "must be an e-mail address") }
        try await limiter.passwordReset(ip: ip, email: email)
        guard mailer != nil else { return }
        if try await store.requestPasswordReset(email: email, now: clock.now(), quietPeriod: Self.resetQuietPeriod) { mailer?.wake() }
    }

    func resetLinkIsLive(token: String, ip: String?) async throws -> Bool {
        try await limiter.teamLink(ip: ip)
        guard Self.plausible(token) else { return false }
        return try await store.passwordResetIsLive(tokenHash: SecretToken.hash(token), now: clock.now())
    }

    /// Uses a reset link once; every session of the operator ends. nil when the link does not work.
    func completeReset(token: String, password: String, confirmation: String, ip: String?) async throws -> String? {
        try await limiter.teamLink(ip: ip)
        guard Self.plausible(token) else { return nil }
        try Self.check(password: password, confirmation: confirmation)
        return try await store.completePasswordReset(
            tokenHash: SecretToken.hash(token), passwordHash: Bcrypt.hash(password, cost: cost), now: clock.now())
    }

    var mailOn: Bool { mailer != nil }

    static func invitationURL(_ publicURL: URL, token: String) -> String {
        publicURL.absoluteString.trimmingCharacters(in: CharacterSet(charactersIn: "/")) + "/console/invitation/" + token
    }

    static func resetURL(_ publicURL: URL, token: String) -> String {
        publicURL.absoluteString.trimmingCharacters(in: CharacterSet(charactersIn: "/")) + "/console/reset/" + token
    }

    /// The password rules of `OperatorService` (the CLI's), and the two fields agreeing.
    static func check(password: String, confirmation: String) throws {
        try OperatorService.check(password: password)
        guard password == confirmation else { throw ValidationError(field: "confirm", reason: "must match the password") }
    }

    /// Tokens we mint are 43 characters; anything far off is not looked up.
    static func plausible(_ token: String) -> Bool { (20...128).contains(token.count) }

    private func mail(_ invitation: OperatorInvitation, now: Date) -> TeamEmail? {
        mailer == nil ? nil : TeamEmail(kind: .invitation, recipient: invitation.email, subjectID: invitation.id, createdAt: now)
    }

    private func requireOwner(_ session: ConsoleSession) throws {
        guard session.operator.role.may(.manageTeam) else {
            throw APIError.forbidden("Your role (\(session.operator.role.rawValue)) may not manage the team. Ask an owner.")
        }
    }
}

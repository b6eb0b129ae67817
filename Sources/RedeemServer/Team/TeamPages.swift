import Foundation
import RedeemCore
import RedeemStore

/// The team page: the operators and the open invitations; with an owner's controls when `manage`.
struct TeamPage: PageModel {
    struct Member: Sendable {
        let id: String
        let email: String
        let name: String?
        let role: String
        let disabled: Bool
        let twoFactor: Bool
        let joined: String
        let isYou: Bool
        let otherRole: String
        let otherRoleLabel: String
    }

    struct Invitation: Sendable {
        let id: String
        let email: String
        let role: String
        let invitedBy: String
        let expires: String
        let expired: Bool
    }

    let members: [Member]
    let invitations: [Invitation]
    let hasInvitations: Bool
    let manage: Bool
    let mailOn: Bool
    let notice: String?
    let error: String?
    /// The invite form as typed, when it was refused.
    let typedEmail: String
    let roles: [Choice]
    /// An invitation's link, shown once when no e-mail carries it.
    let link: String?
}

/// An invitation link's page: its form, or why it does not work and what to do.
struct InvitationPage: PageModel {
    let csrf: String?
    let action: String?
    let email: String?
    let roleWords: String?
    let name: String
    let error: String?
    let refusalTitle: String?
    let refusal: String?
}

/// "Forgot your password?": the address form, then "check your inbox" (the same whether or not it is an operator's).
struct ResetRequestPage: PageModel {
    let csrf: String
    let email: String
    let sent: Bool
    let error: String?
    let mailOn: Bool
}

/// A reset link's page: the new password's form, or why the link does not work.
struct ResetPasswordPage: PageModel {
    let csrf: String?
    let action: String?
    let error: String?
    let expired: Bool
}

/// The team's values in an operator's words.
enum TeamPresenter {
    static func roleWords(_ role: OperatorRole) -> String {
        switch role {
        case .owner: "an owner (everything: settings, keys, refunds, the team)"
        case .support: "support (look up customers, send links, re-send e-mails, grant)"
        }
    }

    /// `operator:ann@example.com` is Ann's address; the CLI is "the command line".
    static func actorEmail(_ actor: String) -> String {
        actor.hasPrefix("operator:") ? String(actor.dropFirst("operator:".count)) : actor == "cli" ? "the command line" : actor
    }

    static func page(
        _ team: TeamService.Team, session: ConsoleSession, mailOn: Bool, now: Date, notice: String? = nil, error: String? = nil,
        typedEmail: String = "", typedRole: OperatorRole = .support, link: String? = nil
    ) -> TeamPage {
        let members = team.members.map { member in
            let op = member.operator
            let other: OperatorRole = op.role == .owner ? .support : .owner
            return TeamPage.Member(
                id: op.id, email: op.email, name: member.name, role: op.role.rawValue, disabled: op.disabledAt != nil,
                twoFactor: op.twoFactorEnabledAt != nil, joined: ConsolePresenter.date(op.createdAt), isYou: op.id == session.operator.id,
                otherRole: other.rawValue, otherRoleLabel: other == .owner ? "Make owner" : "Make support")
        }
        let invitations = team.invitations.map {
            TeamPage.Invitation(
                id: $0.id, email: $0.email, role: $0.role.rawValue, invitedBy: actorEmail($0.invitedBy),
                expires: ConsolePresenter.date($0.expiresAt), expired: $0.state(now: now) == .expired)
        }
        return TeamPage(
            members: members, invitations: invitations, hasInvitations: !invitations.isEmpty, manage: session.operator.role.may(.manageTeam),
            mailOn: mailOn, notice: notice,
            error: error, typedEmail: typedEmail,
            roles: OperatorRole.allCases.map { Choice(value: $0.rawValue, label: $0.rawValue, selected: $0 == typedRole) }, link: link)
    }

    /// Why an invitation link does not work, and what to do next.
    static func refusal(_ state: TeamRules.InvitationState?) -> (title: String, text: String) {
        switch state {
        case .expired?:
            ("This invitation has expired", "Invitations work for 7 days. Ask an owner of the team to send it again from the Team page.")
        case .accepted?:
            ("This invitation was already used", "Its account exists: sign in with the e-mail address it was sent to.")
        case .revoked?:
            ("This invitation was withdrawn", "An owner revoked it. If you should have access, ask an owner to invite you again.")
        case .pending?, nil:
            ("This invitation link does not work", "Check that you opened the whole link from the e-mail, or ask an owner for a new one.")
        }
    }
}

/// What the team page says after an owner's change. Only these fixed texts are shown, so a link cannot put words there.
enum TeamNotice: String, Sendable {
    case invited, resent, revoked, disabled, enabled, role
    case twoFactor = "two-factor"

    var text: String {
        switch self {
        case .invited: "Invitation sent. It works for 7 days."
        case .resent: "Invitation sent again with a new link; the old link no longer works."
        case .revoked: "Invitation revoked; its link no longer works."
        case .disabled: "Operator disabled. Their sessions have ended and they cannot sign in."
        case .enabled: "Operator enabled. They can sign in again."
        case .role: "Role changed."
        case .twoFactor: "Two-factor sign-in reset. They set it up again after their next sign-in, if required or wanted."
        }
    }
}

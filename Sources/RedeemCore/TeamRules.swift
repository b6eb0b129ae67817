import Foundation

/// Who may change whom in the console's team, and whether an invitation or a password-reset link still works. Pure:
/// the store reads the team and the invitation, these decide.
public enum TeamRules {
    /// An invitation link works for a week from when it was (last) sent.
    public static let invitationLifetime: TimeInterval = 7 * 86_400
    /// A password-reset link works once, as briefly as the portal's sign-in links.
    public static let resetLinkLifetime: TimeInterval = PortalRules.signInLinkLifetime
    /// A name, as typed on the invitation's form.
    public static let maximumNameLength = 100

    /// A change one operator makes to another.
    public enum Change: Equatable, Sendable {
        case disable
        case enable
        case changeRole(OperatorRole)
        case resetTwoFactor
    }

    /// Why a change is refused, as a sentence an owner reads.
    public enum Refusal: Error, Equatable, Sendable {
        case notOwner
        case yourself
        case lastOwner
        case alreadyAsked

        public var message: String {
            switch self {
            case .notOwner: "Only an owner can manage the team."
            case .yourself: "You cannot do that to yourself; ask another owner."
            case .lastOwner: "This is the last active owner: make someone else an owner first."
            case .alreadyAsked: "Nothing to change: it is already so."
            }
        }
    }

    /// Owners still able to sign in.
    public static func activeOwners(_ team: [Operator]) -> Int {
        team.filter { $0.role == .owner && $0.disabledAt == nil }.count
    }

    /// nil when `actor` may make `change` to `target`, given the whole team; otherwise why not.
    public static func refusal(_ change: Change, by actor: Operator, to target: Operator, team: [Operator]) -> Refusal? {
        guard actor.role == .owner, actor.disabledAt == nil else { return .notOwner }
        let removesAnOwner: Bool
        switch change {
        case .disable:
            if target.id == actor.id { return .yourself }
            if target.disabledAt != nil { return .alreadyAsked }
            removesAnOwner = target.role == .owner
        case .enable:
            return target.disabledAt == nil ? .alreadyAsked : nil
        case .changeRole(let role):
            if target.role == role { return .alreadyAsked }
            removesAnOwner = target.role == .owner && target.disabledAt == nil
        case .resetTwoFactor:
            // Their own goes through the account page, with a code.
            if target.id == actor.id { return .yourself }
            return target.twoFactorEnabledAt == nil ? .alreadyAsked : nil
        }
        if removesAnOwner && activeOwners(team) <= 1 { return .lastOwner }
        return nil
    }

    /// What an invitation link leads to now.
    public enum InvitationState: String, Equatable, Sendable {
        case pending, expired, accepted, revoked
    }

    public static func state(expiresAt: Date, acceptedAt: Date?, revokedAt: Date?, now: Date) -> InvitationState {
        if acceptedAt != nil { return .accepted }
        if revokedAt != nil { return .revoked }
        return now < expiresAt ? .pending : .expired
    }

    /// Whether an e-mailed reset link still works: unused and within its lifetime.
    public static func resetLinkWorks(expiresAt: Date, usedAt: Date?, now: Date) -> Bool {
        usedAt == nil && now < expiresAt
    }

    /// A name as typed: trimmed, not empty, not too long; nil when refused.
    public static func name(_ text: String) -> String? {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !trimmed.isEmpty, trimmed.count <= maximumNameLength, !trimmed.contains(where: { $0.isNewline }) else { return nil }
        return trimmed
    }
}

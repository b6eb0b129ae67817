import Foundation

/// What an operator of the console may do: `owner` everything; `support` looks up, sends links, re-sends e-mails and
/// grants, but does not refund, revoke, change settings or manage keys.
public enum OperatorRole: String, Codable, CaseIterable, Sendable {
    case owner
    case support
}

/// A person who signs in to the console.
public struct Operator: Codable, Hashable, Sendable {
    public var id: String
    public var email: String
    public var role: OperatorRole
    public var createdAt: Date
    public var disabledAt: Date?
    /// When the operator enrolled an authenticator app; nil without two-factor sign-in.
    public var twoFactorEnabledAt: Date?

    public init(id: String, email: String, role: OperatorRole, createdAt: Date, disabledAt: Date? = nil, twoFactorEnabledAt: Date? = nil) {
        self.id = id
        self.email = email
        self.role = role
        self.createdAt = createdAt
        self.disabledAt = disabledAt
        self.twoFactorEnabledAt = twoFactorEnabledAt
    }

    public static func generateID() -> String { "op_" + SecretToken.generate(byteCount: 12) }

    /// Operators are found by e-mail: trimmed and compared in lower case.
    public static func normalize(email: String) -> String { email.trimmingCharacters(in: .whitespacesAndNewlines).lowercased() }

    enum CodingKeys: String, CodingKey {
        case id, email, role
        case createdAt = "created_at"
        case disabledAt = "disabled_at"
        case twoFactorEnabledAt = "two_factor_enabled_at"
    }
}

/// A console session: how long it lives unused, and for how long a sign-in lasts at most.
public enum OperatorSessionRules {
    /// Ends after this long without a request.
    public static let idleTimeout: TimeInterval = 8 * 3600
    /// Ends this long after sign-in, used or not.
    public static let maximumAge: TimeInterval = 7 * 86_400
    /// How stale `last_seen_at` may get before a request refreshes it: at most one write a minute per session.
    public static let touchResolution: TimeInterval = 60

    /// A sign-in waiting for its authenticator code lapses this soon after the password was accepted.
    public static let codeWindow: TimeInterval = 300

    /// Whether a signed-in operator must enrol an authenticator before anything else: only owners, only when the
    /// instance requires it.
    public static func mustEnrol(_ op: Operator, ownersNeedTwoFactor: Bool) -> Bool {
        ownersNeedTwoFactor && op.role == .owner && op.twoFactorEnabledAt == nil
    }

    public static func isLive(createdAt: Date, lastSeen: Date, endedAt: Date?, now: Date) -> Bool {
        endedAt == nil && now.timeIntervalSince(lastSeen) < idleTimeout && now.timeIntervalSince(createdAt) < maximumAge
    }
}

/// What a console operator can do; `OperatorRole.may` decides who may.
public enum OperatorAction: String, CaseIterable, Sendable {
    case lookUp, sendLink, resendEmail, grant, refund, revoke, cancel, transfer, changeSettings, manageKeys
    /// Choose a customer's current offering (RevenueCat's offering override).
    case chooseOffering
    /// A customer's whole record: their addresses unmasked, the export, the erasure (owners).
    case seeEmails, exportCustomer, eraseCustomer
    /// Invite, disable and re-enable operators, change roles, reset their two-factor sign-in (`TeamRules`).
    case manageTeam
}

extension OperatorRole {
    /// Owners may do everything; support may look up, send links, re-send e-mails, grant and choose an offering.
    public func may(_ action: OperatorAction) -> Bool {
        switch self {
        case .owner: true
        case .support: [.lookUp, .sendLink, .resendEmail, .grant, .chooseOffering].contains(action)
        }
    }
}

import Foundation
import HummingbirdBcrypt
import RedeemCore
import RedeemStore

/// Operators of the console: created, listed, disabled and given new passwords, from the CLI (and later the console).
/// Passwords are kept only as bcrypt hashes and never logged; every change is in the audit log.
public struct OperatorService: Sendable {
    let store: any OperatorStore
    let clock: any RedeemClock
    /// bcrypt's cost: 12 in production (about a quarter of a second per check, which is the point).
    let cost: UInt8

    public init(store: any OperatorStore, clock: any RedeemClock = SystemClock(), cost: UInt8 = 12) {
        self.store = store
        self.clock = clock
        self.cost = cost
    }

    public static let minimumPasswordLength = 12

    public func create(email: String, role: OperatorRole, password: String, actor: String) async throws -> Operator {
        let email = Operator.normalize(email: email)
        guard Formats.isEmail(email) else { throw ValidationError(field: "email", reason: "must be an e-mail address") }
        try Self.check(password: password)
        let op = Operator(id: Operator.generateID(), email: email, role: role, createdAt: clock.now())
        let audit = AuditEntry(
            at: op.createdAt, actor: actor, action: "operator.create", objectType: "operator", objectID: op.id, appID: nil,
            detail: "\(email) as \(role.rawValue)")
        try await store.createOperator(op, passwordHash: Bcrypt.hash(password, cost: cost), audit: audit)
        return op
    }

    public func list() async throws -> [Operator] { try await store.operators() }

    public func setDisabled(email: String, _ disabled: Bool, actor: String) async throws -> Operator {
        let now = clock.now()
        let email = Operator.normalize(email: email)
        let audit = AuditEntry(
            at: now, actor: actor, action: disabled ? "operator.disable" : "operator.enable", objectType: "operator", objectID: email,
            appID: nil)
        return try await store.setOperatorDisabled(email: email, disabled, now: now, audit: audit)
    }

    public func resetPassword(email: String, password: String, actor: String) async throws {
        try Self.check(password: password)
        let now = clock.now()
        let email = Operator.normalize(email: email)
        let audit = AuditEntry(at: now, actor: actor, action: "operator.password", objectType: "operator", objectID: email, appID: nil)
        try await store.setOperatorPassword(email: email, passwordHash: Bcrypt.hash(password, cost: cost), now: now, audit: audit)
    }

    /// Turns an operator's two-factor sign-in off, for one who lost their phone; they enrol again after signing in.
    public func resetTwoFactor(email: String, actor: String) async throws {
        let email = Operator.normalize(email: email)
        let audit = AuditEntry(
            at: clock.now(), actor: actor, action: "operator.two_factor.reset", objectType: "operator", objectID: email, appID: nil)
        try await store.disableTwoFactor(email: email, audit: audit)
    }

    static func check(password: String) throws {
        guard password.count >= minimumPasswordLength else {
            throw ValidationError(field: "password", reason: "must be at least \(minimumPasswordLength) characters")
        }
        // bcrypt reads at most 72 bytes: a longer password would match any password sharing its first 72.
        guard password.utf8.count <= 72 else { throw ValidationError(field: "password", reason: "must be at most 72 bytes") }
    }
}

import Foundation
import RedeemCore

/// An operator with the bcrypt hash of their password, for signing in.
public struct OperatorCredentials: Sendable {
    public let `operator`: Operator
    public let passwordHash: String
}

/// A console session as stored: only the SHA-256 of its token.
public struct OperatorSessionRecord: Sendable {
    public let `operator`: Operator
    public let createdAt: Date
    public let lastSeen: Date
    public let endedAt: Date?
    /// The password was right; the authenticator code is still to come.
    public let awaitingCode: Bool
    /// The operator's authenticator secret: enrolled, or being enrolled (see `Operator.twoFactorEnabledAt`).
    public let totpSecret: String?
}

/// One write, as the audit log keeps it.
public struct AuditEntry: Codable, Hashable, Sendable {
    public var id: String
    public var at: Date
    /// `operator:<email>`, `key:<key id>` or `cli`.
    public var actor: String
    public var action: String
    public var objectType: String
    public var objectID: String
    public var appID: String?
    public var detail: String?

    public init(at: Date, actor: String, action: String, objectType: String, objectID: String, appID: String?, detail: String? = nil) {
        // Time-ordered, so entries written in the same millisecond list in the order they were made.
        self.id = Identifier.make(prefix: "aud")
        self.at = at
        self.actor = actor
        self.action = action
        self.objectType = objectType
        self.objectID = objectID
        self.appID = appID
        self.detail = detail
    }

    enum CodingKeys: String, CodingKey {
        case id, at, actor, action, detail
        case objectType = "object_type"
        case objectID = "object_id"
        case appID = "app_id"
    }
}

extension SQLStore {
    public func createOperator(_ op: Operator, passwordHash: String, audit: AuditEntry) async throws {
        try await write(audit: audit) { connection in
            if try await connection.first("SELECT id FROM operators WHERE email = \(op.email)") != nil {
                throw StoreError.conflict("an operator with e-mail '\(op.email)' exists")
            }
            try await connection.query(
                """
                INSERT INTO operators (id, email, role, password_hash, created_at)
                VALUES (\(op.id), \(op.email), \(op.role.rawValue), \(passwordHash), \(op.createdAt))
                """)
        }
    }

    public func operators() async throws -> [Operator] {
        try await read { connection in
            try await connection.query("SELECT * FROM operators ORDER BY created_at, id").map(Operator.init(row:))
        }
    }

    public func operatorCredentials(email: String) async throws -> OperatorCredentials? {
        try await read { connection in
            guard let row = try await connection.first("SELECT * FROM operators WHERE email = \(email)") else { return nil }
            return OperatorCredentials(operator: try Operator(row: row), passwordHash: try row.string("password_hash"))
        }
    }

    /// Disables an operator and ends their sessions, or enables them again.
    public func setOperatorDisabled(email: String, _ disabled: Bool, now: Date, audit: AuditEntry) async throws -> Operator {
        try await write(audit: audit) { connection in
            guard
                let row = try await connection.first(
                    "UPDATE operators SET disabled_at = \(disabled ? now : nil) WHERE email = \(email) RETURNING *")
            else { throw StoreError.notFound("operator '\(email)'") }
            let op = try Operator(row: row)
            if disabled {
                try await connection.query("UPDATE operator_sessions SET ended_at = \(now) WHERE operator_id = \(op.id) AND ended_at IS NULL")
            }
            return op
        }
    }

    /// A new password ends every session of the operator.
    public func setOperatorPassword(email: String, passwordHash: String, now: Date, audit: AuditEntry) async throws {
        try await write(audit: audit) { connection in
            guard
                let row = try await connection.first(
                    "UPDATE operators SET password_hash = \(passwordHash) WHERE email = \(email) RETURNING id")
            else { throw StoreError.notFound("operator '\(email)'") }
            try await connection.query(
                "UPDATE operator_sessions SET ended_at = \(now) WHERE operator_id = \(try row.string("id")) AND ended_at IS NULL")
        }
    }

    public func createOperatorSession(tokenHash: String, operatorID: String, awaitingCode: Bool = false, now: Date) async throws {
        try await single { connection in
            try await connection.query(
                """
                INSERT INTO operator_sessions (token_hash, operator_id, created_at, last_seen_at, awaiting_code)
                VALUES (\(tokenHash), \(operatorID), \(now), \(now), \(awaitingCode ? 1 : 0))
                """)
        }
    }

    /// Accepts the code of time step `step` for a session waiting for it, once: a step at or before the last one used
    /// is refused (a code seen over a shoulder does not work again).
    public func completeSecondFactor(tokenHash: String, operatorID: String, step: Int64) async throws -> Bool {
        try await write { connection in
            let fresh = try await connection.query(
                """
                UPDATE operators SET totp_last_step = \(step)
                WHERE id = \(operatorID) AND totp_enabled_at IS NOT NULL AND (totp_last_step IS NULL OR totp_last_step < \(step))
                RETURNING id
                """)
            guard !fresh.isEmpty else { return false }
            try await connection.query("UPDATE operator_sessions SET awaiting_code = 0 WHERE token_hash = \(tokenHash)")
            return true
        }
    }

    /// Stores a new authenticator secret for an operator not yet enrolled; it counts once a code confirms it.
    public func startTwoFactorEnrolment(operatorID: String, secret: String) async throws {
        try await write { connection in
            let started = try await connection.query(
                "UPDATE operators SET totp_secret = \(secret) WHERE id = \(operatorID) AND totp_enabled_at IS NULL RETURNING id")
            if started.isEmpty { throw StoreError.conflict("Two-factor sign-in is already on; turn it off first.") }
        }
    }

    /// Turns two-factor sign-in on, with the time step of the code that confirmed the secret.
    public func enableTwoFactor(operatorID: String, step: Int64, now: Date, audit: AuditEntry) async throws {
        try await write(audit: audit) { connection in
            let enabled = try await connection.query(
                """
                UPDATE operators SET totp_enabled_at = \(now), totp_last_step = \(step)
                WHERE id = \(operatorID) AND totp_enabled_at IS NULL AND totp_secret IS NOT NULL RETURNING id
                """)
            if enabled.isEmpty { throw StoreError.conflict("Two-factor sign-in is already on.") }
        }
    }

    /// Turns two-factor sign-in off (the operator, or `redeem operators reset-two-factor` for a lost phone).
    public func disableTwoFactor(email: String, audit: AuditEntry) async throws {
        try await write(audit: audit) { connection in
            let cleared = try await connection.query(
                "UPDATE operators SET totp_secret = NULL, totp_enabled_at = NULL, totp_last_step = NULL WHERE email = \(email) RETURNING id")
            if cleared.isEmpty { throw StoreError.notFound("operator '\(email)'") }
        }
    }

    public func operatorSession(tokenHash: String) async throws -> OperatorSessionRecord? {
        try await read { connection in
            guard
                let row = try await connection.first(
                    """
                    SELECT o.*, s.created_at AS session_created_at, s.last_seen_at, s.ended_at, s.awaiting_code
                    FROM operator_sessions s JOIN operators o ON o.id = s.operator_id WHERE s.token_hash = \(tokenHash)
                    """)
            else { return nil }
            return OperatorSessionRecord(
                operator: try Operator(row: row), createdAt: try row.date("session_created_at"), lastSeen: try row.date("last_seen_at"),
                endedAt: row.optionalDate("ended_at"), awaitingCode: try row.int("awaiting_code") != 0, totpSecret: row.optionalString("totp_secret"))
        }
    }

    public func touchOperatorSession(tokenHash: String, now: Date) async throws {
        try await single { try await $0.query("UPDATE operator_sessions SET last_seen_at = \(now) WHERE token_hash = \(tokenHash)") }
    }

    public func endOperatorSession(tokenHash: String, now: Date) async throws {
        try await single {
            try await $0.query("UPDATE operator_sessions SET ended_at = \(now) WHERE token_hash = \(tokenHash) AND ended_at IS NULL")
        }
    }

    /// The newest entries first: all of them, or one app's (and with `includingInstance`, the instance's own, such
    /// as operator changes).
    public func auditLog(appID: String? = nil, includingInstance: Bool = false, limit: Int = 100) async throws -> [AuditEntry] {
        try await read { connection in
            let rows =
                switch (appID, includingInstance) {
                case (let appID?, true):
                    try await connection.query(
                        "SELECT * FROM audit_log WHERE app_id = \(appID) OR app_id IS NULL ORDER BY at DESC, id DESC LIMIT \(limit)")
                case (let appID?, false):
                    try await connection.query("SELECT * FROM audit_log WHERE app_id = \(appID) ORDER BY at DESC, id DESC LIMIT \(limit)")
                case (nil, _):
                    try await connection.query("SELECT * FROM audit_log ORDER BY at DESC, id DESC LIMIT \(limit)")
                }
            return try rows.map(AuditEntry.init(row:))
        }
    }

    /// Records an action whose one effect is elsewhere (asking Stripe to refund or cancel), before it is made: so no
    /// request reaches Stripe unrecorded. Its outcome arrives as Stripe's webhook, applied and recorded there.
    public func recordRequest(_ entry: AuditEntry) async throws {
        try await write(audit: entry) { _ in }
    }

    /// Inside a write's own transaction, so the record and the write commit together.
    static func insertAudit(_ entry: AuditEntry, on connection: any SQLConnection) async throws {
        try await connection.query(
            """
            INSERT INTO audit_log (id, at, actor, action, object_type, object_id, app_id, detail)
            VALUES (\(entry.id), \(entry.at), \(entry.actor), \(entry.action), \(entry.objectType), \(entry.objectID), \(entry.appID),
                \(entry.detail))
            """)
    }
}

extension Operator {
    init(row: SQLRow) throws {
        self.init(
            id: try row.string("id"), email: try row.string("email"), role: try row.enumeration("role"), createdAt: try row.date("created_at"),
            disabledAt: row.optionalDate("disabled_at"), twoFactorEnabledAt: row.optionalDate("totp_enabled_at"))
    }
}

extension AuditEntry {
    init(row: SQLRow) throws {
        self.init(
            at: try row.date("at"), actor: try row.string("actor"), action: try row.string("action"),
            objectType: try row.string("object_type"), objectID: try row.string("object_id"), appID: row.optionalString("app_id"),
            detail: row.optionalString("detail"))
        self.id = try row.string("id")
    }
}

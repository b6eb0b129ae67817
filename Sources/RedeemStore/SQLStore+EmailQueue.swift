import Foundation
import RedeemCore

extension SQLStore {
    /// Queues `email` unless one of its kind was queued for the same purchase within `quietPeriod`;
    /// decided by one conditional upsert, so concurrent callers queue at most one. Returns whether it was queued.
    public func enqueueEmail(_ email: QueuedEmail, quietPeriod: TimeInterval) async throws -> Bool {
        try await write { try await Self.enqueue(email, quietPeriod: quietPeriod, on: $0) }
    }

    static func enqueue(_ email: QueuedEmail, quietPeriod: TimeInterval, on connection: any SQLConnection) async throws -> Bool {
        let cutoff = email.createdAt.addingTimeInterval(-quietPeriod)
        let won = try await connection.query(
            """
            INSERT INTO email_throttle (purchase_id, kind, last_queued_at) VALUES (\(email.purchaseID), \(email.kind.rawValue), \(email.createdAt))
            ON CONFLICT (purchase_id, kind) DO UPDATE SET last_queued_at = excluded.last_queued_at
            WHERE email_throttle.last_queued_at <= \(cutoff)
            RETURNING purchase_id
            """)
        guard !won.isEmpty else { return false }
        try await connection.query(
            """
            INSERT INTO email_outbox (id, app_id, purchase_id, kind, recipient, language, created_at, next_attempt_at)
            VALUES (\(email.id), \(email.appID), \(email.purchaseID), \(email.kind.rawValue), \(email.recipient),
                \(email.language), \(email.createdAt), \(email.createdAt))
            """)
        return true
    }

    /// Leases up to `limit` due e-mails for `lease` seconds; another worker (or instance) skips leased rows, and on
    /// PostgreSQL rows another instance is claiming right now.
    public func claimDueEmails(now: Date, lease: TimeInterval, limit: Int) async throws -> [QueuedEmail] {
        try await write { connection in
            try await Self.leaseDue(.purchaseEmails, now: now, lease: lease, limit: limit, on: connection)
                .map(QueuedEmail.init(row:)).sorted { $0.createdAt < $1.createdAt }
        }
    }

    /// The e-mail outboxes: purchase e-mails (an app's, about a purchase) and team e-mails (an operator's, about no app).
    enum Outbox: String {
        case purchaseEmails = "email_outbox"
        case teamEmails = "team_emails"
    }

    /// Leases up to `limit` due rows of `outbox` for `lease` seconds and returns them; another worker (or instance)
    /// skips leased rows, and on PostgreSQL rows another instance is claiming right now.
    static func leaseDue(_ outbox: Outbox, now: Date, lease: TimeInterval, limit: Int, on connection: any SQLConnection) async throws -> [SQLRow] {
        let until = now.addingTimeInterval(lease)
        let skipLocked = connection.engine == .postgres ? "FOR UPDATE SKIP LOCKED" : ""
        return try await connection.query(
            """
            UPDATE \(unsafeRaw: outbox.rawValue) SET locked_until = \(until)
            WHERE id IN (
                SELECT id FROM \(unsafeRaw: outbox.rawValue)
                WHERE sent_at IS NULL AND failed_at IS NULL AND next_attempt_at <= \(now)
                    AND (locked_until IS NULL OR locked_until <= \(now))
                ORDER BY next_attempt_at LIMIT \(limit)
                \(unsafeRaw: skipLocked)
            ) AND sent_at IS NULL AND failed_at IS NULL AND (locked_until IS NULL OR locked_until <= \(now))
            RETURNING *
            """)
    }

    public func markEmailSent(id: String, at date: Date) async throws {
        try await write { connection in
            try await connection.query(
                """
                UPDATE email_outbox SET sent_at = \(date), attempts = attempts + 1, locked_until = NULL, last_error = NULL
                WHERE id = \(id)
                """)
        }
    }

    /// Records a failed attempt: retried at `retryAt`, or given up on when it is nil.
    public func markEmailFailed(id: String, error: String, retryAt: Date?, at date: Date) async throws {
        try await write { connection in
            if let retryAt {
                try await connection.query(
                    """
                    UPDATE email_outbox SET attempts = attempts + 1, next_attempt_at = \(retryAt), locked_until = NULL,
                        last_error = \(error) WHERE id = \(id)
                    """)
            } else {
                try await connection.query(
                    """
                    UPDATE email_outbox SET attempts = attempts + 1, failed_at = \(date), locked_until = NULL, last_error = \(error)
                    WHERE id = \(id)
                    """)
            }
        }
    }

    /// Every queued e-mail of a purchase, oldest first, for support and tests.
    public func emails(purchaseID: String) async throws -> [(email: QueuedEmail, sentAt: Date?, failedAt: Date?, lastError: String?)] {
        try await read { connection in
            try await connection.query("SELECT * FROM email_outbox WHERE purchase_id = \(purchaseID) ORDER BY created_at, id").map { row in
                (try QueuedEmail(row: row), row.optionalDate("sent_at"), row.optionalDate("failed_at"), row.optionalString("last_error"))
            }
        }
    }
}

extension QueuedEmail {
    init(row: SQLRow) throws {
        self.init(
            id: try row.string("id"), appID: try row.string("app_id"), purchaseID: try row.string("purchase_id"),
            kind: try row.enumeration("kind"), recipient: try row.string("recipient"), createdAt: try row.date("created_at"),
            attempts: Int(try row.int("attempts")), language: row.optionalString("language")
        )
    }
}

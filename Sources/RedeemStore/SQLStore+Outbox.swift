import Foundation
import RedeemCore

/// How far behind the e-mail and webhook outboxes are, for `/metrics`.
public struct OutboxStats: Sendable {
    public let emails: Int
    public let oldestEmail: TimeInterval?
    public let webhooks: Int
    public let oldestWebhook: TimeInterval?
}

extension SQLStore {
    /// Pending rows and the age of the oldest, from the partial indexes that hold only pending rows.
    public func outboxStats(now: Date) async throws -> OutboxStats {
        try await read { connection in
            let email = try await connection.first(
                "SELECT COUNT(*) AS n, MIN(created_at) AS oldest FROM email_outbox WHERE sent_at IS NULL AND failed_at IS NULL")
            let webhook = try await connection.first(
                "SELECT COUNT(*) AS n, MIN(created_at) AS oldest FROM webhook_deliveries WHERE delivered_at IS NULL AND failed_at IS NULL")
            return OutboxStats(
                emails: Int(try email?.int("n") ?? 0), oldestEmail: email?.optionalDate("oldest").map { now.timeIntervalSince($0) },
                webhooks: Int(try webhook?.int("n") ?? 0), oldestWebhook: webhook?.optionalDate("oldest").map { now.timeIntervalSince($0) })
        }
    }
}

/// An e-mail not yet sent, as the console's outbox lists it.
public struct UnsentEmail: Sendable {
    public let email: QueuedEmail
    public let nextAttemptAt: Date
    public let failedAt: Date?
    public let lastError: String?
}

extension SQLStore {
    /// The app's e-mails not yet sent (queued, retrying, failed), newest first.
    public func unsentEmails(appID: String, limit: Int) async throws -> [UnsentEmail] {
        try await read { connection in
            try await connection.query(
                """
                SELECT * FROM email_outbox WHERE app_id = \(appID) AND sent_at IS NULL ORDER BY created_at DESC, id DESC LIMIT \(limit)
                """
            ).map { row in
                UnsentEmail(
                    email: try QueuedEmail(row: row), nextAttemptAt: try row.date("next_attempt_at"), failedAt: row.optionalDate("failed_at"),
                    lastError: row.optionalString("last_error"))
            }
        }
    }

    /// Sends every failed e-mail of the app again now; returns how many.
    public func retryFailedEmails(appID: String, now: Date, audit: AuditEntry) async throws -> Int {
        try await write { connection in
            let retried = try await connection.query(
                """
                UPDATE email_outbox SET failed_at = NULL, next_attempt_at = \(now), locked_until = NULL
                WHERE app_id = \(appID) AND sent_at IS NULL AND failed_at IS NOT NULL RETURNING id
                """)
            var entry = audit
            entry.detail = "\(retried.count) e-mails"
            try await Self.insertAudit(entry, on: connection)
            return retried.count
        }
    }
}

import Foundation
import RedeemCore

extension SQLStore {
    /// Queues the renewal reminders due at `now` (`RenewalReminder.due` decides) for the apps that send them, `limit`
    /// purchases read at a time; returns how many were queued. A purchase reminded of the same kind within the quiet period is not read again, and the
    /// throttle's row decides between instances scanning at once, so each reminder is queued once.
    @discardableResult
    public func queueRenewalReminders(now: Date, limit: Int = 500) async throws -> Int {
        try await write { connection in
            let apps = try await connection.query("SELECT id FROM apps WHERE renewal_reminders = 1").map { try $0.string("id") }
            var queued = 0
            for appID in apps {
                // Only trials and the products whose renewals are reminded of are read, a page at a time through the
                // (app, sandbox, expiry) index, so other subscriptions expiring first never crowd a due one out.
                let yearly = try await connection.query("SELECT id, period FROM products WHERE app_id = \(appID)")
                    .filter { RenewalReminder.remindsOfRenewal(productPeriod: $0.optionalString("period")) }.map { try $0.string("id") }
                let candidates: SQL =
                    yearly.isEmpty ? "p.period_type = 'trial'" : "(p.period_type = 'trial' OR p.product_id IN \(sql: Self.list(yearly)))"
                var after = (now, "")
                while true {
                    let rows = try await connection.query(
                        """
                        SELECT p.*, pr.period AS product_period FROM purchases p
                        JOIN products pr ON pr.app_id = p.app_id AND pr.id = p.product_id
                        WHERE p.app_id = \(appID) AND p.is_sandbox IN (0, 1) AND \(sql: candidates)
                            AND (p.expires_date > \(after.0) OR (p.expires_date = \(after.0) AND p.id > \(after.1)))
                            AND p.expires_date <= \(now.addingTimeInterval(RenewalReminder.horizon))
                            AND p.email IS NOT NULL AND p.unsubscribe_detected_at IS NULL AND p.refunded_at IS NULL
                            AND NOT EXISTS (
                                SELECT 1 FROM email_throttle t WHERE t.purchase_id = p.id
                                    AND t.kind IN (\(QueuedEmail.Kind.renewalReminder.rawValue), \(QueuedEmail.Kind.trialEnding.rawValue))
                                    AND t.last_queued_at > \(now.addingTimeInterval(-RenewalReminder.quietPeriod)))
                        ORDER BY p.expires_date, p.id LIMIT \(limit)
                        """)
                    for row in rows {
                        let purchase = try Purchase(row: row)
                        after = (purchase.expiresDate ?? now, purchase.id)
                        guard let reminder = RenewalReminder.due(purchase, productPeriod: row.optionalString("product_period"), now: now),
                            let recipient = BuyerNotices.recipient(of: purchase)
                        else { continue }
                        let email = QueuedEmail(
                            id: Identifier.make(prefix: "eml"), appID: appID, purchaseID: purchase.id,
                            kind: reminder == .renewal ? .renewalReminder : .trialEnding, recipient: recipient, createdAt: now,
                            language: purchase.emailLanguage(requested: nil))
                        if try await Self.enqueue(email, quietPeriod: RenewalReminder.quietPeriod, on: connection) { queued += 1 }
                    }
                    if rows.count < limit { break }
                }
            }
            return queued
        }
    }
}

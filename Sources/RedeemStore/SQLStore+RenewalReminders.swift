import Foundation
import RedeemCore

extension SQLStore {
    /// Queues the renewal reminders due at `now` (`RenewalReminder.due` decides) for the apps that send them; returns
    /// how many were queued. A purchase reminded of the same kind within the quiet period is not read again, and the
    /// throttle's row decides between instances scanning at once, so each reminder is queued once.
    @discardableResult
    public func queueRenewalReminders(now: Date, limit: Int = 500) async throws -> Int {
        try await write { connection in
            let apps = try await connection.query("SELECT id FROM apps WHERE renewal_reminders = 1").map { try $0.string("id") }
            var queued = 0
            for appID in apps {
                // Through the (app, sandbox, expiry) index; the windows' union, narrowed by Core below.
                let rows = try await connection.query(
                    """
                    SELECT p.*, pr.period AS product_period FROM purchases p
                    JOIN products pr ON pr.app_id = p.app_id AND pr.id = p.product_id
                    WHERE p.app_id = \(appID) AND p.is_sandbox IN (0, 1) AND p.expires_date > \(now)
                        AND p.expires_date <= \(now.addingTimeInterval(RenewalReminder.horizon))
                        AND p.email IS NOT NULL AND p.unsubscribe_detected_at IS NULL AND p.refunded_at IS NULL
                        AND NOT EXISTS (
                            SELECT 1 FROM email_throttle t WHERE t.purchase_id = p.id
                                AND t.kind IN (\(QueuedEmail.Kind.renewalReminder.rawValue), \(QueuedEmail.Kind.trialEnding.rawValue))
                                AND t.last_queued_at > \(now.addingTimeInterval(-RenewalReminder.quietPeriod)))
                    ORDER BY p.expires_date LIMIT \(limit)
                    """)
                for row in rows {
                    let purchase = try Purchase(row: row)
                    guard let reminder = RenewalReminder.due(purchase, productPeriod: row.optionalString("product_period"), now: now),
                        let recipient = BuyerNotices.recipient(of: purchase)
                    else { continue }
                    let email = QueuedEmail(
                        id: Identifier.make(prefix: "eml"), appID: appID, purchaseID: purchase.id,
                        kind: reminder == .renewal ? .renewalReminder : .trialEnding, recipient: recipient, createdAt: now,
                        language: purchase.emailLanguage(requested: nil))
                    if try await Self.enqueue(email, quietPeriod: RenewalReminder.quietPeriod, on: connection) { queued += 1 }
                }
            }
            return queued
        }
    }
}

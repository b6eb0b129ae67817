import Foundation
import RedeemCore
import RedeemWebhooks

extension SQLStore {
    /// Renews lapsed sandbox subscriptions of the built-in checkout on the accelerated clock, emitting `RENEWAL`;
    /// after `maxRenewals` a subscription expires for good (`EXPIRATION`), as store sandboxes do. Cancelled or
    /// refunded ones are left to lapse. Returns how many purchases changed.
    @discardableResult
    public func renewSandboxSubscriptions(now: Date, maxRenewals: Int = 6, length: @escaping @Sendable (String) -> TimeInterval) async throws -> Int {
        try await write { connection in
            let due = try await connection.query(
                """
                SELECT p.*, pr.period AS product_period FROM purchases p
                JOIN products pr ON pr.app_id = p.app_id AND pr.id = p.product_id
                WHERE p.is_sandbox = 1 AND p.store = 'rc_billing' AND p.expires_date IS NOT NULL AND p.expires_date <= \(now)
                    AND p.unsubscribe_detected_at IS NULL AND p.refunded_at IS NULL AND p.sandbox_renewals <= \(maxRenewals)
                ORDER BY p.expires_date LIMIT 500
                """)
            let tx = LifecycleTransaction(connection: connection, now: now)
            for row in due {
                let purchase = try Purchase(row: row)
                let renewals = Int(try row.int("sandbox_renewals"))
                guard renewals < maxRenewals, let period = row.optionalString("product_period") else {
                    try await connection.query("UPDATE purchases SET sandbox_renewals = \(maxRenewals + 1) WHERE id = \(purchase.id)")
                    try await tx.expire(purchase, at: purchase.expiresDate ?? now)
                    continue
                }
                var expiry = purchase.expiresDate ?? now
                while expiry <= now { expiry = expiry.addingTimeInterval(length(period)) }
                try await connection.query("UPDATE purchases SET sandbox_renewals = sandbox_renewals + 1 WHERE id = \(purchase.id)")
                try await tx.renew(purchase, until: expiry)
            }
            return due.count
        }
    }
}

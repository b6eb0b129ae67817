import Foundation
import RedeemCore
import RedeemWebhooks

extension SQLStore {
    /// Renews lapsed sandbox subscriptions of the built-in checkout on the accelerated clock, emitting `RENEWAL` (into
    /// the plan scheduled for it, if one is);
    /// after `maxRenewals` a subscription expires for good (`EXPIRATION`), as store sandboxes do. Cancelled or
    /// refunded ones are left to lapse. `mail`: the buyer gets each renewal's receipt, or the notice of a plan that
    /// waited for it (nil: e-mail is off). Returns how many purchases changed.
    @discardableResult
    public func renewSandboxSubscriptions(
        now: Date, maxRenewals: Int = 6, mail: LifecycleMail? = nil, length: @escaping @Sendable (String) -> TimeInterval
    ) async throws -> Int {
        try await write { connection in
            let due = try await connection.query(
                """
                SELECT p.*, pr.period AS product_period FROM purchases p
                JOIN products pr ON pr.app_id = p.app_id AND pr.id = p.product_id
                WHERE p.is_sandbox = 1 AND p.store = 'rc_billing' AND p.expires_date IS NOT NULL AND p.expires_date <= \(now)
                    AND p.unsubscribe_detected_at IS NULL AND p.refunded_at IS NULL AND p.sandbox_renewals <= \(maxRenewals)
                ORDER BY p.expires_date LIMIT 500
                """)
            let tx = LifecycleTransaction(connection: connection, now: now, mail: mail)
            for row in due {
                let purchase = try Purchase(row: row)
                let renewals = Int(try row.int("sandbox_renewals"))
                guard renewals < maxRenewals, let period = row.optionalString("product_period") else {
                    try await connection.query("UPDATE purchases SET sandbox_renewals = \(maxRenewals + 1) WHERE id = \(purchase.id)")
                    try await tx.expire(purchase, at: purchase.expiresDate ?? now)
                    continue
                }
                // A plan that waited for this renewal (a downgrade) is what it renews as, for that plan's period.
                var next: (product: Product, price: Price?, period: String)?
                if let plan = purchase.scheduledPlan,
                    let product = try await Self.products(appID: purchase.appID, ids: [plan.productID], on: connection).first,
                    let period = product.period
                {
                    next = (product, plan.price, period)
                }
                var expiry = purchase.expiresDate ?? now
                while expiry <= now { expiry = expiry.addingTimeInterval(length(next?.period ?? period)) }
                try await connection.query("UPDATE purchases SET sandbox_renewals = sandbox_renewals + 1 WHERE id = \(purchase.id)")
                if let next {
                    try await tx.renew(purchase, into: next.product, price: next.price, until: expiry)
                } else {
                    try await tx.renew(purchase, until: expiry)
                }
            }
            return due.count
        }
    }
}

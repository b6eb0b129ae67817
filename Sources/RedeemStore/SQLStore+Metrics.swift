import Foundation
import RedeemCore

extension SQLStore {
    /// What `SubscriptionMetrics.compute` needs for one app and environment over the `days` days ending today (UTC):
    /// the purchases that started before the window's end and whose access (expiry, grace period) ran into the window
    /// or that were refunded or set to end in it or never expire, with their product's period and any cancellation's
    /// reason (or their customer's erasure); and the customers first seen in the window, with whether they bought in production and in sandbox. Core
    /// judges them; no rule is restated here.
    public func subscriptionMetricsFacts(
        appID: String, environment: MetricsEnvironment, days: Int, now: Date
    ) async throws
        -> SubscriptionMetrics.Facts
    {
        let (from, to) = Funnel.window(days: days, now: now)
        // A trial that ended up to a day before the window can still convert inside it.
        let since = from.addingTimeInterval(-SubscriptionMetrics.conversionGrace)
        // The purchases read: this environment's, started before the window's end, whose access ran into it (or was
        // refunded or set to end in it, or never ends).
        let inWindow: SQL = """
            p.app_id = \(appID) AND p.is_sandbox = \(environment.isSandbox ? 1 : 0) AND p.original_purchase_date < \(to)
                AND (p.expires_date IS NULL OR p.expires_date >= \(since) OR p.grace_period_expires_date >= \(since)
                    OR p.refunded_at >= \(from) OR p.unsubscribe_detected_at >= \(from))
            """
        return try await read { connection in
            // The plans the purchases read switched from, by purchase.
            var plans: [String: [SubscriptionMetrics.PurchaseFact.EarlierPlan]] = [:]
            for row in try await connection.query(
                """
                SELECT pc.purchase_id, pc.changed_at, pc.from_price_amount_micros, pc.from_price_currency, pr.period
                FROM plan_changes pc JOIN purchases p ON p.id = pc.purchase_id
                    LEFT JOIN products pr ON pr.app_id = p.app_id AND pr.id = pc.from_product_id
                WHERE \(sql: inWindow)
                ORDER BY pc.changed_at, pc.id
                """)
            {
                plans[try row.string("purchase_id"), default: []].append(
                    .init(
                        until: try row.date("changed_at"), price: row.price(micros: "from_price_amount_micros", currency: "from_price_currency"),
                        period: try row.optionalString("period").map { try ISO8601Period(parsing: $0) }))
            }
            let purchases = try await connection.query(
                """
                SELECT p.id, p.customer_id, p.store, p.period_type, p.price_amount_micros, p.price_currency, p.original_purchase_date,
                    p.expires_date, p.grace_period_expires_date, p.refunded_at, p.trial_ended_at, p.unsubscribe_detected_at,
                    p.cancellation_feedback, c.erased_at, pr.period AS product_period
                FROM purchases p JOIN products pr ON pr.app_id = p.app_id AND pr.id = p.product_id
                    JOIN customers c ON c.id = p.customer_id
                WHERE \(sql: inWindow)
                """
            ).map { row in
                let store = Store(rawValue: try row.string("store"))
                let period = try row.optionalString("product_period").map { try ISO8601Period(parsing: $0) }
                var fact = SubscriptionMetrics.PurchaseFact(
                    customerID: try row.string("customer_id"), store: store, periodType: try row.enumeration("period_type"),
                    price: row.price(micros: "price_amount_micros", currency: "price_currency"), period: period,
                    sandboxClock: environment.isSandbox && store == .rcBilling,
                    originalPurchaseDate: try row.date("original_purchase_date"), trialEndedAt: row.optionalDate("trial_ended_at"),
                    access: AccessFacts(
                        expiresDate: row.optionalDate("expires_date"), gracePeriodExpiresDate: row.optionalDate("grace_period_expires_date"),
                        refundedAt: row.optionalDate("refunded_at")),
                    unsubscribedAt: row.optionalDate("unsubscribe_detected_at"),
                    cancellationFeedback: row.optionalString("cancellation_feedback").flatMap(CancellationFeedback.init(rawValue:)),
                    customerErased: row.optionalDate("erased_at") != nil)
                fact.earlierPlans = plans[try row.string("id")] ?? []
                return fact
            }
            let customers = try await connection.query(
                """
                SELECT c.first_seen,
                    CASE WHEN EXISTS (SELECT 1 FROM purchases p WHERE p.customer_id = c.id AND p.is_sandbox = 0) THEN 1 ELSE 0 END AS production,
                    CASE WHEN EXISTS (SELECT 1 FROM purchases p WHERE p.customer_id = c.id AND p.is_sandbox = 1) THEN 1 ELSE 0 END AS sandbox
                FROM customers c WHERE c.app_id = \(appID) AND c.first_seen >= \(from) AND c.first_seen < \(to)
                """
            ).map { row in
                SubscriptionMetrics.CustomerFact(
                    firstSeen: try row.date("first_seen"), hasProductionPurchase: try row.bool("production"),
                    hasSandboxPurchase: try row.bool("sandbox"))
            }
            return SubscriptionMetrics.Facts(purchases: purchases, customers: customers)
        }
    }
}

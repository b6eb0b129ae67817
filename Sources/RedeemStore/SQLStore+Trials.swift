import Foundation
import RedeemCore
import RedeemWebhooks

extension SQLStore {
    /// The facts of `TrialRules`: earlier purchases of the product by the buyer's customer and billed to `email`.
    public func trialFacts(appID: String, productID: String, buyer: AppUserID?, email: String?, trialDays: Int?) async throws -> TrialFacts {
        guard trialDays != nil else { return TrialFacts(trialDays: nil, customerPurchases: [], emailPurchases: []) }
        return try await read { connection in
            var byCustomer: [Purchase] = []
            if let buyer, !buyer.isAnonymous {
                byCustomer = try await connection.query(
                    """
                    SELECT p.* FROM purchases p JOIN customer_aliases a ON a.customer_id = p.customer_id
                    WHERE a.app_id = \(appID) AND a.app_user_id = \(buyer.rawValue) AND p.product_id = \(productID) LIMIT 20
                    """
                ).map(Purchase.init(row:))
            }
            var byEmail: [Purchase] = []
            if let email, !email.isEmpty {
                byEmail = try await connection.query(
                    """
                    SELECT * FROM purchases WHERE app_id = \(appID) AND product_id = \(productID) AND LOWER(email) = \(email.lowercased()) LIMIT 20
                    """
                ).map(Purchase.init(row:))
            }
            return TrialFacts(trialDays: trialDays, customerPurchases: byCustomer, emailPurchases: byEmail)
        }
    }

    /// Sandbox trials of the built-in checkout that ended by `now` convert to paid (`RENEWAL` with
    /// `is_trial_conversion`), their first paid period starting at the trial's end, as the plan that waited for it if one
    /// did (`PRODUCT_CHANGE` first); cancelled or refunded ones lapse.
    @discardableResult
    public func convertSandboxTrials(
        now: Date, mail: LifecycleMail? = nil, paidPeriodEnd: @escaping @Sendable (Date, String) -> Date
    ) async throws -> Int {
        try await write { connection in
            let due = try await connection.query(
                """
                SELECT p.*, pr.period AS product_period FROM purchases p
                JOIN products pr ON pr.app_id = p.app_id AND pr.id = p.product_id
                WHERE p.is_sandbox = 1 AND p.store = 'rc_billing' AND p.period_type = 'trial' AND p.offer_id IS NULL
                    AND p.expires_date IS NOT NULL AND p.expires_date <= \(now)
                    AND p.unsubscribe_detected_at IS NULL AND p.refunded_at IS NULL
                ORDER BY p.expires_date LIMIT 500
                """)
            let tx = LifecycleTransaction(connection: connection, now: now, mail: mail)
            for row in due {
                let purchase = try Purchase(row: row)
                guard let period = row.optionalString("product_period"), let trialEnd = purchase.expiresDate else { continue }
                if let plan = purchase.scheduledPlan,
                    let product = try await Self.products(appID: purchase.appID, ids: [plan.productID], on: connection).first,
                    let next = product.period
                {
                    // A switch asked for during the trial: the trial converts to it (`PlanChange.endsTrial`).
                    let end = paidPeriodEnd(trialEnd, next)
                    let switched = try await tx.changeProduct(purchase, to: product, price: plan.price, periodEnd: end, at: trialEnd)
                    try await tx.convertTrial(switched, until: end, receipted: false)
                } else {
                    try await tx.convertTrial(purchase, until: paidPeriodEnd(trialEnd, period))
                }
            }
            return due.count
        }
    }
}

extension LifecycleTransaction {
    /// A trial became paid: `period_type` normal, `trial_ended_at` the trial's end (or now, when Stripe ends it early), the
    /// product's price in the trial's currency (else its default), the expiry moved to the first paid period's end, and
    /// `RENEWAL` with `is_trial_conversion`, and the buyer's receipt of the first charge (`trial_converted`). A purchase no longer in its trial is left alone, so Stripe's invoice and
    /// subscription events convert it once between them.
    /// `receipted`: false when a plan switch ended the trial, whose "plan changed" notice already tells the buyer.
    public func convertTrial(_ purchase: Purchase, until expiry: Date, receipted: Bool = true) async throws {
        guard purchase.periodType == .trial else { return }
        let billing = try await SQLStore.productBilling(appID: purchase.appID, productID: purchase.productID, on: connection)
        let price = billing.renewalPrice(of: purchase)
        let end = max(expiry, purchase.expiresDate ?? expiry)
        let trialEnded = min(purchase.expiresDate ?? now, now)
        guard
            let row = try await connection.first(
                """
                UPDATE purchases SET period_type = 'normal', trial_ended_at = \(trialEnded), expires_date = \(end),
                    price_amount_micros = \(price?.amountMicros),
                    price_currency = \(price?.currency), billing_issues_detected_at = NULL
                WHERE id = \(purchase.id) AND period_type = 'trial' RETURNING *
                """)
        else { return }
        let converted = try Purchase(row: row)
        guard let product = try await SQLStore.products(appID: converted.appID, ids: [converted.productID], on: connection).first else { return }
        let customer = try await SQLStore.eventCustomer(id: converted.customerID, on: connection)
        let event = WebhookEvent.renewal(
            converted, customer: customer, product: product, isTrialConversion: true, eventID: SQLStore.eventID(), at: now)
        try await SQLStore.emit(event, on: connection, now: now)
        if receipted { try await notify(.trialConverted, converted) }
    }
}

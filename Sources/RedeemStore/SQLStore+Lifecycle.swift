import Foundation
import RedeemCore
import RedeemWebhooks

/// Lifecycle changes e-mail the buyer (`BuyerNotices`) when a caller passes this: e-mail is on. `language`: the page's
/// that asked for the change, which wins over the purchase's own.
public struct LifecycleMail: Sendable {
    public var language: String?
    public init(language: String?) { self.language = language }
}

/// Changes a store reports about purchases, applied in one transaction with the record of the event that
/// carried them, so a redelivered event changes nothing.
public struct LifecycleTransaction: Sendable {
    let connection: any SQLConnection
    let now: Date
    /// Nil: no buyer notices (e-mail is off, or the caller sends none, as an erasure).
    var mail: LifecycleMail? = nil

    /// The purchase a store identifier (subscription or session ID) names.
    public func purchase(store: Store, transactionID: String) async throws -> Purchase? {
        try await connection.first(
            """
            SELECT * FROM purchases WHERE store = \(store.rawValue) AND store_transaction_id = \(transactionID)
            """
        ).map(Purchase.init(row:))
    }

    /// The purchase whose latest payment is `paymentReference`: what a refund names (a refund of an earlier period's
    /// payment ends nothing, as RevenueCat's does not).
    public func purchase(paymentReference: String) async throws -> Purchase? {
        try await SQLStore.purchase(paymentReference: paymentReference, on: connection)
    }

    /// The purchase any of whose payments is `reference`: what a dispute names, whichever period it paid.
    public func purchase(paidWith reference: String) async throws -> Purchase? {
        try await SQLStore.purchase(paidWith: reference, on: connection)
    }

    /// Records a new purchase (and its events), unless this store transaction is already recorded.
    public func grant(_ grant: PurchaseGrant, paymentReference: String?) async throws -> Purchase {
        if let transaction = grant.storeTransactionID, let existing = try await purchase(store: grant.store, transactionID: transaction) {
            return existing
        }
        var purchase = try await SQLStore.insertPurchase(grant, now: now, on: connection)
        if let paymentReference { try await setPaymentReference(purchase, paymentReference) }
        purchase = try await SQLStore.purchase(appID: purchase.appID, id: purchase.id, on: connection)
        try await SQLStore.emitPurchase(purchase, now: now, on: connection)
        return purchase
    }

    /// Links a purchase to its latest payment, which refunds name, and keeps it among its payments, which disputes name.
    public func setPaymentReference(_ purchase: Purchase, _ reference: String) async throws {
        try await connection.query("UPDATE purchases SET payment_reference = \(reference) WHERE id = \(purchase.id)")
        try await connection.query(
            """
            INSERT INTO purchase_payments (reference, purchase_id, recorded_at) VALUES (\(reference), \(purchase.id), \(now))
            ON CONFLICT (reference) DO NOTHING
            """)
    }

    /// A paid renewal: the expiry moves forward (never back, whatever the order events arrive in), billing issues clear,
    /// and the buyer gets its receipt (`renewed`).
    /// `receipted`: false for a charge that is not the renewal's price (a plan switch's proration), which the receipt
    /// would misstate.
    public func renew(_ purchase: Purchase, until expiry: Date, receipted: Bool = true) async throws {
        guard expiry > (purchase.expiresDate ?? .distantPast) else { return }
        let updated = try await update(purchase.id, "expires_date = \(expiry), billing_issues_detected_at = NULL")
        try await emit(.renewal, updated)
        if receipted { try await notify(.renewed, updated) }
    }

    public func billingIssue(_ purchase: Purchase) async throws {
        guard purchase.billingIssuesDetectedAt == nil else { return }
        let updated = try await update(purchase.id, "billing_issues_detected_at = \(now)")
        try await emit(.billingIssue, updated)
        try await notify(.paymentFailed, updated)
    }

    /// Cancel at period end on or off: `CANCELLATION` (unsubscribe detected) or `UNCANCELLATION`. `feedback`: why, when
    /// the buyer said; one arriving for a subscription already set to end (Stripe's update after its own) is kept too.
    public func setWillRenew(_ purchase: Purchase, willRenew: Bool, periodEnd: Date?, feedback: CancellationFeedback? = nil) async throws {
        if let periodEnd, periodEnd > (purchase.expiresDate ?? .distantPast) {
            _ = try await update(purchase.id, "expires_date = \(periodEnd)")
        }
        if !willRenew, purchase.unsubscribeDetectedAt == nil {
            // Set to end, it renews into no plan: a switch waiting for the renewal goes with it.
            let cancelled = try await update(
                purchase.id, "unsubscribe_detected_at = \(now), cancellation_feedback = \(feedback?.rawValue), \(unsafeRaw: Self.noScheduledPlan)")
            try await emit(.cancellation, cancelled, reason: .unsubscribe)
            try await notify(.renewalOff, cancelled, quietPeriod: BuyerNotices.renewalOffQuietPeriod)
        } else if !willRenew, let feedback, purchase.cancellationFeedback != feedback {
            _ = try await update(purchase.id, "cancellation_feedback = \(feedback.rawValue)")
        } else if willRenew, purchase.unsubscribeDetectedAt != nil {
            try await emit(.uncancellation, try await update(purchase.id, "unsubscribe_detected_at = NULL, cancellation_feedback = NULL"))
        }
    }

    /// The subscription ended at `date`.
    public func expire(_ purchase: Purchase, at date: Date) async throws {
        let end = min(date, purchase.expiresDate ?? date)
        // Ended, it renews into nothing: a switch that waited for the renewal goes with it.
        try await emit(.expiration, try await update(purchase.id, "expires_date = \(end), \(unsafeRaw: Self.noScheduledPlan)"), reason: .unsubscribe)
    }

    /// Refunded: the entitlement is revoked.
    /// The refunded amount (all of the price unless the store says how much) goes out negative, as RevenueCat's
    /// `CANCELLATION` for a refund carries it.
    public func refund(_ purchase: Purchase, amount: Price? = nil) async throws {
        guard purchase.refundedAt == nil else { return }
        let refunded = try await update(purchase.id, "refunded_at = \(now), \(unsafeRaw: Self.noScheduledPlan)")
        try await emit(.cancellation, refunded, reason: .customerSupport, refund: amount ?? purchase.price)
        try await notify(.refunded, refunded)
    }

    /// The buyer's bank disputed the purchase's payment: the dispute is recorded with its latest status. A chargeback
    /// (`PurchaseDispute.isChargeback`) ends the access at once, as a refund does: `CANCELLATION` with the amount taken back,
    /// and the buyer's notice. A purchase refunded before, or a dispute reported again, ends nothing twice.
    public func dispute(_ purchase: Purchase, _ dispute: PurchaseDispute) async throws {
        let updated = try await update(
            purchase.id,
            """
            dispute_id = \(dispute.id), dispute_opened_at = \(dispute.openedAt), dispute_reason = \(dispute.reason), dispute_status = \(dispute.status),
            dispute_amount_micros = \(dispute.amount?.amountMicros), dispute_currency = \(dispute.amount?.currency)
            """)
        guard dispute.isChargeback, purchase.refundedAt == nil else { return }
        let ended = try await update(updated.id, "refunded_at = \(now), dispute_ended_access_at = \(now), \(unsafeRaw: Self.noScheduledPlan)")
        try await emit(.cancellation, ended, reason: .customerSupport, refund: dispute.amount ?? purchase.price)
        try await notify(.chargeback, ended)
    }

    /// The product a Stripe Price bills: one Redeem made for a product's price (`product_prices.stripe_price_id`), else
    /// the one its metadata names (`product_id`, which Redeem's Prices carry and a Price made in Stripe's dashboard can).
    public func product(appID: String, stripePriceID: String, metadataProductID: String?) async throws -> Product? {
        let made = try await connection.first(
            "SELECT product_id FROM product_prices WHERE app_id = \(appID) AND stripe_price_id = \(stripePriceID)"
        ).map { try $0.string("product_id") }
        guard let id = made ?? metadataProductID else { return nil }
        return try await SQLStore.products(appID: appID, ids: [id], on: connection).first
    }

    /// The subscription now bills `product` (Core's `PlanChange`): the purchase becomes it, at `price` when the store
    /// says, until `periodEnd` when it says (a switch between periods starts a new one). `PRODUCT_CHANGE` names the
    /// product left (`product_id`) and the new one (`new_product_id`), as RevenueCat's does.
    /// `at`: when the switch took effect, now unless it waited for the period's end. Any switch settles one waiting.
    public func changeProduct(_ purchase: Purchase, to product: Product, price: Price?, periodEnd: Date?, at: Date? = nil) async throws -> Purchase {
        let newPrice = price ?? purchase.price
        let updated = try await update(
            purchase.id,
            """
            product_id = \(product.id), price_amount_micros = \(newPrice?.amountMicros), price_currency = \(newPrice?.currency),
            expires_date = \(periodEnd ?? purchase.expiresDate), \(unsafeRaw: Self.noScheduledPlan)
            """)
        // What it was, kept for the customer's history and the metrics (each plan for the time it was in force).
        try await connection.query(
            """
            INSERT INTO plan_changes (id, purchase_id, changed_at, from_product_id, from_price_amount_micros, from_price_currency, to_product_id)
            VALUES (\(Identifier.make(prefix: "pch")), \(purchase.id), \(at ?? now), \(purchase.productID), \(purchase.price?.amountMicros),
                \(purchase.price?.currency), \(product.id))
            """)
        try await emit(.productChange, purchase, newProductID: product.id, expires: updated.expiresDate)
        try await notify(.planChanged, updated)
        return updated
    }

    /// A sandbox renewal into the plan that waited for it (`ScheduledPlan`): the switch, at the period's end, then the
    /// paid renewal at the new plan's price, as the App Store reports a downgrade (`PRODUCT_CHANGE`, then `RENEWAL`).
    public func renew(_ purchase: Purchase, into product: Product, price: Price?, until expiry: Date) async throws {
        let switched = try await changeProduct(purchase, to: product, price: price, periodEnd: expiry, at: purchase.expiresDate)
        try await emit(.renewal, switched)
    }

    /// Records (or, nil, drops) the switch that waits for the period's end; a new one is the buyer's notice
    /// (`plan_scheduled`), a retry of the same switch is not.
    public func schedule(_ plan: ScheduledPlan?, for purchase: Purchase) async throws -> Purchase {
        guard let plan else { return try await update(purchase.id, "\(unsafeRaw: Self.noScheduledPlan)") }
        let scheduled = try await update(
            purchase.id,
            """
            scheduled_product_id = \(plan.productID), scheduled_price_amount_micros = \(plan.price?.amountMicros),
            scheduled_price_currency = \(plan.price?.currency), scheduled_plan_requested_at = \(plan.requestedAt),
            stripe_schedule_id = \(plan.stripeScheduleID)
            """)
        if purchase.scheduledPlan?.productID != plan.productID { try await notify(.planScheduled, scheduled) }
        return scheduled
    }

    static let noScheduledPlan =
        "scheduled_product_id = NULL, scheduled_price_amount_micros = NULL, scheduled_price_currency = NULL, scheduled_plan_requested_at = NULL, stripe_schedule_id = NULL"

    /// A grant revoked: it ends now (`CANCELLATION`, by customer support).
    public func revoke(_ purchase: Purchase) async throws {
        // Marked cancelled as well as ended, as its CANCELLATION says: what tells a revoked grant from one that ran out.
        try await emit(
            .cancellation, try await update(purchase.id, "expires_date = \(now), unsubscribe_detected_at = \(now)"), reason: .customerSupport)
    }

    private func update(_ id: String, _ assignments: SQL) async throws -> Purchase {
        // The fragment's placeholders start at $1; the ID takes the next one.
        var sql = assignments
        sql.text = "UPDATE purchases SET " + sql.text + " WHERE id = $\(sql.binds.count + 1) RETURNING *"
        sql.binds.append(.text(id))
        guard let row = try await connection.first(sql) else { throw StoreError.notFound("purchase '\(id)'") }
        return try Purchase(row: row)
    }

    /// The buyer's notice of this change, queued in its transaction so it goes out once with it, or not at all.
    func notify(_ kind: QueuedEmail.Kind, _ purchase: Purchase, quietPeriod: TimeInterval = 0) async throws {
        guard let mail, let recipient = BuyerNotices.recipient(of: purchase) else { return }
        let email = QueuedEmail(
            id: Identifier.make(prefix: "eml"), appID: purchase.appID, purchaseID: purchase.id, kind: kind, recipient: recipient,
            createdAt: now, language: purchase.emailLanguage(requested: mail.language))
        _ = try await SQLStore.enqueue(email, quietPeriod: quietPeriod, on: connection)
    }

    private func emit(
        _ type: WebhookEventType, _ purchase: Purchase, reason: WebhookReason? = nil, refund: Price? = nil, newProductID: String? = nil,
        expires: Date? = nil
    ) async throws {
        guard let product = try await SQLStore.products(appID: purchase.appID, ids: [purchase.productID], on: connection).first else { return }
        let customer = try await SQLStore.eventCustomer(id: purchase.customerID, on: connection)
        var event = WebhookEvent.lifecycle(type, purchase: purchase, customer: customer, product: product, eventID: SQLStore.eventID(), at: now)
        if type == .cancellation { event.cancelReason = reason }
        if let refund { event.setPrice(refund, refunded: true) }
        if type == .expiration { event.expirationReason = reason }
        if type == .billingIssue { event.gracePeriodExpirationAtMs = purchase.gracePeriodExpiresDate.map(WebhookEvent.milliseconds) }
        if let newProductID {
            event.newProductID = newProductID
            event.expirationAtMs = expires.map(WebhookEvent.milliseconds)
        }
        try await SQLStore.emit(event, on: connection, now: now)
    }
}

extension SQLStore {
    /// Runs `apply` for a store's event exactly once: the event's record and its effects commit together.
    /// Returns nil, changing nothing, when the event was already processed; else what `apply` returned.
    public func processStoreEvent<T: Sendable>(
        source: String, eventID: String, type: String, now: Date, mail: LifecycleMail? = nil,
        _ apply: @escaping @Sendable (LifecycleTransaction) async throws -> T
    ) async throws -> T? {
        try await write { connection in
            let fresh = try await connection.query(
                """
                INSERT INTO store_events (source, event_id, event_type, received_at) VALUES (\(source), \(eventID), \(type), \(now))
                ON CONFLICT (source, event_id) DO NOTHING RETURNING event_id
                """)
            guard !fresh.isEmpty else { return nil }
            return try await apply(LifecycleTransaction(connection: connection, now: now, mail: mail))
        }
    }
}

extension SQLStore {
    /// An operator's refund: the purchase refunded (its entitlement revoked), its CANCELLATION event and the buyer's
    /// notice queued, and the audit record, in one transaction. Refunding twice changes nothing more.
    public func refundPurchase(appID: String, id: String, now: Date, audit: AuditEntry, mail: LifecycleMail? = nil) async throws -> Purchase {
        try await write(audit: audit) { connection in
            let purchase = try await Self.purchase(appID: appID, id: id, locking: true, on: connection)
            try Self.requireHere(SupportRules.refund(purchase), elsewhere: "Refund this purchase in Stripe.")
            try await LifecycleTransaction(connection: connection, now: now, mail: mail).refund(purchase)
            return try await Self.purchase(appID: appID, id: id, on: connection)
        }
    }
}

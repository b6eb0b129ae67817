import Foundation
import RedeemCore
import RedeemWebhooks

/// Support writes: each applies its change, queues its webhook event and records its audit entry in one transaction.
extension SQLStore {
    /// Records a granted entitlement for `appUserID` (created if new) under its reserved product, and queues
    /// `NON_RENEWING_PURCHASE` in the `PROMOTIONAL` store. A grant a form already made (its `transactionID`) is
    /// answered with that purchase, changing nothing; two submits at once record it once (the loser of the unique
    /// transaction ID's race reads the winner's).
    public func grantPromotional(
        appID: String, appUserID: AppUserID, grant: PromotionalGrant, now: Date, audit: AuditEntry
    ) async throws -> Purchase {
        do {
            return try await grantPromotionalOnce(appID: appID, appUserID: appUserID, grant: grant, now: now, audit: audit)
        } catch let error as StoreError where error.isConflict && grant.transactionID != nil {
            return try await grantPromotionalOnce(appID: appID, appUserID: appUserID, grant: grant, now: now, audit: audit)
        }
    }

    func grantPromotionalOnce(
        appID: String, appUserID: AppUserID, grant: PromotionalGrant, now: Date, audit: AuditEntry
    ) async throws -> Purchase {
        try await write { connection in
            guard
                try await connection.first("SELECT id FROM entitlements WHERE app_id = \(appID) AND id = \(grant.entitlementID)")
                    != nil
            else { throw StoreError.notFound("entitlement '\(grant.entitlementID)'") }
            if let transactionID = grant.transactionID,
                let row = try await connection.first(
                    """
                    SELECT * FROM purchases
                    WHERE app_id = \(appID) AND store = \(Store.promotional.rawValue) AND store_transaction_id = \(transactionID)
                    """)
            {
                let earlier = try Purchase(row: row)
                guard earlier.productID == grant.productID else { throw StoreError.idempotencyMismatch }
                return earlier
            }
            try await connection.query(
                """
                INSERT INTO products (app_id, id, type, period, display_name, created_at)
                VALUES (\(appID), \(grant.productID), \(ProductType.subscription.rawValue), NULL, NULL, \(now))
                ON CONFLICT (app_id, id) DO NOTHING
                """)
            try await connection.query(
                """
                INSERT INTO product_entitlements (app_id, product_id, entitlement_id) VALUES (\(appID), \(grant.productID), \(grant.entitlementID))
                ON CONFLICT (app_id, product_id, entitlement_id) DO NOTHING
                """)
            let request = PurchaseGrant(
                appID: appID, appUserID: appUserID, productID: grant.productID, store: .promotional, purchaseDate: now,
                expiresDate: grant.expiresDate, storeTransactionID: grant.transactionID ?? Identifier.make(prefix: "promo"))
            let purchase = try await Self.insertPurchase(request, now: now, on: connection)
            try await Self.emitPurchase(purchase, now: now, on: connection)
            var entry = audit
            entry.objectID = purchase.id
            try await Self.insertAudit(entry, on: connection)
            return purchase
        }
    }

    /// Ends a live grant now and queues its `CANCELLATION`; refuses anything else (see `PromotionalGrant.revokeRefusal`).
    public func revokeGrant(appID: String, purchaseID: String, now: Date, audit: AuditEntry) async throws -> Purchase {
        try await write(audit: audit) { connection in
            let purchase = try await Self.purchase(appID: appID, id: purchaseID, locking: true, on: connection)
            if let refusal = PromotionalGrant.revokeRefusal(purchase, now: now) { throw StoreError.conflict(refusal) }
            try await LifecycleTransaction(connection: connection, now: now).revoke(purchase)
            return try await Self.purchase(appID: appID, id: purchaseID, on: connection)
        }
    }

    /// Ends every live grant of `entitlementID` for `appUserID` now (RevenueCat's `revoke_promotionals`), each with its
    /// `CANCELLATION` and its audit entry (`audit` with the grant's ID), in one transaction; the grants revoked. The
    /// customer's purchases are locked first, so a second call at once finds them ended and revokes nothing.
    public func revokeGrants(appID: String, appUserID: AppUserID, entitlementID: String, now: Date, audit: AuditEntry) async throws -> [Purchase] {
        try await write { connection in
            guard let customer = try await Self.resolve(appID: appID, appUserID: appUserID, on: connection) else { return [] }
            let lock = connection.engine == .postgres ? "FOR UPDATE" : ""
            let live = try await connection.query(
                """
                SELECT * FROM purchases WHERE customer_id = \(customer.id) AND store = \(Store.promotional.rawValue) ORDER BY id \(unsafeRaw: lock)
                """
            )
            .map(Purchase.init(row:))
            .filter { PromotionalGrant.entitlement(of: $0) == entitlementID && PromotionalGrant.revokeRefusal($0, now: now) == nil }
            let lifecycle = LifecycleTransaction(connection: connection, now: now)
            for purchase in live {
                try await lifecycle.revoke(purchase)
                var entry = audit
                entry.id = Identifier.make(prefix: "aud")
                entry.objectID = purchase.id
                try await Self.insertAudit(entry, on: connection)
            }
            return live
        }
    }

    /// Moves a purchase to `appUserID` (created if new) and queues `TRANSFER`, as a restore does.
    public func transferPurchase(
        appID: String, purchaseID: String, to appUserID: AppUserID, now: Date, audit: AuditEntry
    ) async throws
        -> Purchase
    {
        try await write(audit: audit) { connection in
            var purchase = try await Self.purchase(appID: appID, id: purchaseID, locking: true, on: connection)
            let destination = try await Self.resolveOrCreate(appID: appID, appUserID: appUserID, now: now, on: connection)
            guard destination.id != purchase.customerID else {
                throw StoreError.conflict("This purchase already belongs to '\(appUserID.rawValue)'.")
            }
            let source = try await Self.eventCustomer(id: purchase.customerID, on: connection)
            try await connection.query("UPDATE purchases SET customer_id = \(destination.id) WHERE id = \(purchase.id)")
            purchase.customerID = destination.id
            let owner = try await Self.eventCustomer(id: destination.id, on: connection)
            try await Self.emit(
                .transfer(purchase, from: source, to: owner, eventID: Self.eventID(), at: now), transactionID: purchase.storeTransactionID,
                on: connection, now: now)
            return purchase
        }
    }

    /// A sandbox subscription stops renewing at the end of its period (`CANCELLATION`, unsubscribe detected), or
    /// renews again (`UNCANCELLATION`); `SupportRules.cancelAtPeriodEnd` or `.resume` decides in the transaction.
    /// `feedback`: why, when the buyer said (cancelling only).
    public func setRenewal(
        appID: String, purchaseID: String, renews: Bool, feedback: CancellationFeedback? = nil, now: Date, audit: AuditEntry,
        mail: LifecycleMail? = nil
    ) async throws -> Purchase {
        try await write(audit: audit) { connection in
            let purchase = try await Self.purchase(appID: appID, id: purchaseID, locking: true, on: connection)
            let rule = renews ? SupportRules.resume(purchase, now: now) : SupportRules.cancelAtPeriodEnd(purchase, now: now)
            try Self.requireHere(rule, elsewhere: renews ? "Resume this subscription in Stripe." : "Cancel this subscription in Stripe.")
            try await LifecycleTransaction(connection: connection, now: now, mail: mail).setWillRenew(
                purchase, willRenew: renews, periodEnd: nil, feedback: renews ? nil : feedback)
            return try await Self.purchase(appID: appID, id: purchaseID, on: connection)
        }
    }

    /// A sandbox subscription switched to `option`'s plan here (`SupportRules.changePlan`, checked again under the
    /// purchase's lock): its new period starts now at the option's price, with `PRODUCT_CHANGE`, the buyer's notice
    /// (with `mail`) and the audit entry.
    public func changePlan(
        appID: String, purchaseID: String, to option: PlanChange.Option, now: Date, audit: AuditEntry, mail: LifecycleMail? = nil
    ) async throws -> Purchase {
        try await write(audit: audit) { connection in
            let purchase = try await Self.purchase(appID: appID, id: purchaseID, locking: true, on: connection)
            try Self.requireHere(SupportRules.changePlan(purchase, now: now), elsewhere: "Change this subscription's plan in Stripe.")
            let tx = LifecycleTransaction(connection: connection, now: now, mail: mail)
            let switched = try await tx.changeProduct(
                purchase, to: option.product, price: option.price.price,
                periodEnd: PlanChange.periodEnd(of: purchase, switchingTo: option.product, now: now))
            // A trial ends with the switch: the new plan is paid from now.
            guard PlanChange.endsTrial(purchase), let end = switched.expiresDate else { return switched }
            try await tx.convertTrial(switched, until: end, receipted: false)
            return try await Self.purchase(appID: appID, id: purchaseID, on: connection)
        }
    }

    /// Records the switch that waits for the period's end (`plan`), or drops the one waiting (nil), with the audit entry
    /// (nil: a Stripe request audited when it was made);
    /// `SupportRules.changePlan` is checked again under the purchase's lock. A Stripe purchase's schedule is Stripe's
    /// by then: this keeps Redeem's record of it. With `mail`, the buyer is told of a switch recorded (`plan_scheduled`).
    public func schedulePlan(
        appID: String, purchaseID: String, plan: ScheduledPlan?, now: Date, audit: AuditEntry?, mail: LifecycleMail? = nil
    ) async throws -> Purchase {
        try await write(audit: audit) { connection in
            let purchase = try await Self.purchase(appID: appID, id: purchaseID, locking: true, on: connection)
            if case .failure(let refusal) = SupportRules.changePlan(purchase, now: now) { throw StoreError.conflict(refusal.reason) }
            return try await LifecycleTransaction(connection: connection, now: now, mail: mail).schedule(plan, for: purchase)
        }
    }

    /// Sends a failed (or still retrying) e-mail again now. Sent e-mails are not re-sent: a new link is the way.
    public func retryEmail(appID: String, id: String, now: Date, audit: AuditEntry) async throws -> QueuedEmail {
        try await write(audit: audit) { connection in
            guard let row = try await connection.first("SELECT * FROM email_outbox WHERE app_id = \(appID) AND id = \(id)") else {
                throw StoreError.notFound("e-mail '\(id)'")
            }
            guard row.optionalDate("sent_at") == nil else { throw StoreError.conflict("This e-mail was sent; send a new link instead.") }
            try await connection.query(
                """
                UPDATE email_outbox SET failed_at = NULL, next_attempt_at = \(now), locked_until = NULL WHERE id = \(id)
                """)
            return try QueuedEmail(row: row)
        }
    }

    /// The webhook deliveries about a purchase, newest first.
    public func webhookDeliveries(appID: String, transactionID: String, limit: Int) async throws -> [WebhookDelivery] {
        try await read { connection in
            try await connection.query(
                """
                SELECT * FROM webhook_deliveries WHERE app_id = \(appID) AND transaction_id = \(transactionID)
                ORDER BY created_at DESC, id DESC LIMIT \(limit)
                """
            ).map(WebhookDelivery.init(row:))
        }
    }

    /// Every redemption link issued for a purchase, oldest first: when, until when, first opened, redeemed by whom.
    public func redemptionLinks(appID: String, purchaseID: String) async throws -> [IssuedLink] {
        try await read { connection in
            try await connection.query(
                """
                SELECT * FROM redemption_tokens WHERE app_id = \(appID) AND purchase_id = \(purchaseID) ORDER BY created_at
                """
            ).map { row in
                IssuedLink(
                    createdAt: try row.date("created_at"), expiresAt: try row.date("expires_at"), openedAt: row.optionalDate("opened_at"),
                    redeemedAt: row.optionalDate("consumed_at"), redeemedBy: row.optionalString("consumed_by"))
            }
        }
    }
}

extension SQLStore {
    /// The Stripe payment an operator's refund refunds: the checkout's payment, or a subscription's latest invoice's.
    public func paymentReference(appID: String, purchaseID: String) async throws -> String? {
        try await read { connection in
            try await connection.first("SELECT payment_reference FROM purchases WHERE app_id = \(appID) AND id = \(purchaseID)")?
                .optionalString("payment_reference")
        }
    }
}

extension SQLStore {
    /// Inside a transaction: goes on only when the rule routes the change here; otherwise the refusal's reason, or
    /// `elsewhere` when the change belongs to Stripe.
    static func requireHere(_ decision: Result<SupportRules.Route, SupportRules.Refusal>, elsewhere: String) throws {
        switch decision {
        case .success(.here): return
        case .success(.stripe): throw StoreError.conflict(elsewhere)
        case .failure(let refusal): throw StoreError.conflict(refusal.reason)
        }
    }
}

/// A redemption link as support sees it: never its token.
public struct IssuedLink: Hashable, Sendable {
    public var createdAt: Date
    public var expiresAt: Date
    public var openedAt: Date?
    public var redeemedAt: Date?
    public var redeemedBy: String?
}

import Foundation
import Logging
import RedeemCore
import RedeemStore

extension SupportService {
    /// The plans `purchase` may switch to now: none unless `SupportRules.changePlan` allows a switch, else Core's
    /// `PlanChange.options` over its subscription group.
    public func planOptions(_ purchase: Purchase) async throws -> [PlanChange.Option] {
        guard (try? SupportRules.changePlan(purchase, now: clock.now()).get()) != nil else { return [] }
        let products = try await store.products(appID: purchase.appID)
        guard let current = products.first(where: { $0.id == purchase.productID }), let group = current.subscriptionGroup else { return [] }
        var catalog: [(product: Product, billing: ProductBilling)] = []
        for product in products where product.subscriptionGroup == group && product.id != current.id {
            catalog.append((product, try await store.productBilling(appID: purchase.appID, productID: product.id)))
        }
        return PlanChange.options(for: purchase, product: current, catalog: catalog)
    }

    /// Switches a subscription to another plan of its group, one of `planOptions`, when `PlanChange.timing` says: an
    /// upgrade at once, a downgrade when the period ends (`ScheduledPlan`). A sandbox one here; a Stripe one through
    /// Stripe (the Stripe Price of the plan's price, made if there is none yet): at once by changing the subscription's
    /// item, which its `customer.subscription.updated` applies, or at the period's end by a subscription schedule.
    /// Audited as `purchase.change_plan`. Asking for the plan it is on drops a switch waiting for the period's end, else
    /// changes nothing; asking again for the switch waiting changes nothing. Either answers as done, so a retry is harmless.
    public func changePlan(appID: String, purchaseID: String, to productID: String, actor: String) async throws -> Outcome {
        let purchase = try await store.purchase(appID: appID, id: purchaseID)
        let now = clock.now()
        let route: SupportRules.Route
        switch SupportRules.changePlan(purchase, now: now) {
        case .failure(let refusal): throw APIError.conflict(refusal.reason)
        case .success(let chosen): route = chosen
        }
        let audit = AuditEntry(
            at: now, actor: actor, action: "purchase.change_plan", objectType: "purchase", objectID: purchase.id, appID: appID,
            detail: "from \(purchase.productID) to \(productID)")
        if purchase.productID == productID {
            guard let waiting = purchase.scheduledPlan else { return Outcome(purchase: purchase, pending: false, kept: true) }
            return try await keepPlan(purchase, dropping: waiting, audit: audit.with(detail: "kept \(productID), not \(waiting.productID)"))
        }
        if let waiting = purchase.scheduledPlan, waiting.productID == productID {
            return Outcome(purchase: purchase, pending: false, scheduled: true)
        }
        let options = try await planOptions(purchase)
        guard let option = options.first(where: { $0.product.id == productID }) else {
            throw ValidationError(
                field: "product_id",
                reason: options.isEmpty
                    ? "names no plan: this subscription has no other plan to switch to (none in its group priced in its currency)"
                    : "must be one of: " + options.map(\.product.id).joined(separator: ", "))
        }
        let atPeriodEnd = option.timing == .atRenewal
        switch route {
        case .here where atPeriodEnd:
            let plan = ScheduledPlan(productID: productID, price: option.price.price, requestedAt: now)
            let scheduled = try await store.schedulePlan(
                appID: appID, purchaseID: purchase.id, plan: plan, now: now,
                audit: audit.with(detail: "from \(purchase.productID) to \(productID) at the period's end"), mail: emailQueue.lifecycle)
            return Outcome(purchase: scheduled, pending: false, scheduled: true)
        case .here:
            let changed = try await store.changePlan(
                appID: appID, purchaseID: purchase.id, to: option, now: now, audit: audit, mail: emailQueue.lifecycle)
            emailQueue.wake()
            return Outcome(purchase: changed, pending: false)
        case .stripe:
            let stripe = try requireStripe()
            let taxCode = try await store.app(id: appID).stripeTaxCode
            let priceID = try await stripe.stripePriceID(for: option.price, product: option.product, taxCode: taxCode) {
                try await store.setStripePriceID($0, for: option.price)
            }
            let when = atPeriodEnd ? " at the period's end" : ""
            try await store.recordRequest(audit.with(detail: "asked Stripe to switch from \(purchase.productID) to \(productID)\(when) (\(priceID))"))
            // Per second, as a cancellation's: a second switch must reach Stripe, not replay the first answer.
            let key = "redeem-plan-\(purchase.id)-\(productID)-\(Int(now.timeIntervalSince1970))"
            let subscription = purchase.storeTransactionID
            if atPeriodEnd, let period = option.product.period {
                let schedule = try await stripe.schedulePlan(
                    subscriptionID: subscription, priceID: priceID, period: period, trial: PlanChange.endsTrial(purchase), idempotencyKey: key)
                let plan = ScheduledPlan(productID: productID, price: option.price.price, requestedAt: now, stripeScheduleID: schedule)
                do {
                    let scheduled = try await store.schedulePlan(
                        appID: appID, purchaseID: purchase.id, plan: plan, now: now, audit: nil, mail: emailQueue.lifecycle)
                    return Outcome(purchase: scheduled, pending: false, scheduled: true)
                } catch {
                    // Set to end or ended while Stripe made the schedule (the rule is checked again under the purchase's
                    // lock): the schedule Redeem cannot record is released, so it switches nothing at the period's end.
                    do {
                        try await stripe.releaseSchedule(subscriptionID: subscription, scheduleID: schedule, idempotencyKey: key + "-undo")
                    } catch let failure {
                        // The switch's refusal is the answer; an operator must know the schedule is still in Stripe.
                        Logger(label: "redeem").error(
                            "A subscription schedule Redeem could not record is still in Stripe: release it there",
                            metadata: ["purchase": "\(purchase.id)", "schedule": "\(schedule)", "error": "\(failure)"])
                    }
                    throw error
                }
            }
            // An upgrade replaces a switch waiting for the period's end: its schedule goes first.
            if let schedule = purchase.scheduledPlan?.stripeScheduleID {
                try await stripe.releaseSchedule(subscriptionID: subscription, scheduleID: schedule, idempotencyKey: key + "-release")
            }
            let awaitsPayment = try await stripe.changePlan(
                subscriptionID: subscription, priceID: priceID, endTrial: PlanChange.endsTrial(purchase), idempotencyKey: key)
            return Outcome(purchase: purchase, pending: true, awaitsPayment: awaitsPayment)
        }
    }

    /// The buyer keeps the plan they are on: the switch waiting for the period's end is dropped (a Stripe one's schedule
    /// released first).
    func keepPlan(_ purchase: Purchase, dropping waiting: ScheduledPlan, audit: AuditEntry) async throws -> Outcome {
        let now = audit.at
        var entry: AuditEntry? = audit
        if let schedule = waiting.stripeScheduleID {
            let stripe = try requireStripe()
            try await store.recordRequest(audit.with(detail: "asked Stripe to keep \(purchase.productID): released \(schedule)"))
            try await stripe.releaseSchedule(
                subscriptionID: purchase.storeTransactionID, scheduleID: schedule,
                idempotencyKey: "redeem-release-\(purchase.id)-\(Int(now.timeIntervalSince1970))")
            entry = nil
        }
        let kept = try await store.schedulePlan(appID: purchase.appID, purchaseID: purchase.id, plan: nil, now: now, audit: entry, mail: nil)
        return Outcome(purchase: kept, pending: false, kept: true)
    }
}

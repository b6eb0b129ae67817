import Foundation
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

    /// Switches a subscription to another plan of its group, one of `planOptions`: a sandbox one here at once, a
    /// Stripe one through Stripe (the Stripe Price of the plan's price, made if there is none yet), which its
    /// `customer.subscription.updated` applies. Audited as `purchase.change_plan`. Asking for the plan it is on changes
    /// nothing and answers as done, so a retry is harmless.
    public func changePlan(appID: String, purchaseID: String, to productID: String, actor: String) async throws -> Outcome {
        let purchase = try await store.purchase(appID: appID, id: purchaseID)
        let now = clock.now()
        let route: SupportRules.Route
        switch SupportRules.changePlan(purchase, now: now) {
        case .failure(let refusal): throw APIError.conflict(refusal.reason)
        case .success(let chosen): route = chosen
        }
        // Already on it (a retried request, a second click): done, nothing to do again.
        if purchase.productID == productID { return Outcome(purchase: purchase, pending: false) }
        let options = try await planOptions(purchase)
        guard let option = options.first(where: { $0.product.id == productID }) else {
            throw ValidationError(
                field: "product_id",
                reason: options.isEmpty
                    ? "names no plan: this subscription has no other plan to switch to (none in its group priced in its currency)"
                    : "must be one of: " + options.map(\.product.id).joined(separator: ", "))
        }
        let audit = AuditEntry(
            at: now, actor: actor, action: "purchase.change_plan", objectType: "purchase", objectID: purchase.id, appID: appID,
            detail: "from \(purchase.productID) to \(productID)")
        switch route {
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
            try await store.recordRequest(audit.with(detail: "asked Stripe to switch from \(purchase.productID) to \(productID) (\(priceID))"))
            // Per second, as a cancellation's: a second switch must reach Stripe, not replay the first answer.
            let awaitsPayment = try await stripe.changePlan(
                subscriptionID: purchase.storeTransactionID, priceID: priceID,
                idempotencyKey: "redeem-plan-\(purchase.id)-\(productID)-\(Int(now.timeIntervalSince1970))")
            return Outcome(purchase: purchase, pending: true, awaitsPayment: awaitsPayment)
        }
    }
}

import Foundation
import RedeemCore
import RedeemStore

/// Completes a web purchase the same way whatever the checkout: records it, issues its redemption link,
/// and queues the receipt e-mail.
struct CheckoutService: Sendable {
    let store: any CheckoutStore
    let links: RedemptionLinkIssuer
    let emailQueue: EmailQueue
    let clock: any RedeemClock
    /// How long a sandbox trial lasts (`SandboxClock.trialLength` unless a test or demo shortens it).
    var sandboxTrialLength: TimeInterval = SandboxClock.trialLength

    struct Completed: Sendable {
        let purchase: Purchase
        let link: RedemptionLink?
        let buyer: AppUserID
    }

    /// Refuses a buyer without an app user ID where the app gives no redemption links (Core's rule).
    func ensureBuyerAllowed(app: App, buyer: AppUserID?, sandbox: Bool) throws {
        if buyer == nil, !CheckoutRules.sellsWithoutAppUserID(app, sandbox: sandbox) { throw CheckoutError.anonymousNotAllowed }
    }

    /// Refuses what the buyer already holds (Core's `CheckoutRules`), reading their purchases only when it can matter.
    func ensureNotOwned(product: Product, buyer: AppUserID?, at now: Date) async throws {
        guard CheckoutRules.needsOwnershipCheck(buyer: buyer, product: product), let buyer,
            let customer = try await store.findCustomer(appID: product.appID, appUserID: buyer)
        else { return }
        let purchases = try await store.purchases(customerID: customer.id)
        if CheckoutRules.alreadyOwns(buyer: buyer, product: product, purchases: purchases, at: now) { throw CheckoutError.alreadyOwned(product) }
    }

    /// The trial this buyer gets of a product offering `trialDays`: none when their customer or address had it before.
    func trialDays(product: Product, offered trialDays: Int?, buyer: AppUserID?, email: String?) async throws -> Int? {
        guard product.type == .subscription, trialDays != nil else { return nil }
        let facts = try await store.trialFacts(appID: product.appID, productID: product.id, buyer: buyer, email: email, trialDays: trialDays)
        return CheckoutPricing.trial(TrialRules.decide(productID: product.id, facts: facts))
    }

    /// `buyer` nil is an anonymous checkout: the purchase belongs to a new anonymous ID until it is redeemed.
    /// `trialDays` (decided by `trialDays(product:…)`) starts a free trial on the sandbox clock, at no charge.
    func complete(
        app: App, product: Product, buyer: AppUserID?, email: String, sandbox: Bool, store storeName: Store,
        storeTransactionID: String?, customParams: [String: String], idempotencyKey: String, trialDays: Int? = nil,
        termsConsent: TermsConsent? = nil
    ) async throws -> Completed {
        let now = clock.now()
        let owner = buyer ?? AppUserID.anonymous()
        try await ensureNotOwned(product: product, buyer: buyer, at: now)
        var grant = PurchaseGrant(
            appID: app.id, appUserID: owner, productID: product.id, store: storeName, isSandbox: sandbox, purchaseDate: now,
            expiresDate: sandbox ? product.period.flatMap { try? SandboxClock.expiry(period: $0, from: now) } : nil,
            storeTransactionID: storeTransactionID, price: product.price, email: email, customParams: customParams
        )
        grant.language = BuyerTexts.requested?.language
        grant.termsConsent = termsConsent
        if trialDays != nil, sandbox, let price = product.price {
            grant.periodType = .trial
            grant.expiresDate = SandboxClock.trialEnd(from: now, length: sandboxTrialLength)
            grant.price = Price(amountMicros: 0, currency: price.currency)
        }
        var grantWithReference = grant
        grantWithReference.checkoutReference = idempotencyKey
        let fingerprint = SecretToken.hash("\(app.id)|\(product.id)|\(buyer?.rawValue ?? "anonymous")|\(email)|\(sandbox)")
        let result = try await store.grant(
            grantWithReference, idempotency: Idempotency(key: "checkout:" + idempotencyKey, fingerprint: fingerprint), now: now)
        let link = try await links.issue(for: result.purchase, now: now)
        if result.created {
            RedeemMetrics.purchase(source: sandbox ? "sandbox_checkout" : "checkout")
            _ = try await emailQueue.queueReceipt(for: result.purchase)
        }
        // On a repeated submit the purchase already belongs to the first attempt's (anonymous) ID.
        let recorded = try await store.originalAppUserID(customerID: result.purchase.customerID)
        return Completed(purchase: result.purchase, link: link, buyer: (try? AppUserID(validating: recorded ?? "")) ?? owner)
    }
}

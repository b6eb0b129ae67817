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

    struct Completed: Sendable {
        let purchase: Purchase
        let link: RedemptionLink?
        let buyer: AppUserID
    }

    /// `buyer` nil is an anonymous checkout: the purchase belongs to a new anonymous ID until it is redeemed.
    func complete(
        app: App, product: Product, buyer: AppUserID?, email: String, sandbox: Bool, store storeName: Store,
        storeTransactionID: String?, customParams: [String: String], idempotencyKey: String
    ) async throws -> Completed {
        let now = clock.now()
        let owner = buyer ?? AppUserID.anonymous()
        if let buyer, !buyer.isAnonymous, product.type != .consumable,
           let customer = try await store.findCustomer(appID: app.id, appUserID: buyer),
           try await store.purchases(customerID: customer.id).contains(where: { $0.productID == product.id && $0.isActive(at: now) }) {
            throw APIError.conflict(product.type == .subscription
                ? "You already have an active \(product.displayName ?? product.id) subscription."
                : "You already own \(product.displayName ?? product.id).")
        }
        let grant = PurchaseGrant(
            appID: app.id, appUserID: owner, productID: product.id, store: storeName, isSandbox: sandbox, purchaseDate: now,
            expiresDate: sandbox ? product.period.flatMap { try? SandboxClock.expiry(period: $0, from: now) } : nil,
            storeTransactionID: storeTransactionID, price: product.price, email: email, customParams: customParams
        )
        var grantWithReference = grant
        grantWithReference.checkoutReference = idempotencyKey
        let fingerprint = SecretToken.hash("\(app.id)|\(product.id)|\(buyer?.rawValue ?? "anonymous")|\(email)|\(sandbox)")
        let result = try await store.grant(grantWithReference, idempotency: Idempotency(key: "checkout:" + idempotencyKey, fingerprint: fingerprint), now: now)
        let link = try await links.issue(for: result.purchase, now: now)
        if result.created { _ = try await emailQueue.queueReceipt(for: result.purchase) }
        // On a repeated submit the purchase already belongs to the first attempt's (anonymous) ID.
        let recorded = try await store.originalAppUserID(customerID: result.purchase.customerID)
        return Completed(purchase: result.purchase, link: link, buyer: (try? AppUserID(validating: recorded ?? "")) ?? owner)
    }
}

/// Sandbox subscriptions run on an accelerated clock, as RevenueCat's sandbox does:
/// a week or a month lasts 5 minutes, a year an hour.
enum SandboxClock {
    static func expiry(period: String, from date: Date) throws -> Date {
        let parsed = try ISO8601Period(parsing: period)
        let minutes: Double = parsed.years > 0 ? 60 : 5
        return date.addingTimeInterval(minutes * 60)
    }
}

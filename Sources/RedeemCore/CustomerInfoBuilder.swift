import Foundation

extension CustomerInfo {
    /// Builds CustomerInfo from a customer's purchases and the products they bought.
    ///
    /// Entitlements follow from the purchases: refunded ones grant nothing; of the rest, a one-time
    /// purchase grants for life, otherwise the latest expiry (or grace period) wins.
    public init(
        customer: Customer, purchases: [Purchase], products: [String: Product], requestDate: Date,
        managementURL: String? = nil
    ) {
        self.requestDate = ISODate.format(requestDate)
        self.requestDateMs = requestDate.millisecondsSince1970
        var subscriptions: [String: SubscriptionInfo] = [:]
        var subscriptionExpiry: [String: Date] = [:]
        var nonSubscriptions: [String: [Transaction]] = [:]
        var entitlements: [String: (info: EntitlementInfo, rank: Date)] = [:]
        let lifetime = Date.distantFuture

        for purchase in purchases.sorted(by: { $0.purchaseDate < $1.purchaseDate }) {
            let product = products[purchase.productID]
            let price = purchase.price.map { PriceInfo(amount: $0.amount, currency: $0.currency) }
            if product?.type == .subscription || purchase.expiresDate != nil {
                let expiry = purchase.expiresDate ?? lifetime
                if expiry >= (subscriptionExpiry[purchase.productID] ?? .distantPast) {
                    subscriptionExpiry[purchase.productID] = expiry
                    subscriptions[purchase.productID] = SubscriptionInfo(
                        purchaseDate: ISODate.format(purchase.purchaseDate),
                        originalPurchaseDate: ISODate.format(purchase.originalPurchaseDate),
                        expiresDate: purchase.expiresDate.map(ISODate.format),
                        store: purchase.store.rawValue, isSandbox: purchase.isSandbox,
                        periodType: purchase.periodType.rawValue, ownershipType: "PURCHASED",
                        unsubscribeDetectedAt: purchase.unsubscribeDetectedAt.map(ISODate.format),
                        billingIssuesDetectedAt: purchase.billingIssuesDetectedAt.map(ISODate.format),
                        gracePeriodExpiresDate: purchase.gracePeriodExpiresDate.map(ISODate.format),
                        refundedAt: purchase.refundedAt.map(ISODate.format), autoResumeDate: nil,
                        storeTransactionID: purchase.storeTransactionID, displayName: product?.displayName,
                        price: price, managementURL: managementURL, offer: purchase.offer
                    )
                }
            } else {
                nonSubscriptions[purchase.productID, default: []].append(
                    Transaction(
                        id: purchase.id, purchaseDate: ISODate.format(purchase.purchaseDate),
                        originalPurchaseDate: ISODate.format(purchase.originalPurchaseDate),
                        store: purchase.store.rawValue, isSandbox: purchase.isSandbox,
                        storeTransactionID: purchase.storeTransactionID, displayName: product?.displayName,
                        refundedAt: purchase.refundedAt.map(ISODate.format), price: price
                    ))
            }
            guard purchase.refundedAt == nil, let product else { continue }
            let rank = purchase.access.accessEnds ?? lifetime
            for entitlement in product.entitlements where rank >= (entitlements[entitlement]?.rank ?? .distantPast) {
                entitlements[entitlement] = (
                    EntitlementInfo(
                        expiresDate: purchase.expiresDate.map(ISODate.format),
                        purchaseDate: ISODate.format(purchase.purchaseDate),
                        productIdentifier: purchase.productID,
                        gracePeriodExpiresDate: purchase.gracePeriodExpiresDate.map(ISODate.format)
                    ), rank
                )
            }
        }

        self.subscriber = Subscriber(
            originalAppUserID: customer.originalAppUserID,
            originalApplicationVersion: nil,
            originalPurchaseDate: purchases.map(\.originalPurchaseDate).min().map(ISODate.format),
            firstSeen: ISODate.format(customer.firstSeen),
            lastSeen: ISODate.format(customer.lastSeen),
            managementURL: managementURL,
            subscriptions: subscriptions,
            nonSubscriptions: nonSubscriptions,
            entitlements: entitlements.mapValues(\.info),
            otherPurchases: [:],
            subscriberAttributes: [:]
        )
    }
}

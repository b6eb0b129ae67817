import Foundation

/// Who may buy a product on the web.
public enum CheckoutRules {
    /// Only an identified buyer of a product that cannot be bought twice (a subscription or a non-consumable) can
    /// already own it; the store reads the buyer's purchases only then.
    public static func needsOwnershipCheck(buyer: AppUserID?, product: Product) -> Bool {
        guard let buyer else { return false }
        return !buyer.isAnonymous && product.type != .consumable
    }

    /// The buyer already holds `product` (an active subscription, an owned one-time product): selling it again
    /// would charge twice for one entitlement.
    public static func alreadyOwns(buyer: AppUserID?, product: Product, purchases: [Purchase], at date: Date) -> Bool {
        needsOwnershipCheck(buyer: buyer, product: product)
            && purchases.contains { $0.productID == product.id && $0.isActive(at: date) }
    }
}

/// Sandbox subscriptions run on an accelerated clock, as RevenueCat's sandbox does:
/// a week or a month lasts 5 minutes, a year an hour.
public enum SandboxClock {
    public static func expiry(period: String, from date: Date) throws -> Date {
        let parsed = try ISO8601Period(parsing: period)
        let minutes: Double = parsed.years > 0 ? 60 : 5
        return date.addingTimeInterval(minutes * 60)
    }

    /// Whether `purchase` runs on this clock: a sandbox subscription whose period lasts an hour or less (no real
    /// period is that short; sandbox purchases recorded through the API keep real dates).
    public static func runs(_ purchase: Purchase) -> Bool {
        guard purchase.isSandbox, let expires = purchase.expiresDate else { return false }
        return expires.timeIntervalSince(purchase.purchaseDate) <= 3600
    }
}

extension CheckoutRules {
    /// Selling to a buyer without an app user ID needs redemption links in that environment: the link is how the
    /// purchase later reaches the app's user.
    public static func sellsWithoutAppUserID(_ app: App, sandbox: Bool) -> Bool {
        app.redemptionLinkPolicy.allowsLinks(sandbox: sandbox)
    }
}

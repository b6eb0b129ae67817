import Foundation

/// A subscription moved to another plan of its subscription group. The buyer picks one in the portal (`options`), or
/// its store moved it (a Stripe plan switch made in Stripe's Billing Portal or dashboard, `target`); the purchase
/// becomes that product.
public enum PlanChange {
    /// One switch as recorded with its purchase: when, from which product at which price, to which product.
    public struct Record: Equatable, Sendable {
        public let purchaseID: String
        public let at: Date
        public let fromProductID: String
        public let fromPrice: Price?
        public let toProductID: String

        public init(purchaseID: String, at: Date, fromProductID: String, fromPrice: Price?, toProductID: String) {
            self.purchaseID = purchaseID
            self.at = at
            self.fromProductID = fromProductID
            self.fromPrice = fromPrice
            self.toProductID = toProductID
        }
    }

    /// A plan the buyer may switch to, at its price in the purchase's currency, and when the switch would take effect.
    public struct Option: Equatable, Sendable {
        public let product: Product
        public let price: ProductPrice
        public let timing: Timing
    }

    /// When a switch takes effect, as the App Store's subscription groups decide it (level 1 is the highest): an upgrade
    /// at once, a downgrade when the current period ends, so the buyer keeps what they paid for; between plans of one
    /// level, at once when their periods match, else at the period's end. A plan without a level counts as the same level.
    public enum Timing: String, Equatable, Sendable {
        case now
        case atRenewal = "at_renewal"
    }

    public static func timing(from current: Product, to target: Product) -> Timing {
        if let from = current.groupLevel, let to = target.groupLevel, from != to { return to < from ? .now : .atRenewal }
        return current.period == target.period ? .now : .atRenewal
    }

    /// The plans `purchase` (of `product`) may switch to: the other subscriptions of its subscription group that have a
    /// price in the purchase's currency (a switch keeps the currency, as RevenueCat's Web Billing does), highest level
    /// first. None for a product outside a group. A purchase recorded without its price (the server API) keeps its
    /// product's default currency. Whether the purchase may switch at all is `SupportRules.changePlan`.
    public static func options(for purchase: Purchase, product: Product?, catalog: [(product: Product, billing: ProductBilling)]) -> [Option] {
        guard let product, let group = product.subscriptionGroup, let currency = purchase.price?.currency ?? product.price?.currency
        else { return [] }
        return catalog.compactMap { candidate -> Option? in
            let other = candidate.product
            guard other.appID == purchase.appID, other.id != purchase.productID, other.type == .subscription,
                other.subscriptionGroup == group, let price = candidate.billing.price(in: currency)
            else { return nil }
            return Option(product: other, price: price, timing: timing(from: product, to: other))
        }.sorted { ($0.product.groupLevel ?? .max, $0.product.id) < ($1.product.groupLevel ?? .max, $1.product.id) }
    }

    /// A switch ends a free trial, as RevenueCat's Web Billing does: the new plan is not a trial. One made now (an upgrade)
    /// starts the paid plan now and charges it now; one that waits (a downgrade) starts it, paid, when the trial ends.
    /// Either way the trial converts with the switch (`RENEWAL` with `is_trial_conversion`), to the new plan.
    public static func endsTrial(_ purchase: Purchase) -> Bool { purchase.periodType == .trial }

    /// When the new plan's first period ends, for a switch applied here (a sandbox purchase): it starts now, on the
    /// sandbox's fast clock when the purchase runs on it.
    public static func periodEnd(of purchase: Purchase, switchingTo product: Product, now: Date) -> Date? {
        guard let text = product.period, let period = try? ISO8601Period(parsing: text) else { return purchase.expiresDate }
        if SandboxClock.runs(purchase) { return try? SandboxClock.expiry(period: text, from: now) }
        return period.advance(now)
    }

    /// The product `purchase` becomes, given the product the store's price names (nil when the price names none Redeem
    /// knows). Nil when nothing changes: the same product, another app's, one that does not renew, or a purchase already
    /// refunded (its access is gone; a switch does not bring it back).
    public static func target(of purchase: Purchase, named product: Product?) -> Product? {
        guard let product, product.appID == purchase.appID, product.id != purchase.productID, product.type == .subscription,
            purchase.refundedAt == nil
        else { return nil }
        return product
    }
}

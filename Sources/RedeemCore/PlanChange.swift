import Foundation

/// A subscription its store moved to another plan (a Stripe plan switch, made in Stripe's Billing Portal or dashboard):
/// the purchase becomes that product, as the store now bills it.
public enum PlanChange {
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

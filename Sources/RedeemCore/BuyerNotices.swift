import Foundation

/// Redeem's lifecycle e-mails to a web buyer, as RevenueCat's Web Billing sends them: renewal turned off, a refund, a
/// payment that failed. Which purchases get them is decided here, once; when is the lifecycle change's.
public enum BuyerNotices {
    /// Where a notice about `purchase` goes: its address, for a purchase one of Redeem's checkouts sold (Stripe
    /// Checkout or the sandbox checkout). A store's own purchases are the store's to tell about; a grant has no buyer.
    public static func recipient(of purchase: Purchase) -> String? {
        guard purchase.store == .stripe || purchase.store == .rcBilling else { return nil }
        return purchase.email
    }

    /// How long after a renewal-off notice another is held back: a buyer turning renewal off, on and off again hears
    /// once, not three times.
    public static let renewalOffQuietPeriod: TimeInterval = 3600
}

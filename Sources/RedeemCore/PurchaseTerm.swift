import Foundation

/// Where a purchase's term stands, decided once for the console's customer page and the buyer's portal, which each
/// word it their own way: from its access facts (refund, expiry, grace period) and whether it renews by itself.
public enum PurchaseTerm: Equatable, Sendable {
    /// Refunded then: it grants nothing since.
    case refunded(Date)
    /// Its payment was taken back by the buyer's bank then (a chargeback): it grants nothing since.
    case chargedBack(Date)
    /// Its access ended then: it lapsed.
    case ended(Date)
    /// An operator's grant, revoked then (a revocation marks the grant cancelled as it ends it).
    case revoked(Date)
    /// A renewal's payment failed: access lasts until the grace period ends, while the payment is retried.
    case retrying(until: Date)
    /// It ends then and nothing renews it: set to end with its period, an operator's grant, or an offer code's period
    /// (an offer "does not renew").
    case ends(Date)
    /// Redeem's checkout renews it then (the sandbox's clock, or Stripe).
    case renews(Date)
    /// Paid elsewhere (recorded through the server API): it expires then unless the store it was paid in renews it.
    case expires(Date)
    /// A one-time purchase: kept for good.
    case kept

    public init(_ purchase: Purchase, at now: Date) {
        let access = purchase.access
        if let refunded = purchase.refundedAt {
            self = purchase.dispute?.endedAccessAt != nil ? .chargedBack(refunded) : .refunded(refunded)
        } else if let expires = purchase.expiresDate {
            if !access.isActive(at: now) {
                self = PromotionalGrant.revokedAt(purchase) != nil ? .revoked(expires) : .ended(expires)
            } else if access.isInGracePeriod(at: now), let grace = purchase.gracePeriodExpiresDate {
                self = .retrying(until: grace)
            } else if purchase.unsubscribeDetectedAt != nil || purchase.offer != nil || purchase.store == .promotional {
                self = .ends(expires)
            } else {
                self = Funnel.checkoutStores.contains(purchase.store) ? .renews(expires) : .expires(expires)
            }
        } else {
            self = .kept
        }
    }
}

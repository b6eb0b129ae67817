import Foundation

/// What an operator may do to a purchase, decided from the purchase alone. Each returns why not, or nil when allowed.
public enum SupportRules {
    /// How a refund or cancellation reaches the purchase: applied here at once (sandbox), or asked of Stripe, whose
    /// webhook then applies it.
    public enum Route: Equatable, Sendable {
        case here
        case stripe
    }

    /// Stripe purchases (test mode too) are refunded through Stripe; other sandbox purchases here. Grants are revoked,
    /// not refunded, and purchases recorded through the server API were paid elsewhere.
    public static func refund(_ purchase: Purchase) -> Result<Route, Refusal> {
        guard purchase.refundedAt == nil else {
            // The bank took a chargeback's money back already: refunding it too would pay the buyer twice.
            let chargedBack = purchase.dispute?.endedAccessAt != nil
            return .failure(
                Refusal(chargedBack ? "This purchase was charged back: its payment went back to the buyer." : "This purchase is already refunded."))
        }
        switch purchase.store {
        case .stripe: return .success(.stripe)
        case .promotional: return .failure(Refusal("A granted entitlement is revoked, not refunded."))
        default:
            guard purchase.isSandbox else {
                return .failure(Refusal("This purchase was paid outside Redeem (\(purchase.store.rawValue)); refund it where it was paid."))
            }
            return .success(.here)
        }
    }

    /// Only a live subscription that still renews can be cancelled at the end of its period.
    public static func cancelAtPeriodEnd(_ purchase: Purchase, now: Date) -> Result<Route, Refusal> {
        guard purchase.expiresDate != nil, purchase.store != .promotional else {
            return .failure(Refusal("Only a subscription renews, so only a subscription can be cancelled."))
        }
        guard purchase.isActive(at: now) else { return .failure(Refusal("This subscription has already ended.")) }
        guard purchase.unsubscribeDetectedAt == nil else { return .failure(Refusal("This subscription is already set to end with its period.")) }
        if purchase.store == .stripe { return .success(.stripe) }
        guard purchase.isSandbox else {
            return .failure(Refusal("This subscription renews outside Redeem (\(purchase.store.rawValue)); cancel it there."))
        }
        return .success(.here)
    }

    /// A subscription set to end with its period renews again (the buyer changed their mind before it ended).
    public static func resume(_ purchase: Purchase, now: Date) -> Result<Route, Refusal> {
        guard purchase.expiresDate != nil, purchase.store != .promotional else {
            return .failure(Refusal("Only a subscription renews, so only a subscription can be resumed."))
        }
        guard purchase.isActive(at: now) else { return .failure(Refusal("This subscription has already ended; buy it again.")) }
        guard purchase.unsubscribeDetectedAt != nil else { return .failure(Refusal("This subscription already renews.")) }
        guard purchase.refundedAt == nil else { return .failure(Refusal("This purchase was refunded.")) }
        if purchase.store == .stripe { return .success(.stripe) }
        guard purchase.isSandbox else {
            return .failure(Refusal("This subscription renews outside Redeem (\(purchase.store.rawValue)); resume it there."))
        }
        return .success(.here)
    }

    /// A live subscription that renews, in good standing, may switch plan (`PlanChange.options`): a Stripe one through
    /// Stripe (its webhook applies it), a sandbox one here. A free trial may too; the switch ends it
    /// (`PlanChange.endsTrial`).
    public static func changePlan(_ purchase: Purchase, now: Date) -> Result<Route, Refusal> {
        guard purchase.expiresDate != nil, purchase.store != .promotional, purchase.offer == nil else {
            return .failure(Refusal("Only a subscription changes plan."))
        }
        guard purchase.isActive(at: now), purchase.refundedAt == nil else { return .failure(Refusal("This subscription has already ended.")) }
        guard purchase.unsubscribeDetectedAt == nil else {
            return .failure(Refusal("This subscription is set to end with its period; resume it before changing its plan."))
        }
        guard purchase.billingIssuesDetectedAt == nil else {
            return .failure(Refusal("A payment failed; update the payment method before changing plan."))
        }
        if purchase.store == .stripe, purchase.storeTransactionID.hasPrefix("sub_") { return .success(.stripe) }
        guard purchase.isSandbox, purchase.store != .stripe else {
            return .failure(Refusal("This subscription renews outside Redeem (\(purchase.store.rawValue)); change it there."))
        }
        return .success(.here)
    }

    /// Why an operator's request was refused, in words for the operator.
    public struct Refusal: Error, Equatable, Sendable {
        public let reason: String
        public init(_ reason: String) { self.reason = reason }
    }
}

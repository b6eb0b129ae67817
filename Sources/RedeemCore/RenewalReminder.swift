import Foundation

/// The reminders before a web subscription renews on its own, as California's automatic-renewal law asks (from July
/// 2025) and RevenueCat's Web Billing sends as optional notices: a subscription of a year or longer, 15 to 45 days
/// before it renews; a free trial longer than 31 days, 3 to 21 days before it ends. Redeem sends them from 30 and 7 days
/// before, and until the law's nearest day when a pass was missed; an app turns them on (`App.renewalReminders`).
public enum RenewalReminder: Sendable, Equatable {
    case renewal, trialEnding

    static let day: TimeInterval = 86_400
    /// How far ahead of a purchase's expiry a reminder can be due: the scan's horizon.
    public static let horizon: TimeInterval = 30 * day
    /// A reminder of the same kind is not repeated within this: once per yearly period, once per trial.
    public static let quietPeriod: TimeInterval = 60 * day

    /// The reminder due for `purchase` at `now`, if any; `productPeriod` is its product's (ISO 8601). Only a purchase
    /// that will renew (not set to end, not refunded) of Redeem's checkouts (`BuyerNotices`) gets one. An offer code's
    /// purchase is paid once (or not at all) and lapses at its end, so it has nothing to remind of.
    public static func due(_ purchase: Purchase, productPeriod: String?, now: Date) -> RenewalReminder? {
        guard BuyerNotices.recipient(of: purchase) != nil, purchase.unsubscribeDetectedAt == nil, purchase.refundedAt == nil,
            purchase.offer == nil, let expiry = purchase.expiresDate
        else { return nil }
        let left = expiry.timeIntervalSince(now)
        if purchase.periodType == .trial {
            let length = expiry.timeIntervalSince(purchase.purchaseDate)
            return length > 31 * day && left > 3 * day && left <= 7 * day ? .trialEnding : nil
        }
        guard remindsOfRenewal(productPeriod: productPeriod) else { return nil }
        return left > 15 * day && left <= horizon ? .renewal : nil
    }

    /// Whether a product's renewals are reminded of: a period of a year or longer.
    public static func remindsOfRenewal(productPeriod: String?) -> Bool {
        guard let text = productPeriod, let period = try? ISO8601Period(parsing: text) else { return false }
        return period.years * 12 + period.months >= 12
    }
}

extension ProductBilling {
    /// What the purchase renews at: the product's price in the purchase's currency, else its default price, else what
    /// the purchase paid. A trial's conversion charges it, and a reminder names it.
    public func renewalPrice(of purchase: Purchase) -> Price? {
        (purchase.price.flatMap { price(in: $0.currency) } ?? defaultPrice)?.price ?? purchase.price
    }
}

import Foundation
import RedeemCore

/// Events built from domain values. `eventID` must be stable across retries; `date` is the event time.
extension WebhookEvent {
    /// `INITIAL_PURCHASE` for subscriptions, `NON_RENEWING_PURCHASE` for one-time products and, as RevenueCat sends them,
    /// for granted entitlements.
    public static func purchase(
        _ purchase: Purchase, customer: Customer, product: Product, eventID: String, at date: Date
    ) -> WebhookEvent {
        let renews = product.type == .subscription && purchase.store != .promotional
        let type: WebhookEventType = renews ? .initialPurchase : .nonRenewingPurchase
        return lifecycle(type, purchase: purchase, customer: customer, product: product, eventID: eventID, at: date)
    }

    /// `transactionID` is the renewal's own transaction, when the store gives one.
    public static func renewal(
        _ purchase: Purchase, customer: Customer, product: Product, isTrialConversion: Bool = false,
        transactionID: String? = nil, eventID: String, at date: Date
    ) -> WebhookEvent {
        var event = lifecycle(.renewal, purchase: purchase, customer: customer, product: product, eventID: eventID, at: date)
        event.isTrialConversion = isTrialConversion
        if let transactionID { event.transactionID = transactionID }
        return event
    }

    public static func cancellation(
        _ purchase: Purchase, customer: Customer, product: Product, reason: WebhookReason, eventID: String, at date: Date
    ) -> WebhookEvent {
        var event = lifecycle(.cancellation, purchase: purchase, customer: customer, product: product, eventID: eventID, at: date)
        event.cancelReason = reason
        return event
    }

    public static func uncancellation(
        _ purchase: Purchase, customer: Customer, product: Product, eventID: String, at date: Date
    ) -> WebhookEvent {
        lifecycle(.uncancellation, purchase: purchase, customer: customer, product: product, eventID: eventID, at: date)
    }

    /// Carries `grace_period_expiration_at_ms` when the purchase has a grace period.
    public static func billingIssue(
        _ purchase: Purchase, customer: Customer, product: Product, eventID: String, at date: Date
    ) -> WebhookEvent {
        var event = lifecycle(.billingIssue, purchase: purchase, customer: customer, product: product, eventID: eventID, at: date)
        event.gracePeriodExpirationAtMs = purchase.gracePeriodExpiresDate.map(milliseconds)
        return event
    }

    public static func expiration(
        _ purchase: Purchase, customer: Customer, product: Product, reason: WebhookReason, eventID: String, at date: Date
    ) -> WebhookEvent {
        var event = lifecycle(.expiration, purchase: purchase, customer: customer, product: product, eventID: eventID, at: date)
        event.expirationReason = reason
        return event
    }

    /// Like RevenueCat: no `app_user_id`, only the two customers' IDs, sent for the destination.
    public static func transfer(
        _ purchase: Purchase, from source: Customer, to destination: Customer, eventID: String, at date: Date
    ) -> WebhookEvent {
        var event = WebhookEvent(id: eventID, type: .transfer, appID: purchase.appID, eventTimestampMs: milliseconds(date))
        event.environment = WebhookEnvironment(isSandbox: purchase.isSandbox)
        event.store = WebhookStore(purchase.store)
        event.transferredFrom = appUserIDs(of: source)
        event.transferredTo = appUserIDs(of: destination)
        return event
    }

    /// `SUBSCRIBER_ALIAS` for `customer` after a merge.
    public static func alias(
        customer: Customer, environment: WebhookEnvironment, eventID: String, at date: Date
    ) -> WebhookEvent {
        var event = WebhookEvent(id: eventID, type: .subscriberAlias, appID: customer.appID, eventTimestampMs: milliseconds(date))
        event.setSubscriber(customer, appUserID: nil)
        event.environment = environment
        return event
    }

    /// `REDEMPTION`: `redeemedBy` redeemed a link for `purchase`, now owned by `customer`.
    public static func redemption(
        _ purchase: Purchase, customer: Customer, product: Product, redeemedBy: String,
        association: WebhookRedemption.Association?, eventID: String, at date: Date
    ) -> WebhookEvent {
        var event = lifecycle(
            .redemption, purchase: purchase, customer: customer, product: product, appUserID: redeemedBy, eventID: eventID, at: date
        )
        event.redemption = WebhookRedemption(purchaseID: purchase.id, redeemedBy: redeemedBy, association: association)
        return event
    }

    /// `TEST`, as sent from a dashboard's "send test event".
    public static func test(
        appID: String, environment: WebhookEnvironment = .sandbox, eventID: String, at date: Date
    ) -> WebhookEvent {
        var event = WebhookEvent(id: eventID, type: .test, appID: appID, eventTimestampMs: milliseconds(date))
        event.environment = environment
        return event
    }

    /// Common and purchase fields for any purchase event, e.g. a future `OFFER_CODE_REDEEMED`.
    public static func lifecycle(
        _ type: WebhookEventType, purchase: Purchase, customer: Customer, product: Product, appUserID: String? = nil,
        eventID: String, at date: Date
    ) -> WebhookEvent {
        var event = WebhookEvent(id: eventID, type: type, appID: purchase.appID, eventTimestampMs: milliseconds(date))
        event.setSubscriber(customer, appUserID: appUserID)
        event.environment = WebhookEnvironment(isSandbox: purchase.isSandbox)
        event.store = WebhookStore(purchase.store)
        event.productID = purchase.productID
        event.entitlementIDs = product.entitlements
        event.entitlementID = product.entitlements.count == 1 ? product.entitlements[0] : nil
        event.periodType = purchase.store == .promotional ? .promotional : WebhookPeriodType(purchase.periodType)
        event.purchasedAtMs = milliseconds(purchase.purchaseDate)
        event.expirationAtMs = purchase.expiresDate.map(milliseconds)
        event.transactionID = purchase.storeTransactionID
        event.originalTransactionID = purchase.storeTransactionID
        if let price = purchase.price { event.setPrice(price) }
        // Attribution and custom metadata the purchase link or checkout carried (`utm_source`, `campaign`, …), as
        // RevenueCat carries a customer's attributes, stamped with the purchase's time.
        for (name, value) in purchase.customParams {
            event.subscriberAttributes[name] = WebhookSubscriberAttribute(value: value, updatedAtMs: milliseconds(purchase.purchaseDate))
        }
        return event
    }

    /// The customer's subscriber attributes, as RevenueCat's events carry them; a purchase link's parameter of the same
    /// name gives way when the customer's attribute is as new or newer.
    public mutating func addSubscriberAttributes(_ attributes: [String: SubscriberAttribute]) {
        for (key, attribute) in attributes {
            let updated = Self.milliseconds(attribute.updatedAt)
            if let existing = subscriberAttributes[key], existing.updatedAtMs > updated { continue }
            subscriberAttributes[key] = WebhookSubscriberAttribute(value: attribute.value, updatedAtMs: updated)
        }
    }

    /// `currency`, `price_in_purchased_currency` and `price` (USD only: Redeem converts no currency); a refund's
    /// amount is negative, as RevenueCat sends it.
    public mutating func setPrice(_ price: Price, refunded: Bool = false) {
        let amount = refunded ? -price.amount : price.amount
        currency = price.currency
        priceInPurchasedCurrency = amount
        self.price = price.currency == "USD" ? amount : nil
    }

    /// Unix milliseconds, rounded to the nearest.
    public static func milliseconds(_ date: Date) -> Int64 {
        Int64((date.timeIntervalSince1970 * 1000).rounded())
    }

    /// Every ID of the customer, the original included.
    static func appUserIDs(of customer: Customer) -> [String] {
        customer.aliases.isEmpty ? [customer.originalAppUserID] : customer.aliases
    }

    /// `app_user_id` defaults to the newest identified alias, else the original ID.
    mutating func setSubscriber(_ customer: Customer, appUserID: String?) {
        let ids = Self.appUserIDs(of: customer)
        self.appUserID = appUserID ?? ids.last { !$0.hasPrefix(AppUserID.anonymousPrefix) } ?? customer.originalAppUserID
        originalAppUserID = customer.originalAppUserID
        aliases = ids
    }
}

/// Why a Stripe event was not applied; the HTTP layer maps each to a status and code (`APIError.from`).
enum StripeEventError: Error, Equatable {
    /// No webhook signing secret: the route is off.
    case notConfigured
    case signatureRejected(String)
    case notAnEvent(String)
    /// The event names a subscription Redeem has not recorded yet (events can arrive out of order): the transaction
    /// rolls back and Stripe delivers the event again later.
    case notYetKnown
    /// A Checkout Session without Redeem's `app_id` and `product_id` metadata.
    case noRedeemMetadata
    /// A paid session whose amount or currency cannot be read: never recorded as some other amount. Nothing is applied,
    /// and Stripe delivers the event again.
    case unreadableAmount(String)
}

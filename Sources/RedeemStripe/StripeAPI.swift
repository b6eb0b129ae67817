/// The Stripe API version this module is written against.
///
/// Send it as `Stripe-Version` on API calls and set the webhook endpoint to the same
/// version, so event payloads have the shapes decoded here. The event decoder also
/// accepts the newer (2025-03-31.basil and later) locations of the fields it reads:
/// `invoice.parent.subscription_details.subscription` and
/// `subscription.items.data[0].current_period_end`.
public enum StripeAPI {
    public static let version = "2024-06-20"
    /// Checkout Sessions with Managed Payments need 2025-03-31.basil or later; only those requests send it. Webhook
    /// payloads keep the endpoint's own version, whatever a request sent.
    public static let managedPaymentsVersion = "2025-03-31.basil"
}

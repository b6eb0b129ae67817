import Foundation

/// The support calls made on a Stripe purchase: refund its payment, cancel or resume its subscription, or switch its
/// plan. Stripe then sends `charge.refunded` or `customer.subscription.updated` (`.deleted`), and the webhook applies it.
public enum StripeSupportRequest: Sendable, Hashable {
    /// `POST /v1/refunds` for the whole of a payment intent.
    case refund(paymentIntentID: String)
    /// `POST /v1/subscriptions/{id}` with `cancel_at_period_end=true`, and the buyer's reason, if they gave one, as
    /// `cancellation_details[feedback]` (`too_expensive`, `unused`, …: Stripe's values).
    case cancelAtPeriodEnd(subscriptionID: String, feedback: String? = nil)
    /// `POST /v1/subscriptions/{id}` with `cancel_at_period_end=false` and `cancel_at` unset (an empty value): renews
    /// again, whether it was set to end with its period or on a date (Stripe's dashboard schedules those).
    case resume(subscriptionID: String)
    /// `POST /v1/subscriptions/{id}`: the item's new Price, starting now. Stripe charges the difference for the rest of
    /// the period at once, or credits it to the next invoice (`proration_behavior=always_invoice`); the switch holds only
    /// if that payment goes through (`payment_behavior=pending_if_incomplete`). `endTrial`: a trial ends with the switch
    /// (`trial_end=now`), so the new Price is charged in full now.
    case changePrice(subscriptionID: String, itemID: String, priceID: String, endTrial: Bool = false)
    /// `DELETE /v1/subscriptions/{id}`: ends it now, charging and crediting nothing more (a chargeback's subscription).
    case cancelNow(subscriptionID: String)

    /// `idempotencyKey`: the same key for a retried request, so Stripe refunds once.
    public func httpRequest(secretKey: String, idempotencyKey: String) throws(StripeRequestError) -> StripeHTTPRequest {
        let path: String
        var method = "POST"
        let fields: [(key: String, value: String)]
        switch self {
        case .refund(let paymentIntent):
            guard paymentIntent.hasPrefix("pi_") else { throw StripeRequestError(field: "payment_intent", reason: "must be a payment intent (pi_…)") }
            path = "/v1/refunds"
            fields = [("payment_intent", paymentIntent), ("metadata[source]", "redeem")]
        case .cancelAtPeriodEnd(let subscription, let feedback):
            path = "/v1/subscriptions/" + (try Self.subscriptionSegment(subscription))
            fields = [("cancel_at_period_end", "true")] + (feedback.map { [("cancellation_details[feedback]", $0)] } ?? [])
        case .resume(let subscription):
            path = "/v1/subscriptions/" + (try Self.subscriptionSegment(subscription))
            fields = [("cancel_at_period_end", "false"), ("cancel_at", "")]
        case .changePrice(let subscription, let item, let price, let endTrial):
            path = "/v1/subscriptions/" + (try Self.subscriptionSegment(subscription))
            guard item.hasPrefix("si_") else { throw StripeRequestError(field: "item", reason: "must be a subscription item (si_…)") }
            guard price.hasPrefix("price_") else { throw StripeRequestError(field: "price", reason: "must be a Price (price_…)") }
            fields =
                [
                    ("items[0][id]", item), ("items[0][price]", price), ("proration_behavior", "always_invoice"),
                    ("payment_behavior", "pending_if_incomplete"),
                ] + (endTrial ? [("trial_end", "now")] : [])
        case .cancelNow(let subscription):
            path = "/v1/subscriptions/" + (try Self.subscriptionSegment(subscription))
            method = "DELETE"
            fields = []
        }
        return StripeHTTPRequest(
            method: method, url: URL(string: "https://api.stripe.com" + path)!,
            headers: [
                "Authorization": "Bearer \(secretKey)", "Stripe-Version": StripeAPI.version, "Idempotency-Key": idempotencyKey,
                "Content-Type": "application/x-www-form-urlencoded",
            ],
            body: StripeFormEncoding.encode(fields))
    }

    /// A subscription ID safe to put in a path.
    static func subscriptionSegment(_ id: String) throws(StripeRequestError) -> String {
        guard id.hasPrefix("sub_"), id.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_") }) else {
            throw StripeRequestError(field: "subscription", reason: "must be a subscription (sub_…)")
        }
        return id
    }

    /// Nothing to read from a 2xx answer; anything else is Stripe's error.
    public static func check(statusCode: Int, body: some DataProtocol) throws(StripeAPIError) {
        guard (200..<300).contains(statusCode) else { throw StripeAPIError(statusCode: statusCode, body: body) }
    }

    /// Whether a switch waits for its payment (`pending_update` set: the charge failed or the bank asks the buyer to
    /// confirm it), so nothing has changed yet; from a 2xx answer to `changePrice`.
    public static func awaitsPayment(statusCode: Int, body: some DataProtocol) throws(StripeAPIError) -> Bool {
        try check(statusCode: statusCode, body: body)
        return (try? JSONDecoder().decode(SwitchAnswer.self, from: Data(body)))?.pendingUpdate != nil
    }

    /// A subscription update's answer, read for `pending_update` only (whatever it holds).
    struct SwitchAnswer: Decodable {
        struct Present: Decodable { init(from decoder: any Decoder) throws {} }
        let pendingUpdate: Present?
        enum CodingKeys: String, CodingKey { case pendingUpdate = "pending_update" }
    }
}

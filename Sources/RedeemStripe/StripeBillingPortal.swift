import Foundation

/// A Stripe Billing Portal session for a subscription's customer, where the buyer updates their payment method and
/// reads their invoices: `GET /v1/subscriptions/{id}` names the customer, then `POST /v1/billing_portal/sessions`.
public enum StripeBillingPortal {
    public static func subscriptionRequest(secretKey: String, subscriptionID: String) throws(StripeRequestError) -> StripeHTTPRequest {
        let id = try StripeSupportRequest.subscriptionSegment(subscriptionID)
        return StripeHTTPRequest(
            method: "GET", url: URL(string: "https://api.stripe.com/v1/subscriptions/" + id)!,
            headers: ["Authorization": "Bearer \(secretKey)", "Stripe-Version": StripeAPI.version], body: "")
    }

    /// The subscription in Stripe's answer (its customer, its item).
    public static func subscription(statusCode: Int, body: some DataProtocol) throws(StripeAPIError) -> StripeSubscription {
        guard (200..<300).contains(statusCode) else { throw StripeAPIError(statusCode: statusCode, body: body) }
        guard let subscription = try? JSONDecoder().decode(StripeSubscription.self, from: Data(body)) else {
            throw StripeAPIError(type: "unexpected_response", message: "no subscription", statusCode: statusCode)
        }
        return subscription
    }

    /// `return_url` is where Stripe's "Return" link leads: the buyer's portal.
    public static func sessionRequest(
        secretKey: String, customerID: String, returnURL: String, idempotencyKey: String
    ) throws(StripeRequestError) -> StripeHTTPRequest {
        guard customerID.hasPrefix("cus_") else { throw StripeRequestError(field: "customer", reason: "must be a customer (cus_…)") }
        guard returnURL.hasPrefix("https://") || returnURL.hasPrefix("http://") else {
            throw StripeRequestError(field: "return_url", reason: "must be an http(s) URL")
        }
        return StripeHTTPRequest(
            method: "POST", url: URL(string: "https://api.stripe.com/v1/billing_portal/sessions")!,
            headers: [
                "Authorization": "Bearer \(secretKey)", "Stripe-Version": StripeAPI.version, "Idempotency-Key": idempotencyKey,
                "Content-Type": "application/x-www-form-urlencoded",
            ],
            body: StripeFormEncoding.encode([("customer", customerID), ("return_url", returnURL)]))
    }

    /// The session's URL (short-lived; the buyer is sent there at once).
    public static func sessionURL(statusCode: Int, body: some DataProtocol) throws(StripeAPIError) -> String {
        guard (200..<300).contains(statusCode) else { throw StripeAPIError(statusCode: statusCode, body: body) }
        guard let session = try? JSONDecoder().decode(PortalSession.self, from: Data(body)), session.url.hasPrefix("https://") else {
            throw StripeAPIError(type: "unexpected_response", message: "no portal url", statusCode: statusCode)
        }
        return session.url
    }

    struct PortalSession: Decodable { let url: String }
}

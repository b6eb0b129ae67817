import Foundation

/// `POST /v1/checkout/sessions` for one product with inline `price_data`.
///
/// `metadata` is set on the session and copied to `subscription_data[metadata]`
/// (subscriptions) or `payment_intent_data[metadata]` (one-time payments), so later
/// invoice, subscription and charge objects carry it too.
public struct StripeCheckoutRequest: Sendable, Hashable, CustomStringConvertible, CustomDebugStringConvertible {
    public enum Mode: Sendable, Hashable {
        case payment
        case subscription(StripeRecurringInterval)
    }

    public static let endpoint = URL(string: "https://api.stripe.com/v1/checkout/sessions")!

    /// `sk_…` or a restricted `rk_…` key.
    public var secretKey: String
    /// Same key, same request: Stripe returns the first result for 24 hours.
    public var idempotencyKey: String
    public var mode: Mode
    public var productName: String
    /// Minor units, e.g. 999 for 9.99 USD.
    public var unitAmount: Int
    /// ISO 4217, sent in lowercase.
    public var currency: String
    public var quantity: Int
    /// Strings, not `URL`s, so Stripe's `{CHECKOUT_SESSION_ID}` template survives intact.
    public var successURL: String
    public var cancelURL: String
    public var customerEmail: String?
    public var clientReferenceID: String?
    public var metadata: [String: String]
    /// Stripe Tax: `automatic_tax[enabled]` and a required billing address (tax depends on where the buyer is).
    public var automaticTax = false
    /// Stripe Checkout's "Add promotion code" field, for the account's Stripe promotion codes.
    public var allowPromotionCodes = false
    /// A Stripe Price made for this price (`line_items[0][price]`); nil sends `price_data` inline.
    public var priceID: String? = nil
    /// Subscriptions only: `subscription_data[trial_period_days]`, a free trial before the first charge.
    public var trialPeriodDays: Int? = nil
    /// `custom_text[submit][message]`: text above the pay button (Stripe renders Markdown's bold and links).
    public var submitMessage: String? = nil
    /// `consent_collection[terms_of_service]: required` with `custom_text[terms_of_service_acceptance][message]`: the
    /// buyer ticks a box agreeing to the terms this text names (Markdown links) before paying.
    public var termsAcceptanceMessage: String? = nil
    /// Stripe Managed Payments (`managed_payments[enabled]`): Stripe is the merchant of record and manages the tax, so
    /// `automaticTax` is not sent with it; the request goes at `StripeAPI.managedPaymentsVersion`.
    public var managedPayments = false
    /// The product's tax code (`line_items[0][price_data][product_data][tax_code]`), with inline `price_data` only: a
    /// named Stripe Price has its product's.
    public var taxCode: String? = nil

    public init(
        secretKey: String, idempotencyKey: String, mode: Mode, productName: String,
        unitAmount: Int, currency: String, quantity: Int = 1, successURL: String, cancelURL: String,
        customerEmail: String? = nil, clientReferenceID: String? = nil, metadata: [String: String] = [:]
    ) {
        self.secretKey = secretKey
        self.idempotencyKey = idempotencyKey
        self.mode = mode
        self.productName = productName
        self.unitAmount = unitAmount
        self.currency = currency
        self.quantity = quantity
        self.successURL = successURL
        self.cancelURL = cancelURL
        self.customerEmail = customerEmail
        self.clientReferenceID = clientReferenceID
        self.metadata = metadata
    }

    /// Without the secret key, so requests can be logged.
    public var description: String {
        "StripeCheckoutRequest(\(mode), \(productName), \(unitAmount) \(currency), idempotencyKey: \(idempotencyKey))"
    }
    public var debugDescription: String { description }

    /// Validates and builds the request.
    public func httpRequest() throws(StripeRequestError) -> StripeHTTPRequest {
        try validate()
        return StripeHTTPRequest(
            method: "POST",
            url: Self.endpoint,
            headers: [
                "Authorization": "Bearer \(secretKey)",
                "Stripe-Version": managedPayments ? StripeAPI.managedPaymentsVersion : StripeAPI.version,
                "Idempotency-Key": idempotencyKey,
                "Content-Type": "application/x-www-form-urlencoded",
            ],
            body: StripeFormEncoding.encode(formFields)
        )
    }

    /// The body's fields in order, keys in Stripe's bracket notation, not yet escaped.
    public var formFields: [(key: String, value: String)] {
        let item = "line_items[0]"
        var fields: [(key: String, value: String)] = []
        switch mode {
        case .payment: fields.append(("mode", "payment"))
        case .subscription: fields.append(("mode", "subscription"))
        }
        if let priceID {
            fields.append(("\(item)[price]", priceID))
        } else {
            fields += [
                ("\(item)[price_data][currency]", currency.lowercased()),
                ("\(item)[price_data][product_data][name]", productName),
                ("\(item)[price_data][unit_amount]", String(unitAmount)),
            ]
            if let taxCode { fields.append(("\(item)[price_data][product_data][tax_code]", taxCode)) }
        }
        if priceID == nil, case .subscription(let interval) = mode {
            fields += [
                ("\(item)[price_data][recurring][interval]", interval.unit.rawValue),
                ("\(item)[price_data][recurring][interval_count]", String(interval.count)),
            ]
        }
        fields += [("\(item)[quantity]", String(quantity)), ("success_url", successURL), ("cancel_url", cancelURL)]
        if let customerEmail { fields.append(("customer_email", customerEmail)) }
        if let clientReferenceID { fields.append(("client_reference_id", clientReferenceID)) }
        if managedPayments {
            fields.append(("managed_payments[enabled]", "true"))
        } else if automaticTax {
            fields += [("automatic_tax[enabled]", "true"), ("billing_address_collection", "required")]
        }
        if allowPromotionCodes { fields.append(("allow_promotion_codes", "true")) }
        if case .subscription = mode, let trialPeriodDays { fields.append(("subscription_data[trial_period_days]", String(trialPeriodDays))) }
        if let submitMessage { fields.append(("custom_text[submit][message]", submitMessage)) }
        if let termsAcceptanceMessage {
            fields += [
                ("consent_collection[terms_of_service]", "required"), ("custom_text[terms_of_service_acceptance][message]", termsAcceptanceMessage),
            ]
        }
        let copyTo =
            switch mode {
            case .payment: "payment_intent_data[metadata]"
            case .subscription: "subscription_data[metadata]"
            }
        let sorted = metadata.sorted { $0.key < $1.key }
        for prefix in ["metadata", copyTo] {
            fields += sorted.map { ("\(prefix)[\($0.key)]", $0.value) }
        }
        return fields
    }

    private func validate() throws(StripeRequestError) {
        func check(_ ok: Bool, _ field: String, _ reason: String) throws(StripeRequestError) {
            if !ok { throw StripeRequestError(field: field, reason: reason) }
        }
        try check(secretKey.hasPrefix("sk_") || secretKey.hasPrefix("rk_"), "secretKey", "must be an sk_ or rk_ key")
        try check(!idempotencyKey.isEmpty && idempotencyKey.count <= 255, "idempotencyKey", "must be 1 to 255 characters")
        try check(!productName.isEmpty, "productName", "must not be empty")
        try check(unitAmount >= 0, "unitAmount", "must not be negative")
        try check(quantity >= 1, "quantity", "must be at least 1")
        try check(priceID.map { $0.hasPrefix("price_") && $0.count <= 255 } ?? true, "priceID", "must be a Stripe Price ID (price_…)")
        try check(trialPeriodDays.map { (1...730).contains($0) } ?? true, "trialPeriodDays", "must be between 1 and 730 days")
        try check(!managedPayments || taxCode != nil, "managedPayments", "needs the product's tax code")
        try check(submitMessage.map { !$0.isEmpty && $0.count <= 1200 } ?? true, "submitMessage", "must be 1 to 1200 characters")
        try check(
            termsAcceptanceMessage.map { !$0.isEmpty && $0.count <= 1200 } ?? true, "termsAcceptanceMessage", "must be 1 to 1200 characters")
        try check(currency.count == 3 && currency.allSatisfy { $0.isASCII && $0.isLetter }, "currency", "must be an ISO 4217 code")
        for (field, url) in [("successURL", successURL), ("cancelURL", cancelURL)] {
            try check(url.hasPrefix("https://") || url.hasPrefix("http://"), field, "must be an http(s) URL")
        }
        try check((clientReferenceID?.count ?? 0) <= 200, "clientReferenceID", "must be at most 200 characters")
        try check(metadata.count <= 50, "metadata", "at most 50 keys")
        for (key, value) in metadata {
            try check(
                !key.isEmpty && key.count <= 40 && !key.contains("[") && !key.contains("]"),
                "metadata", "keys must be 1 to 40 characters without square brackets")
            try check(value.count <= 500, "metadata[\(key)]", "must be at most 500 characters")
        }
    }
}

import Foundation

/// `POST /v1/prices`: a Stripe Price for one of a product's prices, so Checkout Sessions can name it by ID. Stripe
/// Prices cannot change their amount: a changed price gets a new one. `product_data[name]` makes its Stripe Product.
public struct StripePriceRequest: Sendable, Hashable {
    public static let endpoint = URL(string: "https://api.stripe.com/v1/prices")!

    public var secretKey: String
    public var idempotencyKey: String
    public var productName: String
    /// Stripe's integer amount (`Price.stripeAmount()`).
    public var unitAmount: Int
    /// ISO 4217, sent in lowercase.
    public var currency: String
    /// Subscriptions only: `recurring[interval]` and `recurring[interval_count]`.
    public var recurring: StripeRecurringInterval?
    /// Kept on the Price, so the Stripe Dashboard shows whose price it is.
    public var metadata: [String: String]
    /// The product's tax code (`product_data[tax_code]`), for Stripe Tax and Managed Payments.
    public var taxCode: String? = nil

    public init(
        secretKey: String, idempotencyKey: String, productName: String, unitAmount: Int, currency: String,
        recurring: StripeRecurringInterval?, metadata: [String: String] = [:]
    ) {
        self.secretKey = secretKey
        self.idempotencyKey = idempotencyKey
        self.productName = productName
        self.unitAmount = unitAmount
        self.currency = currency
        self.recurring = recurring
        self.metadata = metadata
    }

    public var formFields: [(key: String, value: String)] {
        var fields: [(key: String, value: String)] = [
            ("currency", currency.lowercased()), ("unit_amount", String(unitAmount)), ("product_data[name]", productName),
        ]
        if let taxCode { fields.append(("product_data[tax_code]", taxCode)) }
        if let recurring {
            fields += [("recurring[interval]", recurring.unit.rawValue), ("recurring[interval_count]", String(recurring.count))]
        }
        fields += metadata.sorted { $0.key < $1.key }.map { ("metadata[\($0.key)]", $0.value) }
        return fields
    }

    public func httpRequest() throws(StripeRequestError) -> StripeHTTPRequest {
        guard secretKey.hasPrefix("sk_") || secretKey.hasPrefix("rk_") else {
            throw StripeRequestError(field: "secretKey", reason: "must be an sk_ or rk_ key")
        }
        guard unitAmount >= 0 else { throw StripeRequestError(field: "unitAmount", reason: "must not be negative") }
        guard currency.count == 3, currency.allSatisfy({ $0.isASCII && $0.isLetter }) else {
            throw StripeRequestError(field: "currency", reason: "must be an ISO 4217 code")
        }
        guard !productName.isEmpty else { throw StripeRequestError(field: "productName", reason: "must not be empty") }
        return StripeHTTPRequest(
            method: "POST", url: Self.endpoint,
            headers: [
                "Authorization": "Bearer \(secretKey)", "Stripe-Version": StripeAPI.version, "Idempotency-Key": idempotencyKey,
                "Content-Type": "application/x-www-form-urlencoded",
            ],
            body: StripeFormEncoding.encode(formFields))
    }

    /// The created Price's ID from a 2xx response, else the Stripe error.
    public static func decodeResponse(statusCode: Int, body: some DataProtocol) throws(StripeAPIError) -> String {
        guard (200..<300).contains(statusCode) else { throw StripeAPIError(statusCode: statusCode, body: body) }
        guard let created = try? JSONDecoder().decode(CreatedPrice.self, from: Data(body)), created.id.hasPrefix("price_") else {
            throw StripeAPIError(type: "unexpected_response", message: "no price id", statusCode: statusCode)
        }
        return created.id
    }
}

private struct CreatedPrice: Decodable { let id: String }

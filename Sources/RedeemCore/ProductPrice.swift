import Foundation

/// One of a product's prices: one per currency, one of them the default (the product's `price`, what a buyer pays
/// when nothing picks another currency). `stripePriceID` is the Stripe Price made for it, when Stripe is configured.
public struct ProductPrice: Codable, Hashable, Sendable {
    public var appID: String
    public var productID: String
    public var price: Price
    public var isDefault: Bool
    public var stripePriceID: String?

    public init(appID: String, productID: String, price: Price, isDefault: Bool, stripePriceID: String? = nil) {
        self.appID = appID
        self.productID = productID
        self.price = price
        self.isDefault = isDefault
        self.stripePriceID = stripePriceID
    }

    public var currency: String { price.currency }

    enum CodingKeys: String, CodingKey {
        case price
        case appID = "app_id"
        case productID = "product_id"
        case isDefault = "is_default"
        case stripePriceID = "stripe_price_id"
    }
}

/// What a product sells for on the web: its prices (the default first) and its free trial, if any.
public struct ProductBilling: Hashable, Sendable {
    public var prices: [ProductPrice]
    /// Days of free trial a first-time buyer of this subscription gets; nil for none.
    public var trialDays: Int?

    public init(prices: [ProductPrice], trialDays: Int? = nil) {
        self.prices = prices.sorted { ($0.isDefault ? 0 : 1, $0.currency) < ($1.isDefault ? 0 : 1, $1.currency) }
        self.trialDays = trialDays
    }

    public var defaultPrice: ProductPrice? { prices.first { $0.isDefault } ?? prices.first }
    public var currencies: [String] { prices.map(\.currency) }
    public func price(in currency: String) -> ProductPrice? { prices.first { $0.currency == currency } }
}

/// The rules for adding or changing a price and a trial.
public enum ProductPriceRules {
    public static let maxTrialDays = 365

    /// A new or changed price must be an ISO 4217 amount Stripe can charge (refused here, not when a buyer opens the link).
    public static func validate(amount text: String, currency rawCurrency: String) throws(ValidationError) -> Price {
        let currency = rawCurrency.trimmingCharacters(in: .whitespaces).uppercased()
        let price = try Price(text: text, currency: currency, field: "price")
        try price.validateChargeable(field: "price")
        return price
    }

    /// Trials are for subscriptions only, 1–365 days; nil or 0 removes it.
    public static func validateTrial(days: Int?, product: Product) throws(ValidationError) -> Int? {
        guard let days, days != 0 else { return nil }
        guard product.type == .subscription else {
            throw ValidationError(field: "trial_days", reason: "only subscriptions have a free trial")
        }
        guard (1...maxTrialDays).contains(days) else {
            throw ValidationError(field: "trial_days", reason: "must be between 1 and \(maxTrialDays) days (0 for no trial)")
        }
        return days
    }

    /// The default price cannot be removed while others remain without choosing another default, nor the last one
    /// of a product that is sold on the web: remove it by clearing the product's price instead.
    public static func removal(of currency: String, from billing: ProductBilling) -> String? {
        guard let price = billing.price(in: currency) else { return "the product has no \(currency) price" }
        if price.isDefault { return "\(currency) is the default price; make another currency the default first" }
        return nil
    }
}

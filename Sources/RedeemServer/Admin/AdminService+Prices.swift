import Foundation
import RedeemCore
import RedeemStore

/// The store calls behind a product's prices and trial (admin API, CLI, console).
public protocol ProductPricingStore: Sendable {
    func productBilling(appID: String, productID: String) async throws -> ProductBilling
    func setProductPrice(
        appID: String, productID: String, price: Price, makeDefault: Bool, now: Date, audit: AuditEntry?
    ) async throws -> ProductBilling
    func removeProductPrice(appID: String, productID: String, currency: String, audit: AuditEntry?) async throws -> ProductBilling
    func setTrialDays(appID: String, productID: String, days: Int?, audit: AuditEntry?) async throws -> ProductBilling
}

/// A product's prices per currency and its free trial, validated by Core's `ProductPriceRules`, each change audited.
extension AdminService {
    var pricingStore: any ProductPricingStore {
        get throws {
            guard let store = store as? any ProductPricingStore else { throw APIError(.internalError, "This store keeps no prices.") }
            return store
        }
    }

    public func productBilling(appID: String, productID: String) async throws -> ProductBilling {
        _ = try await store.product(appID: appID, id: productID)
        return try await pricingStore.productBilling(appID: appID, productID: productID)
    }

    /// Adds or changes the price in `currency` (any case); `makeDefault` makes it the product's `price`.
    public func setProductPrice(appID: String, productID: String, currency: String, amount: String, makeDefault: Bool) async throws -> ProductBilling
    {
        let product = try await store.product(appID: appID, id: productID)
        let price = try ProductPriceRules.validate(amount: amount, currency: currency)
        let detail = "\(price.plainAmount) \(price.currency)" + (makeDefault ? " (default)" : "")
        return try await pricingStore.setProductPrice(
            appID: appID, productID: product.id, price: price, makeDefault: makeDefault, now: clock.now(),
            audit: try audit("product.price.set", "product", product.id, appID: appID, detail: detail))
    }

    public func removeProductPrice(appID: String, productID: String, currency rawCurrency: String) async throws -> ProductBilling {
        let currency = rawCurrency.uppercased()
        let billing = try await productBilling(appID: appID, productID: productID)
        if let refusal = ProductPriceRules.removal(of: currency, from: billing) {
            if billing.price(in: currency) == nil { throw StoreError.notFound("\(currency) price of product '\(productID)'") }
            throw ValidationError(field: "currency", reason: refusal)
        }
        return try await pricingStore.removeProductPrice(
            appID: appID, productID: productID, currency: currency,
            audit: try audit("product.price.remove", "product", productID, appID: appID, detail: currency))
    }

    /// 1–365 days for a subscription; 0 or nil removes the trial.
    public func setProductTrial(appID: String, productID: String, days: Int?) async throws -> ProductBilling {
        let product = try await store.product(appID: appID, id: productID)
        let trial = try ProductPriceRules.validateTrial(days: days, product: product)
        return try await pricingStore.setTrialDays(
            appID: appID, productID: productID, days: trial,
            audit: try audit("product.trial.set", "product", productID, appID: appID, detail: trial.map { "\($0) days" } ?? "none"))
    }
}

/// A product's prices and trial as the admin API and the CLI's `--json` show them.
public struct ProductPricingView: Codable, Hashable, Sendable {
    public struct Row: Codable, Hashable, Sendable {
        public let currency: String
        public let amount: String
        public let isDefault: Bool
        public let stripePriceID: String?

        enum CodingKeys: String, CodingKey {
            case currency, amount
            case isDefault = "is_default"
            case stripePriceID = "stripe_price_id"
        }
    }

    public let productID: String
    public let trialDays: Int?
    public let prices: [Row]

    public init(productID: String, _ billing: ProductBilling) {
        self.productID = productID
        self.trialDays = billing.trialDays
        self.prices = billing.prices.map {
            Row(currency: $0.currency, amount: $0.price.plainAmount, isDefault: $0.isDefault, stripePriceID: $0.stripePriceID)
        }
    }

    enum CodingKeys: String, CodingKey {
        case prices
        case productID = "product_id"
        case trialDays = "trial_days"
    }
}

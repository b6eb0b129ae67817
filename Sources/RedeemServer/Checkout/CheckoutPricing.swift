import Foundation
import RedeemCore

/// The price a purchase link sells at (Core's `ProductPriceChoice`), the product's other currencies, and the trial a
/// product offers (whether this buyer gets it is decided at payment, from their e-mail address too).
struct LinkPricing: Sendable {
    let chosen: ProductPrice
    let others: [ProductPrice]
    let trialDays: Int?
}

/// `?currency=` named a currency the product has no price in: the buyer gets a page listing those it has.
struct CurrencyUnavailable: Error {
    let app: App
    let product: Product
    let requested: String
    let available: [ProductPrice]
}

/// `checkout-currency`: the product's currencies as links, after an unknown `?currency=`.
struct CurrencyChoicePage: PageModel {
    let productName: String
    let requested: String
    let choices: [CurrencyLink]
}

/// A price in another currency, as a link to the same checkout in it.
struct CurrencyLink: Sendable {
    let currency: String
    let price: String
    let url: String
}

extension CheckoutPricing {
    /// The same link in each of `prices`' currencies: the query kept, `currency` replaced.
    static func links(_ prices: [ProductPrice], path: String, query: [(String, String)], product: Product, format: BuyerFormat) -> [CurrencyLink] {
        prices.map { price in
            var priced = product
            priced.price = price.price
            let kept = query.filter { $0.0 != "currency" } + [("currency", price.currency)]
            let encoded = kept.map { "\(CheckoutPages.encode($0.0))=\(CheckoutPages.encode($0.1))" }.joined(separator: "&")
            return CurrencyLink(currency: price.currency, price: format.product(priced), url: path + "?" + encoded)
        }
    }
}

/// The checkout's pricing decisions, for the purchase-link and sandbox services.
enum CheckoutPricing {
    /// Chooses the link's price, or throws `CurrencyUnavailable`; a product without prices sells as before (nil).
    static func choose(
        app: App, product: Product, billing: ProductBilling, requested: String?, acceptLanguage: String?
    ) throws -> LinkPricing? {
        switch ProductPriceChoice.choose(billing: billing, requested: requested, acceptLanguage: acceptLanguage) {
        case .none: return nil
        case .unavailable(let requested, _):
            throw CurrencyUnavailable(app: app, product: product, requested: requested, available: billing.prices)
        case .chosen(let price, _):
            return LinkPricing(chosen: price, others: billing.prices.filter { $0.currency != price.currency }, trialDays: billing.trialDays)
        }
    }

    /// The buyer's trial: the product's, unless this customer or address bought it before (Core's `TrialRules`).
    static func trial(_ decision: TrialRules.Decision) -> Int? {
        if case .trial(let days) = decision { return days }
        return nil
    }
}

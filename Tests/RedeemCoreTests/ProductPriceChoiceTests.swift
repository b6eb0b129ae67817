import Foundation
import RedeemCore
import Testing

/// The buyer's price: `?currency=` first, then the browser's regions, then the default; never a silent substitute.
@Suite struct ProductPriceChoiceTests {
    static func billing(_ prices: [(String, String)], defaultCurrency: String = "USD") throws -> ProductBilling {
        ProductBilling(
            prices: try prices.map { currency, amount in
                ProductPrice(
                    appID: "app", productID: "monthly", price: try Price(text: amount, currency: currency), isDefault: currency == defaultCurrency)
            })
    }

    @Test func theRequestedCurrencyWinsInAnyCase() throws {
        let billing = try Self.billing([("USD", "4.99"), ("EUR", "4.49"), ("JPY", "700")])
        guard case .chosen(let price, .requested) = ProductPriceChoice.choose(billing: billing, requested: "eur", acceptLanguage: "ja-JP") else {
            Issue.record("not chosen")
            return
        }
        #expect(price.price == (try Price(text: "4.49", currency: "EUR")))
    }

    @Test func anUnknownRequestedCurrencyIsRefusedWithTheAvailableOnes() throws {
        let billing = try Self.billing([("USD", "4.99"), ("EUR", "4.49")])
        #expect(
            ProductPriceChoice.choose(billing: billing, requested: "GBP", acceptLanguage: nil)
                == .unavailable(requested: "GBP", available: ["USD", "EUR"]))
        #expect(
            ProductPriceChoice.choose(billing: billing, requested: "<script>", acceptLanguage: nil)
                == .unavailable(requested: "<SC", available: ["USD", "EUR"]))
    }

    @Test(arguments: [
        ("de-DE,de;q=0.9,en;q=0.8", "EUR", ProductPriceChoice.Reason.region),
        ("ja-JP", "JPY", .region),
        ("en-GB", "USD", .defaultPrice),  // no GBP price: the default
        ("de", "USD", .defaultPrice),  // a language without a region names no currency
        ("fr-CH, fr-FR;q=0.5", "EUR", .region),  // CHF is not offered: the next region's
        ("en-US;q=0.2, ja-JP;q=0.9", "JPY", .region),  // by weight, not order
        ("", "USD", .defaultPrice),
    ])
    func theBrowsersRegionPicksAmongThePrices(_ header: String, _ expected: String, _ reason: ProductPriceChoice.Reason) throws {
        let billing = try Self.billing([("USD", "4.99"), ("EUR", "4.49"), ("JPY", "700")])
        guard case .chosen(let price, let why) = ProductPriceChoice.choose(billing: billing, requested: nil, acceptLanguage: header) else {
            Issue.record("not chosen")
            return
        }
        #expect(price.currency == expected)
        #expect(why == reason)
    }

    @Test func noPricesChooseNothing() {
        #expect(ProductPriceChoice.choose(billing: ProductBilling(prices: []), requested: "USD", acceptLanguage: nil) == .none)
    }

    @Test func regionsMapToTheirCurrencies() {
        #expect(Currency.forRegion("DE") == "EUR" && Currency.forRegion("at") == "EUR")
        #expect(Currency.forRegion("JP") == "JPY" && Currency.forRegion("CH") == "CHF" && Currency.forRegion("US") == "USD")
        #expect(Currency.forRegion("419") == nil && Currency.forRegion("ZZ") == nil)
        #expect(ProductPriceChoice.regions(acceptLanguage: "zh-Hant-TW, es-419;q=0.5, en") == ["TW"])
    }

    @Test func pricesAreValidatedAsStripeChargesThem() throws {
        #expect(try ProductPriceRules.validate(amount: "700", currency: "jpy") == Price(amountMicros: 700_000_000, currency: "JPY"))
        #expect(throws: ValidationError.self) { try ProductPriceRules.validate(amount: "700.5", currency: "JPY") }
        #expect(throws: ValidationError.self) { try ProductPriceRules.validate(amount: "1.255", currency: "KWD") }
        #expect(throws: ValidationError.self) { try ProductPriceRules.validate(amount: "4.99", currency: "XXX") }
    }
}

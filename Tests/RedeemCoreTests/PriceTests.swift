import Foundation
import RedeemCore
import Testing

/// Money is exact in every currency class: ISO 4217's decimals for prices and text, Stripe's own units (which differ
/// for MGA and ISK) for what is charged, and a round trip through Stripe's integers gives back the same price.
@Suite struct PriceTests {
    /// (currency, price as typed, Stripe's integer amount): two-decimal, zero-decimal, three-decimal, and Stripe's
    /// special cases (HUF and TWD charge two decimals; ISK is charged ×100 in whole krónur; UGX and MGA are zero-decimal).
    static let classes: [(String, String, Int)] = [
        ("USD", "4.99", 499), ("EUR", "0.50", 50), ("JPY", "500", 500), ("KRW", "1000", 1000), ("KWD", "1.250", 1250),
        ("BHD", "0.990", 990), ("HUF", "1990.50", 199_050), ("TWD", "150.25", 15025), ("ISK", "500", 50000), ("UGX", "5000", 5000),
        ("MGA", "2000", 2000),
    ]

    @Test(arguments: classes)
    func stripeAmountsRoundTrip(_ currency: String, _ typed: String, _ stripe: Int) throws {
        let price = try Price(text: typed, currency: currency)
        #expect(try price.stripeAmount() == stripe)
        #expect(try Price(stripeAmount: stripe, currency: currency.lowercased()) == price)
        #expect(price.stripeRefusal == nil)
    }

    @Test func theDecimalsAreTheCurrencysOwn() throws {
        #expect(try Price(text: "500", currency: "JPY").plainAmount == "500")
        #expect(try Price(text: "1.25", currency: "KWD").plainAmount == "1.250")
        #expect(try Price(text: "4.9", currency: "USD").plainAmount == "4.90")
        #expect(try Price(text: "1.2345", currency: "CLF").plainAmount == "1.2345")
        // A day of refunds: negative amounts keep their sign and digits (this once trapped).
        #expect(Price(amountMicros: -4_990_000, currency: "USD").plainAmount == "-4.99")
        #expect(Price(amountMicros: -500_000_000, currency: "JPY").plainAmount == "-500")
        #expect(Price(amountMicros: -50_000, currency: "USD").plainAmount == "-0.05")
        #expect(Price(amountMicros: .min, currency: "USD").plainAmount.hasPrefix("-9223372036854."))
        #expect(try Price(text: "500", currency: "JPY").amountMicros == 500_000_000)
        #expect(try Price(text: "500", currency: "JPY").amount == 500)
        #expect(try Price(text: "1.25", currency: "KWD").amount == 1.25)
    }

    @Test func finerAmountsThanTheCurrencyHasAreRefused() {
        #expect(throws: ValidationError(field: "price.amount", reason: "JPY amounts have no decimals")) {
            try Price(text: "500.5", currency: "JPY")
        }
        #expect(throws: ValidationError(field: "price.amount", reason: "USD amounts have 2 decimals")) {
            try Price(text: "4.999", currency: "USD")
        }
        #expect(throws: ValidationError(field: "price.amount", reason: "ISK amounts have no decimals")) {
            try Price(text: "10.50", currency: "ISK")
        }
        #expect(throws: ValidationError(field: "price.amount", reason: "KWD amounts have 3 decimals")) {
            try Price(text: "1.2345", currency: "KWD")
        }
    }

    @Test func badTextAndUnknownCurrenciesAreRefusedNamingTheField() {
        #expect(throws: ValidationError(field: "price.currency", reason: "'XYZ' is not an ISO 4217 currency code such as USD")) {
            try Price(text: "1", currency: "XYZ")
        }
        #expect(throws: ValidationError(field: "price.currency", reason: "'usd' is not an ISO 4217 currency code such as USD")) {
            try Price(text: "1", currency: "usd")
        }
        for text in ["", "4,99", "-1", "1e3", "abc", "4.99.1"] {
            #expect(throws: ValidationError.self, "\(text)") { try Price(text: text, currency: "USD") }
        }
        #expect(throws: ValidationError(field: "offer.price.amount", reason: "must be between 0 and 999,999,999")) {
            try Price(amount: 1_000_000_000, currency: "USD", field: "offer.price")
        }
    }

    /// What Stripe cannot charge is refused where a product or offer is priced, naming the field.
    @Test func whatStripeCannotChargeIsRefused() {
        #expect(throws: ValidationError(field: "price.amount", reason: "Stripe charges KWD in steps of 0.010 KWD")) {
            try Price(text: "1.255", currency: "KWD").validateChargeable()
        }
        #expect(throws: ValidationError(field: "price.amount", reason: "Stripe charges MGA in steps of 1.00 MGA")) {
            try Price(text: "1.50", currency: "MGA").validateChargeable()
        }
        #expect(throws: ValidationError(field: "price.currency", reason: "Stripe cannot charge IRR")) {
            try Price(text: "1", currency: "IRR").validateChargeable()
        }
        #expect(throws: MoneyError("Stripe charges KWD in steps of 0.010 KWD")) { try Price(text: "1.255", currency: "KWD").stripeAmount() }
        // Stored before currencies were checked: refused at checkout, never charged as some other amount.
        #expect(throws: MoneyError("'ABC' is not an ISO 4217 currency code")) { try Price(amountMicros: 1_000_000, currency: "ABC").stripeAmount() }
    }

    @Test func whatStripeReportsIsReadExactlyOrRefused() throws {
        #expect(try Price(stripeAmount: 0, currency: "usd") == Price(amountMicros: 0, currency: "USD"))
        #expect(throws: MoneyError("Stripe reported an amount in an unknown currency 'xyz'")) { try Price(stripeAmount: 100, currency: "xyz") }
        #expect(throws: MoneyError("Stripe reported a negative amount")) { try Price(stripeAmount: -1, currency: "usd") }
        #expect(throws: MoneyError("Stripe reported an amount too large to hold")) { try Price(stripeAmount: Int.max, currency: "jpy") }
    }

    /// A pay-as-you-go offer is charged for all its periods at once; the total must be chargeable too.
    @Test func anOffersChargeIsItsPriceTimesItsPeriods() throws {
        let product = Product(appID: "a", id: "m", type: .subscription, period: "P1M", displayName: nil, entitlements: [], createdAt: Date())
        let offer = Offer(
            id: "o", appID: "a", productID: "m", referenceName: "r", paymentMode: .payAsYouGo, duration: .oneMonth, periods: 3,
            price: try Price(text: "1.99", currency: "USD"), eligibility: .new, createdAt: Date())
        #expect(offer.charge == (try Price(text: "5.97", currency: "USD")))
        try offer.validate(for: product)
    }
}

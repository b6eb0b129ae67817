import RedeemCore

/// Prices as buyers and operators read them, exact from micros and without locale surprises.
public enum PriceFormat {
    /// `4.99 USD`, `500 JPY`, `1.250 KWD`: the currency's own decimals.
    public static func string(_ price: Price) -> String { price.plainAmount + " " + price.currency }

    /// What a product costs: `4.99 USD per month`, `9.99 USD every 3 months`, `49.99 USD`, or `no price`.
    public static func product(_ product: Product) -> String {
        guard let price = product.price else { return "no price" }
        guard let text = product.period, let period = try? ISO8601Period(parsing: text) else { return string(price) }
        let single =
            [period.years, period.months, period.weeks, period.days].filter { $0 > 0 }.count == 1
            && [period.years, period.months, period.weeks, period.days].contains(1)
        return string(price) + (single ? " per " : " every ") + OfferSummary.words(period, unitOnly: true)
    }
}

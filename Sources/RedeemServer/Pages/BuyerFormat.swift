import Foundation
import RedeemCore

/// Prices, periods and dates as a buyer reads them, and the buyer's words: currency symbols and periods in words
/// ("$4.99 / month"), dates in words ("November 23, 2026"), numbers, currencies and dates in the buyer's locale, and
/// the texts of the first of the browser's languages Redeem speaks (`Accept-Language`). Operators' pages keep
/// `PriceFormat`'s exact "4.99 USD".
struct BuyerFormat: Sendable {
    let locale: Locale
    let texts: BuyerTexts

    static let english = BuyerFormat(locale: Locale(identifier: "en_US"), texts: BuyerLanguages.bundled.english)
    /// The locales Foundation knows, read once (each page would otherwise scan the list).
    static let known = Set(Locale.availableIdentifiers)

    /// Words in the page's language (`BuyerTexts.requested`: a link's `?lang=`, or the first of `Accept-Language`
    /// Redeem speaks); numbers in the first language of `Accept-Language` that names a region or a language Foundation
    /// knows (English otherwise), unless a link named another language, whose own numbers then go with its words.
    init(acceptLanguage: String?, languages: BuyerLanguages = .bundled) {
        let browsers = languages.choose(acceptLanguage: acceptLanguage)
        texts = BuyerTexts.requested ?? browsers
        let named = texts.language != browsers.language ? texts.language : nil
        let identifier = (named.map { [$0] } ?? AcceptLanguage.tags(acceptLanguage)).first.map {
            Locale(components: Locale.Components(identifier: $0.replacingOccurrences(of: "-", with: "_"))).identifier
        }
        if let identifier, Self.known.contains(identifier) || Self.known.contains(String(identifier.prefix(2))) {
            self.locale = Locale(identifier: identifier)
        } else {
            self.locale = Self.english.locale
        }
    }

    init(locale: Locale, texts: BuyerTexts) {
        self.locale = locale
        self.texts = texts
    }

    /// `$4.99`, `4,99 $` (de-DE), `¥500`, `KWD 1.250`: exact, with the currency's own decimals (ISO 4217's, which
    /// the `Price` knows, not the formatter's guess).
    func price(_ price: Price) -> String {
        price.decimalAmount.formatted(.currency(code: price.currency).locale(locale).precision(.fractionLength(price.decimals)))
    }

    /// What a product costs: `$4.99 / month`, `$9.99 every 3 months`, `$49.99`, or `Free`.
    func product(_ product: Product) -> String {
        guard let price = product.price else { return texts["price.free"] }
        guard let text = product.period, let period = try? ISO8601Period(parsing: text) else { return self.price(price) }
        if let unit = singleUnit(period) { return texts.format("price.per", ["price": self.price(price), "unit": texts["per.\(unit)"]]) }
        return texts.format("price.every", ["price": self.price(price), "period": words(period)])
    }

    /// "3 days", "1 week", "6 months", "1 year 6 months".
    func words(_ period: ISO8601Period) -> String {
        Self.parts(period).map { texts.count($0.count, "unit.\($0.unit)") }.joined(separator: " ")
    }

    /// The unit of a period of one (`month` of P1M), which reads "a month", "/ month"; nil for any other.
    func singleUnit(_ period: ISO8601Period) -> String? {
        let parts = Self.parts(period)
        return parts.count == 1 && parts[0].count == 1 ? parts[0].unit : nil
    }

    /// A period's non-zero counts, largest unit first, each with its unit's key (`month`).
    private static func parts(_ period: ISO8601Period) -> [(count: Int, unit: String)] {
        [(period.years, "year"), (period.months, "month"), (period.weeks, "week"), (period.days, "day")].filter { $0.0 > 0 }
    }

    /// `November 23, 2026`, `23. November 2026` (de-DE); UTC, so a date reads the same on every server.
    func day(_ date: Date) -> String {
        var style = Date.FormatStyle(date: .long, time: .omitted, locale: locale)
        style.timeZone = TimeZone(identifier: "UTC")!
        return date.formatted(style)
    }
}

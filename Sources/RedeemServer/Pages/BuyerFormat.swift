import Foundation
import RedeemCore

/// Prices, periods and dates as a buyer reads them: currency symbols and periods in words ("$4.99 / month"), dates in
/// words ("November 23, 2026"), with numbers, currencies and dates in the buyer's locale (the browser's
/// `Accept-Language`; English words). Operators' pages keep `PriceFormat`'s exact "4.99 USD".
struct BuyerFormat: Sendable {
    let locale: Locale

    static let english = BuyerFormat(locale: Locale(identifier: "en_US"))
    /// The locales Foundation knows, read once (each page would otherwise scan the list).
    static let known = Set(Locale.availableIdentifiers)

    /// The first language of `Accept-Language` that names a region or a language Foundation knows; English otherwise.
    init(acceptLanguage: String?) {
        let tags = (acceptLanguage ?? "").split(separator: ",").compactMap { part -> (tag: String, weight: Double)? in
            let pieces = part.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }
            guard let tag = pieces.first, !tag.isEmpty, tag != "*", tag.count <= 35,
                tag.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-") })
            else { return nil }
            let weight = pieces.dropFirst().first { $0.hasPrefix("q=") }.flatMap { Double($0.dropFirst(2)) } ?? 1
            return (tag, weight)
        }
        let best = tags.filter { $0.weight > 0 }.sorted { $0.weight > $1.weight }.first?.tag
        let identifier = best.map { Locale(components: Locale.Components(identifier: $0.replacingOccurrences(of: "-", with: "_"))).identifier }
        if let identifier, Self.known.contains(identifier) || Self.known.contains(String(identifier.prefix(2))) {
            self.locale = Locale(identifier: identifier)
        } else {
            self.locale = Self.english.locale
        }
    }

    init(locale: Locale) { self.locale = locale }

    /// `$4.99`, `4,99 $` (de-DE), `¥500`, `KWD 1.250`: exact, with the currency's own decimals (ISO 4217's, which
    /// the `Price` knows, not the formatter's guess).
    func price(_ price: Price) -> String {
        price.decimalAmount.formatted(.currency(code: price.currency).locale(locale).precision(.fractionLength(price.decimals)))
    }

    /// What a product costs: `$4.99 / month`, `$9.99 every 3 months`, `$49.99`, or `Free`.
    func product(_ product: Product) -> String {
        guard let price = product.price else { return "Free" }
        guard let text = product.period, let period = try? ISO8601Period(parsing: text) else { return self.price(price) }
        let counts = [period.years, period.months, period.weeks, period.days].filter { $0 > 0 }
        if counts == [1] { return self.price(price) + " / " + OfferSummary.words(period, unitOnly: true) }
        return self.price(price) + " every " + OfferSummary.words(period)
    }

    /// `November 23, 2026`, `23. November 2026` (de-DE); UTC, so a date reads the same on every server.
    func day(_ date: Date) -> String {
        var style = Date.FormatStyle(date: .long, time: .omitted, locale: locale)
        style.timeZone = TimeZone(identifier: "UTC")!
        return date.formatted(style)
    }
}

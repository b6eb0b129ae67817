import Foundation
import RedeemCore

/// An offer in words, for the redemption page.
enum OfferSummary {
    /// "1 month free", "0.99 USD per month for 3 months", "9.99 USD for 6 months", "Free", with the regular price after it.
    static func text(_ offer: Offer, product: Product) -> String {
        guard let duration = offer.duration, let total = offer.totalPeriod else {
            return offer.price.map(PriceFormat.string) ?? "Free"
        }
        let main =
            switch offer.paymentMode {
            case .freeTrial: "\(words(total)) free"
            case .payAsYouGo: "\(offer.price.map(PriceFormat.string) ?? "") per \(words(duration.period, unitOnly: true)) for \(words(total))"
            case .payUpFront: "\(offer.price.map(PriceFormat.string) ?? "") for \(words(total))"
            }
        guard let price = product.price, let period = product.period, let parsed = try? ISO8601Period(parsing: period) else { return main }
        return main + ", then \(PriceFormat.string(price)) per \(words(parsed, unitOnly: true))"
    }

    static func eligibility(_ offer: Offer, product: Product) -> String {
        guard product.type == .subscription else { return "For customers who have not bought it before." }
        let names = offer.eligibility.names.map { name in
            switch name {
            case "new": "new subscribers"
            case "existing": "current subscribers"
            default: "former subscribers"
            }
        }
        let joined = names.count <= 1 ? names.joined() : names.dropLast().joined(separator: ", ") + " and " + names.last!
        return "For \(joined)."
    }

    /// "3 days", "1 week", "6 months", "1 year"; with `unitOnly`, "month" for one month.
    static func words(_ period: ISO8601Period, unitOnly: Bool = false) -> String {
        let parts: [(Int, String)] = [(period.years, "year"), (period.months, "month"), (period.weeks, "week"), (period.days, "day")]
        return parts.filter { $0.0 > 0 }.map { count, unit in
            if count == 1 { return unitOnly ? unit : "1 \(unit)" }
            return "\(count) \(unit)s"
        }.joined(separator: " ")
    }
}

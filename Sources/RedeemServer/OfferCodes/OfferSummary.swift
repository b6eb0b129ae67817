import Foundation
import RedeemCore

/// An offer in words, for the redemption page.
enum OfferSummary {
    /// What the offer charges now and later, exactly: "1 month free. Nothing is charged, and it does not renew.",
    /// "$0.99 a month for 3 months: $2.97, paid now. It does not renew.", "$9.99 for 6 months, paid now. …". An offer
    /// grants a period and takes no payment method, so nothing renews by itself; the regular price follows as a choice.
    static func text(_ offer: Offer, product: Product, format: BuyerFormat = .english) -> String {
        guard let duration = offer.duration, let total = offer.totalPeriod else {
            return offer.price.map { "\(format.price($0)), paid once." } ?? "Free."
        }
        let main =
            switch offer.paymentMode {
            case .freeTrial: "\(words(total)) free. Nothing is charged, and it does not renew."
            case .payAsYouGo:
                offer.price.map { price in
                    "\(format.price(price)) a \(words(duration.period, unitOnly: true)) for \(words(total)): \(format.price(offer.charge ?? price)), paid now. It does not renew."
                } ?? ""
            case .payUpFront: "\(offer.price.map(format.price) ?? "") for \(words(total)), paid now. It does not renew."
            }
        guard product.price != nil, product.period != nil else { return main }
        return main + " After that, subscribe for \(format.product(product)) to keep it."
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

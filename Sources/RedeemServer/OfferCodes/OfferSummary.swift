import Foundation
import RedeemCore

/// An offer in words, for the redemption page.
enum OfferSummary {
    /// What the offer charges now and later, exactly: "1 month free. Nothing is charged, and it does not renew.",
    /// "$0.99 a month for 3 months: $2.97, paid now. It does not renew.", "$9.99 for 6 months, paid now. …". An offer
    /// grants a period and takes no payment method, so nothing renews by itself; the regular price follows as a choice.
    static func text(_ offer: Offer, product: Product, format: BuyerFormat = .english) -> String {
        let texts = format.texts
        guard let duration = offer.duration, let total = offer.totalPeriod else {
            return offer.price.map { texts.format("offer.paid_once", ["price": format.price($0)]) } ?? texts["offer.free"]
        }
        let main =
            switch offer.paymentMode {
            case .freeTrial: texts.format("offer.free_trial", ["period": format.words(total)])
            case .payAsYouGo:
                offer.price.map { price in
                    texts.format(
                        "offer.pay_as_you_go",
                        [
                            "price": format.price(price), "unit": words(duration.period, unitOnly: true, format: format),
                            "period": format.words(total), "total": format.price(offer.charge ?? price),
                        ])
                } ?? ""
            case .payUpFront: texts.format("offer.pay_up_front", ["price": offer.price.map(format.price) ?? "", "period": format.words(total)])
            }
        guard product.price != nil, product.period != nil else { return main }
        return texts.format("offer.and_then", ["offer": main, "then": texts.format("offer.then_subscribe", ["price": format.product(product)])])
    }

    static func eligibility(_ offer: Offer, product: Product, format: BuyerFormat = .english) -> String {
        guard product.type == .subscription else { return format.texts["offer.for_first_buyers"] }
        let names = offer.eligibility.names.map { name in
            switch name {
            case "new": format.texts["offer.who.new"]
            case "existing": format.texts["offer.who.existing"]
            default: format.texts["offer.who.expired"]
            }
        }
        return format.texts.format("offer.for", ["who": names.formatted(.list(type: .and).locale(format.locale))])
    }

    /// "3 days", "1 week", "6 months", "1 year"; with `unitOnly`, "month" for one month.
    static func words(_ period: ISO8601Period, unitOnly: Bool = false, format: BuyerFormat = .english) -> String {
        if unitOnly, let unit = format.singleUnit(period) { return format.texts["per.\(unit)"] }
        return format.words(period)
    }
}

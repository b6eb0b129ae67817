import Foundation
import RedeemCore

/// The products page's forms read: store identifiers, entitlement lists and prices, and refusals in the form's words.
extension ConsoleCatalogController {
    /// The store identifier fields, when the form has them; an empty one clears it. Core's
    /// `StoreProductIDs.validate(for:)` judges them when the product is validated.
    static func storeIDs(_ form: [String: String]) -> StoreProductIDs? {
        guard ["app_store_id", "play_store_id", "play_base_plan"].contains(where: { form[$0] != nil }) else { return nil }
        return StoreProductIDs(
            appStore: ConsoleOffersController.nonEmpty(form["app_store_id"]), playStore: ConsoleOffersController.nonEmpty(form["play_store_id"]),
            playBasePlan: ConsoleOffersController.nonEmpty(form["play_base_plan"]))
    }

    /// Refusals naming the field as the form labels it.
    static func describe(_ error: ValidationError) -> String {
        switch error.field {
        case "store_identifiers.app_store": "App Store product ID: \(error.reason)."
        case "store_identifiers.play_store": "Google Play product ID: \(error.reason)."
        case "store_identifiers.play_base_plan": "Google Play base plan: \(error.reason)."
        case "price.amount": "Amount: \(error.reason)."
        case "price.currency": "Currency: \(error.reason)."
        case "currency": "Currency: \(error.reason)."
        case "trial_days": "Free trial (days): \(error.reason)."
        default: ConsolePages.describe(error)
        }
    }

    /// Comma- or space-separated IDs; nil when the field was not sent.
    static func list(_ text: String?) -> [String]? {
        text.map { $0.split(whereSeparator: { $0 == "," || $0.isWhitespace }).map(String.init) }
    }

    /// The price fields, or nil when no amount was given.
    static func price(_ form: [String: String]) throws -> PriceInput? {
        guard let amount = form["price_amount"]?.trimmingCharacters(in: .whitespaces), !amount.isEmpty else { return nil }
        let currency = (form["price_currency"] ?? "USD").trimmingCharacters(in: .whitespaces).uppercased()
        do {
            return try PriceInput(amount: amount, currency: currency)
        } catch {
            throw ValidationError(field: "price", reason: "must be an amount such as 4.99 and a currency such as USD")
        }
    }
}

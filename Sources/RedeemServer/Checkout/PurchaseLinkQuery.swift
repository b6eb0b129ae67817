import Foundation
import Hummingbird
import RedeemCore

/// What a purchase link's query says besides the buyer: a code to apply, the link's own after-purchase step, and the
/// parameters kept with the purchase.
extension CheckoutPageController {
    static let reserved: Set<String> = [
        "app_user_id", "email", "checkout_id", "after_purchase", "after_purchase_url", "allow_promotion_codes", "code", "currency",
        "lang",
    ]

    /// A purchase link with `?code=`: the offer code's page, which shows the offer and its price before any payment.
    static func offerCodeRedirect(_ request: Request, link: CheckoutLink, sandbox: Bool) -> Response? {
        guard let code = request.uri.queryParameters["code"].map(String.init), !code.isEmpty else { return nil }
        var location = OfferCodeLinks.redeemPagePath(appID: link.app.id, sandbox: sandbox) + OfferCodeLinks.encode(code)
        location += "&product=" + OfferCodeLinks.encode(link.product.id)
        if let buyer = link.buyer { location += "&app_user_id=" + OfferCodeLinks.encode(buyer.rawValue) }
        return CheckoutPages.redirect(to: location)
    }

    /// A link may override the app's after-purchase step with `after_purchase` (and `after_purchase_url`).
    static func overriding(_ app: App, with fields: [String: String], now: Date) throws -> App {
        guard fields["after_purchase"] != nil || fields["after_purchase_url"] != nil else { return app }
        var changes = AppChanges()
        changes.afterPurchase = fields["after_purchase"]
        changes.afterPurchaseURL = fields["after_purchase_url"]
        var copy = app
        try changes.apply(to: &copy, now: now)
        return copy
    }

    static func overrideFields(_ request: Request) -> [String: String] {
        var fields: [String: String] = [:]
        for name in ["after_purchase", "after_purchase_url"] { fields[name] = request.uri.queryParameters[Substring(name)].map(String.init) }
        return fields
    }
}

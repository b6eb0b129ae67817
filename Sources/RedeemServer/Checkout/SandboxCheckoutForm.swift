import Hummingbird
import RedeemCore

/// The sandbox checkout's page: the product, its price and trial in words, the other currencies, the e-mail form and
/// the offer-code form, as first shown or again after a refusal.
extension CheckoutPageController {
    /// The sandbox checkout's form; after a refused address or terms not agreed to, again with what was typed and why
    /// (status 422).
    func sandboxForm(
        link: CheckoutLink, request: Request, hidden: [HiddenField], email: String?, emailLocked: Bool, status: HTTPResponse.Status,
        error: String? = nil, termsAccepted: Bool = false, termsRefused: Bool = false
    ) -> Response {
        var page = SandboxCheckoutPage(
            productName: link.product.displayName ?? link.product.id, price: link.format.product(link.product), action: request.uri.path,
            hidden: hidden, codeAction: request.uri.path, email: email, emailLocked: emailLocked, error: error)
        page.termsAccepted = termsAccepted
        page.termsRefused = termsRefused
        if let pricing = link.pricing {
            if link.product.type == .subscription, let days = pricing.trialDays { page.trial = Self.trialWords(days, texts: link.format.texts) }
            let query = request.uri.queryParameters.map { (String($0.key), String($0.value)) }.sorted { $0.0 < $1.0 }
            page.otherCurrencies = CheckoutPricing.links(
                pricing.others, path: request.uri.path, query: query, product: link.product, format: link.format)
            page.hasOtherCurrencies = !page.otherCurrencies.isEmpty
        }
        // The code form leads to the offer page and back; a buyer named in the query rides along (a path one is in `action`).
        if let buyer = hidden.first(where: { $0.name == "app_user_id" })?.value {
            page.codeHidden = [HiddenField(name: "app_user_id", value: buyer)]
        }
        return pages.page("sandbox-checkout", page, app: link.app, status: status)
    }

    /// `7-day free trial`: the product's offer; a buyer who had it before pays at once (said on the page).
    static func trialWords(_ days: Int, texts: BuyerTexts) -> String { texts.count(days, "checkout.trial_days") }
}

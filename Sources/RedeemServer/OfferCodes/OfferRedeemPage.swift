import RedeemCore

/// `offer-redeem`: an offer code's page, asking for a code, or showing the offer and its claim form.
struct OfferRedeemPage: PageModel {
    let sandbox: Bool
    /// Where both forms go: this page's own path.
    let action: String
    var askCode = false
    /// What was typed, kept after a refused code.
    var typedCode: String? = nil
    var showForm = false
    var hidden: [HiddenField] = []
    /// The offer, once the code is known.
    var productName: String? = nil
    var offerSummary: String? = nil
    var eligibilityNote: String? = nil
    var paid = false
    var code: String? = nil
    var email: String? = nil
    var emailRefused = false
    /// The terms' box (`legal-accept`): ticked as sent, and marked when the claim came without it.
    var termsAccepted = false
    var termsRefused = false
    var error: String? = nil
    var mismatch: String? = nil
    var backURL: String? = nil
    var backName: String? = nil

    init(sandbox: Bool) {
        self.sandbox = sandbox
        action = sandbox ? "/sandbox/redeem" : "/redeem"
    }

    /// The offer the code gives, the code grouped for reading.
    mutating func describe(_ found: FoundOfferCode, code: String, format: BuyerFormat) {
        productName = found.product.displayName ?? found.product.id
        offerSummary = OfferSummary.text(found.offer, product: found.product, format: format)
        eligibilityNote = OfferSummary.eligibility(found.offer, product: found.product, format: format)
        paid = found.offer.isPaid
        self.code = OfferCode.normalize(code).map(OfferCode.grouped) ?? OfferCode.normalizeCustom(code) ?? code
    }

    /// The way back to the product whose checkout led here.
    mutating func goBack(to back: OfferRedeemPageController.BackLink?) {
        backURL = back?.url
        backName = back?.name
    }
}

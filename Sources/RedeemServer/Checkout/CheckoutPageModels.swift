/// A form's hidden field, carried to its POST (a link's parameters, a claim's code and ID).
struct HiddenField: Sendable {
    let name: String
    let value: String
}

/// `purchase-success`: the receipt, then the redemption step (redeem-step's values) when the link is live.
struct SuccessPageModel: PageModel {
    let productName: String
    let price: String
    let email: String
    let purchaseDate: String
    let emailed: Bool
    /// Nothing was paid (a free offer claimed): no thanks for a purchase.
    var free = false
    var customSchemeURL: String? = nil
    var httpsURL: String? = nil
    var qrSVG: String? = nil
    var androidIntentURL: String? = nil
    var expiresIn: String? = nil
    var isValid = false
    var keepLink = false
    var linkUsed = false
    var linkExpired = false
    var linkShownBefore = false
    var manageURL: String? = nil
}

/// `sandbox-checkout`: the built-in test checkout's form, for a product or a paid offer.
struct SandboxCheckoutPage: PageModel {
    let productName: String
    let price: String
    let action: String
    let hidden: [HiddenField]
    /// Where "Have an offer code?" goes; nil hides it (an offer's own checkout).
    var codeAction: String? = nil
    var codeHidden: [HiddenField] = []
    var email: String? = nil
    var emailLocked = false
    var error: String? = nil
    /// The product's free trial in words, when it has one.
    var trial: String? = nil
    /// The same checkout in the product's other currencies.
    var otherCurrencies: [CurrencyLink] = []
    var hasOtherCurrencies = false
    /// The terms' box (`legal-accept`): ticked as sent, and marked when the form came without it.
    var termsAccepted = false
    var termsRefused = false
}

/// `checkout-pending`: only the layout's values.
struct CheckoutPendingPage: PageModel {}

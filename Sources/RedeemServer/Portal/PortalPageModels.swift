import RedeemCore

/// `portal-sign-in`: the e-mail form, or one of its states (`sent`, `confirm`, `expired`).
struct PortalSignInPage: PageModel {
    /// What was typed, kept on the form; the address the link went to once sent.
    var email: String? = nil
    var error: String? = nil
    /// Said above the form or the button shown again, when the page had outlived its form cookie.
    var notice: String? = nil
    var sent = false
    var confirm = false
    /// Where the confirm button posts (the sign-in link itself).
    var action: String? = nil
    var expired = false
    /// The form cookie's value, set by `PortalPages.signInPage`.
    var formToken = ""
    var mailOff = false
}

/// `portal-home`: the signed-in buyer's purchases.
struct PortalHomePage: PageModel {
    let email: String
    let csrf: String
    let purchases: [PortalPurchaseRow]
    let none: Bool
    let notice: String?
    let noticeWarns: Bool
    /// The reasons a buyer may give when cancelling (optional), each as `value` and `label`.
    let reasons = CancellationFeedback.allCases.map { Choice(value: $0.rawValue, label: BuyerTexts.current["portal.reason.\($0.rawValue)"]) }
}

/// One purchase on the portal's home page.
struct PortalPurchaseRow: Sendable {
    let id: String
    let name: String
    let price: String
    let state: String
    let stateClass: String
    let bought: String
    let newLink: Bool
    let cancel: Bool
    let resume: Bool
    let billing: Bool
    let endsOn: String?
    let testNote: String?
    /// The other plans of its group it may switch to, each as `value` (the product) and `label`.
    var plans: [Choice] = []
    /// Whether `plans` has any (the template's section).
    var changePlan = false
    /// The product it is on, which "Keep my plan" asks for again.
    var productID = ""
    /// "Changes to Basic on June 1, 2027": a switch waiting for the period's end.
    var scheduled: String? = nil
    /// Whether the buyer may drop that switch.
    var keepPlan = false
}

/// `portal-link`: a fresh redemption link for one purchase, with redeem-step's values (the store badges are the
/// layout's).
struct PortalLinkPage: PageModel {
    let productName: String
    let emailed: Bool
    let email: String
    let customSchemeURL: String
    let httpsURL: String
    let qrSVG: String
    let expiresIn: String
    let androidIntentURL: String?
    let keepLink = true
}

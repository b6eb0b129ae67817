/// `redeem-link`: the HTTPS redemption link opened in a browser, in one of four states, with redeem-step's values
/// when it is valid.
struct LinkPageModel: PageModel {
    enum State: Sendable {
        case valid, used, expired, invalid
    }

    let isValid: Bool
    let isUsed: Bool
    let isExpired: Bool
    let isInvalid: Bool
    var messageFlash: String? = nil
    var expiresIn: String? = nil
    var customSchemeURL: String? = nil
    var httpsURL: String? = nil
    var qrSVG: String? = nil
    var androidIntentURL: String? = nil
    /// The "Send me a new link" form, when e-mail is on.
    var resendAction: String? = nil

    init(_ state: State) {
        isValid = state == .valid
        isUsed = state == .used
        isExpired = state == .expired
        isInvalid = state == .invalid
    }
}

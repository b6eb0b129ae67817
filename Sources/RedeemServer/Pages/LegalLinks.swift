import Mustache
import RedeemCore

/// An app's terms of use and privacy policy, as its buyer pages, e-mails and Stripe Checkout link them. Templates read
/// `legal`: `termsURL`, `privacyURL`, and which consent there is beside a pay button: a line (`agreeBoth`, `agreeTerms`)
/// or, when the app requires consent, a box to tick (`acceptBoth`, `acceptTerms`). A page with neither link gets nil.
struct LegalLinks: PageModel, MustacheParent {
    enum Consent: Sendable {
        /// A privacy policy alone is linked from the foot only: it is not agreed to.
        case none
        /// "By continuing, you agree to the terms", under the button.
        case line
        /// A required box to tick before the button (`accept_terms`).
        case box
    }

    let termsURL: String?
    let privacyURL: String?
    let consent: Consent

    /// The box's form field (`legal-accept`): ticked, it is sent as `yes`.
    static let acceptField = "accept_terms"

    /// Whether a form came with the box ticked.
    static func ticked(_ fields: [String: String]) -> Bool { fields[acceptField] == "yes" }

    init?(_ app: App?) {
        guard let app, app.termsURL != nil || app.privacyURL != nil else { return nil }
        termsURL = app.termsURL
        privacyURL = app.privacyURL
        consent = app.termsURL == nil ? .none : app.requireTermsConsent ? .box : .line
    }

    func child(named name: String) -> Any? {
        let both = privacyURL != nil
        return switch name {
        case "termsURL": termsURL
        case "privacyURL": privacyURL
        case "agreeBoth": consent == .line && both ? true : nil
        case "agreeTerms": consent == .line && !both ? true : nil
        case "acceptBoth": consent == .box && both ? true : nil
        case "acceptTerms": consent == .box && !both ? true : nil
        case "bothLinks": termsURL != nil && both ? true : nil
        default: nil
        }
    }

    /// What Stripe Checkout shows, in the page's language, with Markdown links: the consent line above the pay button
    /// (`custom_text[submit][message]`), or, when consent is required, the text of Stripe's own terms box
    /// (`consent_collection[terms_of_service]` with `custom_text[terms_of_service_acceptance][message]`).
    func stripeText(_ texts: BuyerTexts) -> (submit: String?, acceptance: String?) {
        guard let termsURL, consent != .none else { return (nil, nil) }
        var values = ["termsURL": Self.markdownSafe(termsURL)]
        if let privacyURL { values["privacyURL"] = Self.markdownSafe(privacyURL) }
        let kind = consent == .box ? "accept" : "agree"
        let text = texts.format("legal.\(kind)_\(privacyURL == nil ? "terms" : "both")_markdown", values)
        return consent == .box ? (nil, text) : (text, nil)
    }

    /// The URL with what would end a Markdown link or its text percent-encoded. The URL was checked as https when
    /// saved; encoding these keeps it pointing where it did.
    static func markdownSafe(_ url: String) -> String {
        var safe = ""
        for scalar in url.unicodeScalars {
            switch scalar {
            case "(", ")", "[", "]", "<", ">", " ", "\\":
                safe += "%" + String(scalar.value, radix: 16, uppercase: true)
            default:
                safe.unicodeScalars.append(scalar)
            }
        }
        return safe
    }
}

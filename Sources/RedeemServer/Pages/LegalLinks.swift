import Mustache
import RedeemCore

/// An app's terms of use and privacy policy, as its buyer pages, e-mails and Stripe Checkout link them. Templates read
/// `legal` (`termsURL`, `privacyURL`, and which consent line: `agreeBoth`, `agreeTerms`); a page with neither gets nil.
struct LegalLinks: PageModel, MustacheParent {
    let termsURL: String?
    let privacyURL: String?
    /// The consent line beside a pay button names the terms, and the privacy policy when there is one. A privacy
    /// policy alone is linked from the foot only: it is not agreed to.
    let agreeBoth: Bool
    let agreeTerms: Bool

    init?(_ app: App?) {
        guard let app, app.termsURL != nil || app.privacyURL != nil else { return nil }
        termsURL = app.termsURL
        privacyURL = app.privacyURL
        agreeBoth = termsURL != nil && privacyURL != nil
        agreeTerms = termsURL != nil && privacyURL == nil
    }

    func child(named name: String) -> Any? {
        switch name {
        case "termsURL": termsURL
        case "privacyURL": privacyURL
        case "agreeBoth": agreeBoth ? true : nil
        case "agreeTerms": agreeTerms ? true : nil
        default: nil
        }
    }

    /// The consent line above Stripe Checkout's pay button (`custom_text[submit][message]`, whose links are Markdown),
    /// in the page's language; nil without terms.
    func stripeMessage(_ texts: BuyerTexts) -> String? {
        guard let termsURL else { return nil }
        var values = ["termsURL": Self.markdownSafe(termsURL)]
        if let privacyURL { values["privacyURL"] = Self.markdownSafe(privacyURL) }
        return texts.format(privacyURL == nil ? "legal.agree_terms_markdown" : "legal.agree_both_markdown", values)
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

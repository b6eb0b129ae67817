import Foundation

/// Where a buyer manages their purchases of an app: `/account/{app_id}` on the public URL. RevenueCat's
/// `management_url`, and the link in every receipt and new-link e-mail.
enum PortalLinks {
    static func home(publicURL: URL, appID: String) -> String { base(publicURL) + "/account/" + PercentEncoding.component(appID) }

    /// The e-mailed sign-in link: opening it shows a button; only pressing it (a POST) uses the token.
    static func signIn(publicURL: URL, appID: String, token: String) -> String { home(publicURL: publicURL, appID: appID) + "/sign-in/" + token }

    /// The public URL without slashes at either end. Plain `Substring` trimming: `trimmingCharacters(in:)` with a new
    /// `CharacterSet` was 2.5% of the server's CPU in the redemption benchmark (every answer carries `management_url`).
    static func base(_ url: URL) -> String {
        var text = Substring(url.absoluteString)
        while text.first == "/" { text = text.dropFirst() }
        while text.last == "/" { text = text.dropLast() }
        return String(text)
    }
}

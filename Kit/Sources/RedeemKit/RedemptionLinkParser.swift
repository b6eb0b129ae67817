import Foundation

/// Recognises the two redemption link forms:
/// - `<scheme>://redeem_web_purchase?redemption_token=<token>` (custom scheme), and
/// - `https://<accepted host>/r/<token>` (universal link / app link).
///
/// Anything else gives `nil`: a blank or repeated token, extra path segments, another host, etc.
struct RedemptionLinkParser: Sendable {
    static let customSchemeHost = "redeem_web_purchase"
    static let tokenQueryItem = "redemption_token"
    static let webPathPrefix = "r"

    /// Lowercased hosts accepted for the https form. Empty: the https form is not accepted.
    var acceptedHosts: Set<String>
    /// Accept the https form on any host (only for keeping links before configuration).
    var acceptsAnyHost = false
    /// The app's custom scheme; `nil` accepts any non-web scheme.
    var scheme: String?
    /// Also accept `http://` for the web form (a local development server).
    var allowsHTTP = false

    /// Accepts the custom-scheme form only.
    static let customSchemeOnly = RedemptionLinkParser(acceptedHosts: [])

    /// Accepts both forms on any host; used before configuration, re-checked afterwards.
    static let provisional = RedemptionLinkParser(acceptedHosts: [], acceptsAnyHost: true)

    func parse(_ url: URL) -> WebPurchaseRedemption? {
        guard let components = URLComponents(url: url, resolvingAgainstBaseURL: false),
            let scheme = components.scheme?.lowercased(),
            let host = components.host?.lowercased(), !host.isEmpty
        else { return nil }

        let token: String?
        if scheme == "https" || scheme == "http" {
            guard scheme == "https" || allowsHTTP,
                acceptsAnyHost || acceptedHosts.contains(host)
            else { return nil }
            token = webToken(components)
        } else {
            guard self.scheme.map({ $0.lowercased() == scheme }) ?? true,
                host == Self.customSchemeHost
            else { return nil }
            token = customSchemeToken(components)
        }
        return token.map(WebPurchaseRedemption.init(redemptionToken:))
    }

    func parse(_ string: String) -> WebPurchaseRedemption? {
        let trimmed = string.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !trimmed.isEmpty, let url = URL(string: trimmed) else { return nil }
        return parse(url)
    }

    /// `/r/<token>`, with at most one trailing slash.
    private func webToken(_ components: URLComponents) -> String? {
        var segments = components.percentEncodedPath.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        guard segments.first == "" else { return nil }
        segments.removeFirst()
        if segments.count == 3, segments.last == "" { segments.removeLast() }
        guard segments.count == 2, segments[0] == Self.webPathPrefix else { return nil }
        return Self.validToken(segments[1].removingPercentEncoding)
    }

    /// No path (or just `/`), and exactly one `redemption_token` query item.
    private func customSchemeToken(_ components: URLComponents) -> String? {
        guard components.percentEncodedPath.isEmpty || components.percentEncodedPath == "/" else { return nil }
        let values = (components.queryItems ?? []).filter { $0.name == Self.tokenQueryItem }
        guard values.count == 1 else { return nil }
        return Self.validToken(values[0].value)
    }

    /// A token is non-blank, without whitespace, control characters or slashes.
    static func validToken(_ token: String?) -> String? {
        guard let token, !token.isEmpty else { return nil }
        let forbidden = CharacterSet.whitespacesAndNewlines.union(.controlCharacters).union(CharacterSet(charactersIn: "/"))
        guard token.unicodeScalars.allSatisfy({ !forbidden.contains($0) }) else { return nil }
        return token
    }
}

import Foundation

extension Redeem {
    /// Parses a redemption link with the shared instance's rules (accepted hosts and scheme).
    /// Before `configure`, only the custom-scheme form is recognised.
    public static func parseAsWebPurchaseRedemption(_ string: String) -> WebPurchaseRedemption? {
        currentLinkParser.parse(string)
    }

    /// Parses a redemption link; see `parseAsWebPurchaseRedemption(_:)` for strings.
    public static func parseAsWebPurchaseRedemption(_ url: URL) -> WebPurchaseRedemption? {
        currentLinkParser.parse(url)
    }

    /// Parses a redemption link with this instance's rules.
    public func webPurchaseRedemption(from url: URL) -> WebPurchaseRedemption? {
        linkParser.parse(url)
    }

    /// Hands a URL the app was opened with to the SDK. Returns `true` if it is (or may be) a
    /// redemption link, which is then redeemed on `Redeem.shared`, reporting to the delegate.
    ///
    /// Links that arrive before `configure` are kept and redeemed once it runs, all of them, in order.
    /// Before `configure` the accepted https hosts are unknown, so any `https://<host>/r/<token>` is
    /// kept and re-checked afterwards; one on a host that is not accepted is then dropped silently.
    @discardableResult
    public static func handle(url: URL) -> Bool {
        LinkBuffer.shared.handle(url, onResult: nil)
    }

    /// Like `handle(url:)`, and also calls `onResult` once, on the main actor, with the result.
    @discardableResult
    public static func handle(
        url: URL,
        onResult: @escaping @MainActor @Sendable (WebPurchaseRedemptionResult) -> Void
    ) -> Bool {
        LinkBuffer.shared.handle(url, onResult: onResult)
    }

    private static var currentLinkParser: RedemptionLinkParser {
        sharedIfConfigured?.linkParser ?? .customSchemeOnly
    }
}

/// A parsed redemption link. Get one from `URL.asWebPurchaseRedemption` or
/// `Redeem.parseAsWebPurchaseRedemption(_:)`, then pass it to `redeemWebPurchase(_:)`.
public struct WebPurchaseRedemption: Hashable, Sendable, CustomStringConvertible {
    /// The one-time redemption token. Treat it as a secret: it is not included in `description`.
    let redemptionToken: String

    init(redemptionToken: String) {
        self.redemptionToken = redemptionToken
    }

    public var description: String { "WebPurchaseRedemption(token: <redacted>)" }
}

/// The outcome of `Redeem.redeemWebPurchase(_:)`.
public enum WebPurchaseRedemptionResult: Hashable, Sendable {
    /// The purchase now belongs to the current user; `CustomerInfo` includes its entitlements.
    case success(CustomerInfo, RedemptionInfo)
    /// The token is unknown or malformed (backend code 7849).
    case invalidToken
    /// The purchase was already redeemed by another user (backend code 7852).
    case purchaseBelongsToOtherUser
    /// The link expired (backend code 7853). If `resent`, a new link was e-mailed to `obfuscatedEmail`.
    case expired(obfuscatedEmail: String, resent: Bool)
    /// The link was valid but the purchased subscription has since expired (backend code 7854).
    case expiredSubscription(CustomerInfo)
    /// Anything else: network, server, decoding, cancellation.
    case error(RedeemError)

    public var isSuccess: Bool {
        if case .success = self { return true }
        return false
    }
}

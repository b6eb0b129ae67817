import Foundation

/// The outcome of `Redeem.redeemOfferCode(_:)`.
public enum OfferCodeRedemptionResult: Hashable, Sendable {
    /// The code was applied; `CustomerInfo` includes what it granted.
    case success(CustomerInfo)
    /// No such code (7860). Also returned, without a request, for a blank code.
    case invalid
    /// The code or its offer has expired (7861).
    case expired
    /// The offer is not active yet, or was deactivated (7862).
    case inactive
    /// The code's redemption cap was reached (7863).
    case exhausted
    /// This customer already redeemed this offer (7864).
    case alreadyRedeemed
    /// The customer is not eligible for the offer (7865).
    case notEligible
    /// Redeeming would downgrade the customer's current subscription (7866).
    case wouldDowngrade
    /// The app's redemption quota for the period is used up (7867).
    case quotaReached
    /// The offer has a price (7868): open `redeemURL`, the server's web page that takes payment.
    case paymentRequired(redeemURL: URL?)
    /// Anything else: network, server, decoding, cancellation.
    case error(RedeemError)

    public var isSuccess: Bool {
        if case .success = self { return true }
        return false
    }
}

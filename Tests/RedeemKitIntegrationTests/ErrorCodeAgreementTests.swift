import RedeemCore
import Testing

@testable import RedeemKit

/// RedeemKit reads the codes the server sends: each one it knows must be the server's code for the same outcome.
@Suite struct ErrorCodeAgreementTests {
    @Test func theSDKsCodesAreTheServersCodes() {
        let pairs: [(sdk: Int, server: ErrorCode)] = [
            (BackendErrorCode.invalidWebRedemptionToken, .invalidRedemptionToken),
            (BackendErrorCode.purchaseBelongsToOtherUser, .purchaseBelongsToOtherUser),
            (BackendErrorCode.expiredWebRedemptionToken, .expiredRedemptionToken),
            (BackendErrorCode.expiredSubscription, .subscriptionExpired),
            (BackendErrorCode.offerCodeInvalid, .offerCodeInvalid),
            (BackendErrorCode.offerCodeExpired, .offerCodeExpired),
            (BackendErrorCode.offerCodeInactive, .offerCodeInactive),
            (BackendErrorCode.offerCodeExhausted, .offerCodeExhausted),
            (BackendErrorCode.offerCodeAlreadyRedeemed, .offerCodeAlreadyRedeemed),
            (BackendErrorCode.offerCodeNotEligible, .offerCodeNotEligible),
            (BackendErrorCode.offerCodeWouldDowngrade, .offerCodeWouldDowngrade),
            (BackendErrorCode.offerCodeQuotaReached, .offerCodeQuotaReached),
            (BackendErrorCode.offerCodePaymentRequired, .offerCodePaymentRequired),
        ]
        for pair in pairs { #expect(pair.sdk == pair.server.rawValue, "\(pair.server)") }
    }
}

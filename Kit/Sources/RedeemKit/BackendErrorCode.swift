/// The JSON `code` values the backend uses for redemption outcomes (RevenueCat compatible).
enum BackendErrorCode {
    static let invalidWebRedemptionToken = 7849
    static let purchaseBelongsToOtherUser = 7852
    static let expiredWebRedemptionToken = 7853
    static let expiredSubscription = 7854

    static let offerCodeInvalid = 7860
    static let offerCodeExpired = 7861
    static let offerCodeInactive = 7862
    static let offerCodeExhausted = 7863
    static let offerCodeAlreadyRedeemed = 7864
    static let offerCodeNotEligible = 7865
    static let offerCodeWouldDowngrade = 7866
    static let offerCodeQuotaReached = 7867
    static let offerCodePaymentRequired = 7868
}

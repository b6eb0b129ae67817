import RedeemServer

extension RateLimits {
    /// Limits no integration test comes near, so parallel tests never see a 429.
    static var generous: RateLimits {
        var limits = RateLimits()
        limits.redeemPerIP = 100_000
        limits.redeemPerUser = 100_000
        limits.newLinkPerIP = 100_000
        limits.newLinkPerEmail = 100_000
        return limits
    }
}

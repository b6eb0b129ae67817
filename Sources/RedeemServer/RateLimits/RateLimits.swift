import Foundation

/// Fixed-window limits on guessable routes: attempts per window, per IP and per app user or address.
public struct RateLimits: Sendable {
    public var redeemPerIP: Int = 60
    public var redeemPerUser: Int = 20
    public var newLinkPerIP: Int = 10
    public var newLinkPerEmail: Int = 3
    /// Console sign-in attempts, per client address and per account (known or not, so the limit reveals nothing).
    public var signInPerIP: Int = 10
    public var signInPerAccount: Int = 5
    public var window: TimeInterval = 60

    public init() {}
}

/// A request over a limit: refused until the window ends.
struct RateLimited: Error {
    let retryAfter: TimeInterval
}

import Foundation

/// What decides whether a purchase grants access at a moment: its expiry, the end of its billing grace period, and a
/// refund. `isActive(at:)` is the one definition of "active": every rule, the portal, the console and both database
/// engines read these facts and ask it, rather than restating it in SQL.
public struct AccessFacts: Hashable, Sendable {
    /// Nil for one-time products, which never expire.
    public var expiresDate: Date?
    public var gracePeriodExpiresDate: Date?
    public var refundedAt: Date?

    public init(expiresDate: Date?, gracePeriodExpiresDate: Date? = nil, refundedAt: Date? = nil) {
        self.expiresDate = expiresDate
        self.gracePeriodExpiresDate = gracePeriodExpiresDate
        self.refundedAt = refundedAt
    }

    /// When access ends, refunds aside: the later of the expiry and the grace period's end; nil for never.
    public var accessEnds: Date? { expiresDate.map { max($0, gracePeriodExpiresDate ?? $0) } }

    /// Grants access at `date`: not refunded, and unexpired counting the billing grace period.
    public func isActive(at date: Date) -> Bool {
        guard refundedAt == nil else { return false }
        return accessEnds.map { $0 > date } ?? true
    }

    /// A subscription (it has an expiry) that grants access at `date`.
    public func isActiveSubscription(at date: Date) -> Bool { expiresDate != nil && isActive(at: date) }

    /// Past its expiry but still granting access: billing failed and the grace period runs.
    public func isInGracePeriod(at date: Date) -> Bool {
        guard let expiresDate, refundedAt == nil, let grace = gracePeriodExpiresDate else { return false }
        return expiresDate <= date && grace > date
    }
}

extension Purchase {
    public var access: AccessFacts {
        AccessFacts(expiresDate: expiresDate, gracePeriodExpiresDate: gracePeriodExpiresDate, refundedAt: refundedAt)
    }
}

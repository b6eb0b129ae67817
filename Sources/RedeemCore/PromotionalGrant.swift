import Foundation

/// RevenueCat's preset lengths for a granted (promotional) entitlement.
public enum PromotionalDuration: String, CaseIterable, Codable, Sendable {
    case daily
    case threeDay = "three_day"
    case weekly
    case twoWeek = "two_week"
    case monthly
    case twoMonth = "two_month"
    case threeMonth = "three_month"
    case sixMonth = "six_month"
    case yearly
    case lifetime

    /// Nil for `lifetime`.
    public var period: ISO8601Period? {
        switch self {
        case .daily: ISO8601Period(days: 1)
        case .threeDay: ISO8601Period(days: 3)
        case .weekly: ISO8601Period(weeks: 1)
        case .twoWeek: ISO8601Period(weeks: 2)
        case .monthly: ISO8601Period(months: 1)
        case .twoMonth: ISO8601Period(months: 2)
        case .threeMonth: ISO8601Period(months: 3)
        case .sixMonth: ISO8601Period(months: 6)
        case .yearly: ISO8601Period(years: 1)
        case .lifetime: nil
        }
    }
}

/// An entitlement granted by an operator rather than bought: a purchase in the `promotional` store whose product,
/// `rc_promo_<entitlement>_<duration>` as RevenueCat names it, unlocks only that entitlement. It never renews, and
/// revoking it ends it at once.
public struct PromotionalGrant: Equatable, Sendable {
    public static let productPrefix = "rc_promo_"
    /// The longest grant with an end date, so a typo cannot grant for centuries.
    public static let longest: TimeInterval = 10 * 366 * 86_400

    public let entitlementID: String
    /// The product the grant is recorded under; one per entitlement and duration.
    public let productID: String
    /// Nil for a lifetime grant.
    public let expiresDate: Date?
    /// The store transaction ID it is recorded under when a request with its own ID made it (`submitted(by:)`); nil
    /// for a new one.
    public private(set) var transactionID: String?

    /// The grant as one request asked for it: every submit of that request (`requestID`: a form's hidden field, an API
    /// caller's `Idempotency-Key`) names the same transaction, so a double click or a retry records one grant.
    public func submitted(by requestID: String) -> PromotionalGrant {
        var grant = self
        grant.transactionID = Identifier.derived(prefix: "promo", scope: "grant-request", from: requestID)
        return grant
    }

    /// Decides a grant: for a preset `duration` from `now`, or until `until`; exactly one of them. `start` is RevenueCat's
    /// older `start_time_ms`: a duration then ends that long after it, though access starts now.
    public static func plan(
        entitlementID: String, duration: PromotionalDuration?, until: Date?, start: Date? = nil, now: Date
    ) throws(ValidationError)
        -> PromotionalGrant
    {
        try Identifier.validate(entitlementID, field: "entitlement_id")
        switch (duration, until) {
        case (let duration?, nil):
            let expires = duration.period?.advance(start ?? now)
            if let expires, expires <= now { throw ValidationError(field: "start_time_ms", reason: "the grant would already have ended") }
            if let expires, expires.timeIntervalSince(now) > longest {
                throw ValidationError(field: "start_time_ms", reason: "the grant would end more than 10 years from now")
            }
            return PromotionalGrant(
                entitlementID: entitlementID, productID: productPrefix + entitlementID + "_" + duration.rawValue, expiresDate: expires)
        case (nil, let until?):
            guard until > now else { throw ValidationError(field: "until", reason: "must be in the future") }
            guard until.timeIntervalSince(now) <= longest else {
                throw ValidationError(field: "until", reason: "must be at most 10 years away; grant lifetime access instead")
            }
            return PromotionalGrant(entitlementID: entitlementID, productID: productPrefix + entitlementID + "_custom", expiresDate: until)
        case (nil, nil):
            throw ValidationError(field: "duration", reason: "give a duration (such as monthly) or an end date (until)")
        case (.some, .some):
            throw ValidationError(field: "until", reason: "give a duration or an end date, not both")
        }
    }

    /// The entitlement a grant unlocks, read from its product ID (`rc_promo_<entitlement>_<duration or custom>`); nil
    /// for anything else.
    public static func entitlement(of purchase: Purchase) -> String? {
        purchase.store == .promotional ? entitlement(productID: purchase.productID) : nil
    }

    /// The entitlement a grant's product unlocks; nil for a product that is not a grant's.
    public static func entitlement(productID: String) -> String? {
        guard isPromotional(productID: productID) else { return nil }
        let rest = productID.dropFirst(productPrefix.count)
        for suffix in PromotionalDuration.allCases.map(\.rawValue) + ["custom"] where rest.hasSuffix("_" + suffix) {
            return String(rest.dropLast(suffix.count + 1))
        }
        return nil
    }

    /// When a grant was revoked: revoking marks it cancelled as it ends it, and a grant is cancelled no other way. Nil for
    /// a grant that runs or ran out, and for anything that is not a grant.
    public static func revokedAt(_ purchase: Purchase) -> Date? {
        purchase.store == .promotional ? purchase.unsubscribeDetectedAt : nil
    }

    /// Whether a product ID is reserved for grants.
    public static func isPromotional(productID: String) -> Bool { productID.hasPrefix(productPrefix) }

    /// Why a purchase cannot be revoked as a grant, or nil when it can: only live promotional grants can.
    public static func revokeRefusal(_ purchase: Purchase, now: Date) -> String? {
        guard purchase.store == .promotional else { return "Only a granted entitlement can be revoked; refund a purchase instead." }
        guard purchase.isActive(at: now) else { return "This grant has already ended." }
        return nil
    }
}

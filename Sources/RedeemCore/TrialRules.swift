import Foundation

/// What decides a free trial on a web subscription: one trial per buyer and product.
public struct TrialFacts: Sendable {
    /// The product's trial length; nil when it has none.
    public var trialDays: Int?
    /// Earlier purchases of this product (any store, refunded or lapsed included) by the buyer's customer, if the
    /// buyer is identified.
    public var customerPurchases: [Purchase]
    /// Earlier purchases of this product billed to the checkout's e-mail address (compared case-insensitively).
    public var emailPurchases: [Purchase]

    public init(trialDays: Int?, customerPurchases: [Purchase], emailPurchases: [Purchase]) {
        self.trialDays = trialDays
        self.customerPurchases = customerPurchases
        self.emailPurchases = emailPurchases
    }
}

public enum TrialRules {
    public enum Decision: Equatable, Sendable {
        /// A trial of this many days.
        case trial(days: Int)
        /// The product has no trial.
        case noTrial
        /// The buyer had this product before (a trial or a paid period): they pay at once.
        case alreadyUsed
    }

    /// One trial per buyer and product: a buyer whose customer, or whose e-mail address, bought `productID` before (a
    /// trial or paid, refunded or not) pays at once, as the stores' introductory-offer eligibility works.
    public static func decide(productID: String, facts: TrialFacts) -> Decision {
        guard let days = facts.trialDays, days > 0 else { return .noTrial }
        let earlier = (facts.customerPurchases + facts.emailPurchases).contains { $0.productID == productID }
        return earlier ? .alreadyUsed : .trial(days: days)
    }

    /// When a real trial ends: `days` calendar days after `start` (UTC).
    public static func trialEnd(days: Int, from start: Date) -> Date {
        ISO8601Period(days: days).advance(start)
    }

    /// The first paid period after a trial that ended at `trialEnd`, for a subscription of `period`: it starts at the
    /// trial's end, not when the conversion was noticed.
    public static func paidPeriodEnd(trialEnd: Date, period: String) throws(ValidationError) -> Date {
        try ISO8601Period(parsing: period).advance(trialEnd)
    }
}

extension SandboxClock {
    /// A sandbox trial lasts 5 minutes whatever its days, as RevenueCat's sandbox does; `length` shortens it (tests, demos).
    public static let trialLength: TimeInterval = 300

    public static func trialEnd(from start: Date, length: TimeInterval = trialLength) -> Date {
        start.addingTimeInterval(length)
    }

    /// The paid period a sandbox trial converts to: the period's accelerated length, from the trial's end.
    public static func paidPeriodEnd(trialEnd: Date, period: String) throws -> Date {
        try expiry(period: period, from: trialEnd)
    }
}

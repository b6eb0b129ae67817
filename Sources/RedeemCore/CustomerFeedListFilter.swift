import Foundation

/// The console's customer list filters, judged from the customer's purchases with the one definition of access
/// (`AccessFacts`): the store reads facts, this decides.
public enum CustomerListFilter: String, CaseIterable, Sendable {
    case all, active, trial
    /// A live subscription set to end with its period: who a win-back offer is for.
    case wontRenew = "wont_renew"
    case refunded
    case billingIssue = "billing_issue"

    /// Which purchases count: any, or only production or sandbox ones.
    public enum Environment: String, CaseIterable, Sendable {
        case any, production, sandbox
    }

    /// Whether a customer with `purchases` is listed under this filter in `environment` at `now`. With `any` and `all`
    /// every customer is, purchases or not; an environment lists only customers with a purchase in it.
    public func matches(_ purchases: [Purchase], environment: Environment = .any, now: Date) -> Bool {
        let counted = purchases.filter {
            switch environment {
            case .any: true
            case .production: !$0.isSandbox
            case .sandbox: $0.isSandbox
            }
        }
        switch self {
        case .all: return environment == .any || !counted.isEmpty
        case .active: return counted.contains { $0.access.isActive(at: now) }
        case .trial: return counted.contains { $0.periodType == .trial && $0.access.isActive(at: now) }
        case .wontRenew:
            return counted.contains { $0.store != .promotional && $0.unsubscribeDetectedAt != nil && $0.access.isActiveSubscription(at: now) }
        case .refunded: return counted.contains { $0.refundedAt != nil }
        case .billingIssue:
            return counted.contains {
                $0.access.isActive(at: now) && ($0.billingIssuesDetectedAt != nil || $0.access.isInGracePeriod(at: now))
            }
        }
    }
}

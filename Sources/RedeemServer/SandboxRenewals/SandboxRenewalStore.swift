import Foundation
import RedeemStore

/// Renews sandbox subscriptions that are due, on the accelerated clock, and converts sandbox trials that ended.
public protocol SandboxRenewalStore: Sendable {
    func renewSandboxSubscriptions(
        now: Date, maxRenewals: Int, mail: LifecycleMail?, length: @escaping @Sendable (String) -> TimeInterval
    ) async throws -> Int
    func convertSandboxTrials(now: Date, mail: LifecycleMail?, paidPeriodEnd: @escaping @Sendable (Date, String) -> Date) async throws -> Int
}

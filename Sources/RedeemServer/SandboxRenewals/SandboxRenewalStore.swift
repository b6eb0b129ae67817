import Foundation

/// Renews sandbox subscriptions that are due, on the accelerated clock.
public protocol SandboxRenewalStore: Sendable {
    func renewSandboxSubscriptions(now: Date, maxRenewals: Int, length: @escaping @Sendable (String) -> TimeInterval) async throws -> Int
}

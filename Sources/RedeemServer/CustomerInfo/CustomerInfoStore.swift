import Foundation
import RedeemCore
import RedeemStore

/// What Customer Info reads.
protocol CustomerInfoStore: Sendable {
    /// Changes whenever the customer's committed info may have changed; nil when it must not be cached.
    func customerInfoTag(appID: String, appUserID: AppUserID) async throws -> CustomerInfoTag?
    /// The customer's info, the customer created on first sight.
    func customerInfo(appID: String, appUserID: AppUserID, now: Date) async throws -> CustomerInfo
    /// The customer's subscriber attributes, for secret-key reads.
    func subscriberAttributes(appID: String, appUserID: AppUserID) async throws -> [String: SubscriberAttribute]
    /// When this instance's latest write ended: announcements heard before then may not include it yet.
    var lastWriteFinished: ContinuousClock.Instant? { get }
    /// Reports the versions the database announces until cancelled; false at once when it announces none.
    func watchCustomerVersions(_ sink: @escaping @Sendable (CustomerVersionEvent) -> Void) async -> Bool
}

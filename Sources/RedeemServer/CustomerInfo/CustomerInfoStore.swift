import Foundation
import RedeemCore

/// What Customer Info reads.
protocol CustomerInfoStore: Sendable {
    /// Changes whenever the customer's committed info may have changed; nil when it must not be cached.
    func customerInfoTag(appID: String, appUserID: AppUserID) async throws -> String?
    /// The customer's info, the customer created on first sight.
    func customerInfo(appID: String, appUserID: AppUserID, now: Date) async throws -> CustomerInfo
    /// The customer's subscriber attributes, for secret-key reads.
    func subscriberAttributes(appID: String, appUserID: AppUserID) async throws -> [String: SubscriberAttribute]
}

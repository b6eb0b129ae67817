import Foundation
import RedeemCore

/// What Customer Info reads.
protocol CustomerInfoStore: Sendable {
    /// Changes whenever committed data may have changed; nil when reads must not be cached.
    func changeToken() async throws -> UInt64?
    /// The customer's info, the customer created on first sight.
    func customerInfo(appID: String, appUserID: AppUserID, now: Date) async throws -> CustomerInfo
}

import Foundation
import RedeemCore

/// What logging in and Android's restore alias need.
protocol IdentityStore: Sendable {
    func logIn(appID: String, current: AppUserID, new: AppUserID, sandbox: Bool, now: Date) async throws -> Bool
    func restoreAlias(appID: String, previous: AppUserID, current: AppUserID, sandbox: Bool, now: Date) async throws
    func customerInfo(appID: String, appUserID: AppUserID, now: Date) async throws -> CustomerInfo
    func subscriberAttributes(appID: String, appUserID: AppUserID) async throws -> [String: SubscriberAttribute]
}

import Foundation
import RedeemCore
import RedeemStore

/// What recording a purchase through the server API needs.
protocol PurchaseStore: Sendable {
    /// Records a purchase once per idempotency key; a repeat returns the first result.
    func grant(_ grant: PurchaseGrant, idempotency: Idempotency?, now: Date) async throws -> GrantResult
    func customerInfo(appID: String, appUserID: AppUserID, now: Date) async throws -> CustomerInfo
}

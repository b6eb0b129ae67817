import Foundation
import RedeemCore
import RedeemStore

/// What erasing a customer needs.
protocol ErasureStore: Sendable {
    func eraseCustomer(appID: String, appUserID: AppUserID, now: Date, audit: AuditEntry) async throws -> Bool
    func findCustomer(appID: String, appUserID: AppUserID) async throws -> Customer?
    func purchases(customerID: String) async throws -> [Purchase]
}

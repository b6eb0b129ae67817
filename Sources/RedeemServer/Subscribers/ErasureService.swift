import Foundation
import RedeemCore
import RedeemStore

/// Erasing a customer on request (GDPR): one audited transaction in the store, which leaves the purchases for the
/// books and nothing that names the person.
struct ErasureService: Sendable {
    let store: any ErasureStore
    let clock: any RedeemClock

    /// False when no customer has `appUserID`.
    func erase(appID: String, appUserID: AppUserID, actor: String) async throws -> Bool {
        let now = clock.now()
        let audit = AuditEntry(at: now, actor: actor, action: "customer.erase", objectType: "customer", objectID: "", appID: appID)
        return try await store.eraseCustomer(appID: appID, appUserID: appUserID, now: now, audit: audit)
    }
}

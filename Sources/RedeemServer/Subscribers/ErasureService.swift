import Foundation
import RedeemCore
import RedeemStore

/// Erasing a customer on request (GDPR): one audited transaction in the store, which leaves the purchases for the
/// books and nothing that names the person.
struct ErasureService: Sendable {
    let store: any ErasureStore
    let clock: any RedeemClock
    let support: SupportService

    /// False when no customer has `appUserID`. The customer's web subscriptions stop renewing first, as RevenueCat
    /// cancels Web Billing subscriptions on a delete: an erased customer is charged no more (a Stripe one through
    /// Stripe, which must then be configured).
    func erase(appID: String, appUserID: AppUserID, actor: String) async throws -> Bool {
        if let customer = try await store.findCustomer(appID: appID, appUserID: appUserID) {
            let now = clock.now()
            for purchase in try await store.purchases(customerID: customer.id) {
                guard case .success = SupportRules.cancelAtPeriodEnd(purchase, now: now) else { continue }
                _ = try await support.cancelAtPeriodEnd(appID: appID, purchaseID: purchase.id, actor: actor, notifying: false)
            }
        }
        let now = clock.now()
        let audit = AuditEntry(at: now, actor: actor, action: "customer.erase", objectType: "customer", objectID: "", appID: appID)
        return try await store.eraseCustomer(appID: appID, appUserID: appUserID, now: now, audit: audit)
    }
}

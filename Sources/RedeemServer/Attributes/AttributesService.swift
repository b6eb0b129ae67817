import Foundation
import RedeemCore

/// Subscriber attributes: what is valid and what wins is `SubscriberAttributeRules` (Core), applied by the store.
struct AttributesService: Sendable {
    let store: any AttributesStore
    let clock: any RedeemClock

    /// Saves what is valid; the keys refused, each with why.
    func set(
        appID: String, appUserID: AppUserID, _ request: AttributesRequest, fromBackend: Bool
    ) async throws -> [SubscriberAttributeRules.Refusal] {
        let now = clock.now()
        return try await store.setAttributes(
            appID: appID, appUserID: appUserID, changes: request.changes(now: now), fromBackend: fromBackend, now: now)
    }
}

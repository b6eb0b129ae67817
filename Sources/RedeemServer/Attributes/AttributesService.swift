import Foundation
import RedeemCore
import RedeemStore

/// Subscriber attributes: what is valid and what wins is `SubscriberAttributeRules` (Core), applied by the store.
struct AttributesService: Sendable {
    let store: any AttributesStore
    let clock: any RedeemClock

    /// Saves what is valid; the keys refused, each with why.
    /// What the admin API, the CLI and the console show.
    func records(appID: String, appUserID: AppUserID) async throws -> [SubscriberAttributeRecord] {
        try await store.attributeRecords(appID: appID, appUserID: appUserID)
    }

    func set(
        appID: String, appUserID: AppUserID, _ request: AttributesRequest, fromBackend: Bool
    ) async throws -> [SubscriberAttributeRules.Refusal] {
        let now = clock.now()
        return try await store.setAttributes(
            appID: appID, appUserID: appUserID, changes: request.changes(now: now), fromBackend: fromBackend, now: now)
    }
}

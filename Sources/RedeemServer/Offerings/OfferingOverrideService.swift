import Foundation
import RedeemCore
import RedeemStore

/// RevenueCat's offering override: one customer's current offering, which that customer's
/// `GET /v1/subscribers/{id}/offerings` then names, on every alias; removing it gives the app's own current offering
/// back. Chosen by the app's backend (REST API v1, the app's secret key), support in the console, the admin API or
/// `redeem customers offering`. Audited; an unknown user is created, as RevenueCat's other v1 routes do.
public struct OfferingOverrideService: Sendable {
    let store: any OfferingOverrideStore
    let clock: any RedeemClock

    /// The offering chosen for this customer, and when; nil when none is (the app's own current offering applies).
    public func current(appID: String, appUserID: AppUserID) async throws -> OfferingOverride? {
        try await store.offeringOverride(appID: appID, appUserID: appUserID)
    }

    /// `offeringID` nil removes the override. Answers the override now in place; choosing the one already chosen
    /// changes nothing, so it keeps the time it was first chosen.
    @discardableResult
    public func set(appID: String, appUserID: AppUserID, offeringID: String?, actor: String) async throws -> OfferingOverride? {
        let now = clock.now()
        let detail = offeringID.map { "\($0) current for \(appUserID.rawValue)" } ?? "app's current offering for \(appUserID.rawValue)"
        let audit = AuditEntry(
            at: now, actor: actor, action: offeringID == nil ? "offering.override.remove" : "offering.override", objectType: "customer",
            objectID: "", appID: appID, detail: detail)
        // An unknown offering is the store's `notFound`, which every caller answers with 404 and its name.
        try await store.setOfferingOverride(appID: appID, appUserID: appUserID, offeringID: offeringID, now: now, audit: audit)
        // Read back: choosing again what was chosen keeps its first `chosen_at`.
        return offeringID == nil ? nil : try await current(appID: appID, appUserID: appUserID)
    }
}

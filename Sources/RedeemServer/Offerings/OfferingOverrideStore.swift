import Foundation
import RedeemCore
import RedeemStore

/// What RevenueCat's offering override needs: one write, which creates the customer if new, and one read.
protocol OfferingOverrideStore: Sendable {
    func setOfferingOverride(appID: String, appUserID: AppUserID, offeringID: String?, now: Date, audit: AuditEntry) async throws
    func offeringOverride(appID: String, appUserID: AppUserID) async throws -> OfferingOverride?
}

import Foundation
import RedeemCore
import RedeemStore

/// What RevenueCat's offering override needs: one write, which creates the customer if new.
protocol OfferingOverrideStore: Sendable {
    func setOfferingOverride(appID: String, appUserID: AppUserID, offeringID: String?, now: Date, audit: AuditEntry) async throws
}

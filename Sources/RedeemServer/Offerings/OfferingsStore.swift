import Foundation
import RedeemCore
import RedeemStore

/// What serving offerings and the product-entitlement mapping needs.
protocol OfferingsStore: Sendable {
    func offeringsFacts(appID: String, appUserID: String) async throws -> OfferingsFacts?
    func catalog(appID: String) async throws -> (offerings: [Offering], products: [Product])
    /// SQLite's commit counter, nil on PostgreSQL: while it stands still, no catalog can have changed.
    func changeToken() async throws -> UInt64?
}

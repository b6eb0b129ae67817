import Foundation
import RedeemCore

/// What serving offerings and the product-entitlement mapping needs.
protocol OfferingsStore: Sendable {
    func catalogVersion(appID: String) async throws -> Int64?
    func catalog(appID: String) async throws -> (offerings: [Offering], products: [Product])
    /// SQLite's commit counter, nil on PostgreSQL: while it stands still, no catalog can have changed.
    func changeToken() async throws -> UInt64?
}

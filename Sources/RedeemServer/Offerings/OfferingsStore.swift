import Foundation
import RedeemCore

/// What serving offerings and the product-entitlement mapping needs.
protocol OfferingsStore: Sendable {
    func catalogVersion(appID: String) async throws -> Int64?
    func catalog(appID: String) async throws -> (offerings: [Offering], products: [Product])
}

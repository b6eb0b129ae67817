import Foundation
import RedeemCore
import RedeemStore

/// The reads the admin API, the console and the CLI show, so none of them reaches into the store.
extension AdminService {
    public func app(id: String) async throws -> App { try await store.app(id: id) }
    public func apps() async throws -> [App] { try await store.apps() }
    public func products(appID: String) async throws -> [Product] { try await store.products(appID: appID) }
    public func product(appID: String, id: String) async throws -> Product { try await store.product(appID: appID, id: id) }
    public func entitlements(appID: String) async throws -> [Entitlement] { try await store.entitlements(appID: appID) }
    public func entitlement(appID: String, id: String) async throws -> Entitlement { try await store.entitlement(appID: appID, id: id) }
    public func offerings(appID: String) async throws -> [Offering] { try await store.offerings(appID: appID) }
    /// How many customers each offering was chosen for as their current one (RevenueCat's offering override).
    public func offeringOverrideCounts(appID: String) async throws -> [String: Int] { try await store.offeringOverrideCounts(appID: appID) }
    public func offers(appID: String, productID: String?) async throws -> [Offer] { try await store.offers(appID: appID, productID: productID) }
    public func offer(appID: String, id: String) async throws -> Offer { try await store.offer(appID: appID, id: id) }
    /// An offer by its ID alone, to find its app (the CLI's `--offer` without `--app`).
    public func offer(id: String) async throws -> Offer { try await store.offer(id: id) }
    public func codeBatches(appID: String, offerID: String?) async throws -> [OfferCodeBatch] {
        try await store.codeBatches(appID: appID, offerID: offerID)
    }
    public func customCodes(appID: String, offerID: String?) async throws -> [CustomOfferCode] {
        try await store.customCodes(appID: appID, offerID: offerID)
    }
    /// The quarter's offer-code use, as of now.
    public func offerCodeUsage(appID: String) async throws -> OfferCodeUsage { try await store.offerCodeUsage(appID: appID, now: clock.now()) }
    public func offerRedemptions(appID: String, offerID: String?) async throws -> [OfferRedemptionRecord] {
        try await store.offerRedemptions(appID: appID, offerID: offerID)
    }
    /// A customer's subscriber attributes, each with whether the secret key set it.
    public func attributeRecords(appID: String, appUserID: AppUserID) async throws -> [SubscriberAttributeRecord] {
        try await store.attributeRecords(appID: appID, appUserID: appUserID)
    }
}

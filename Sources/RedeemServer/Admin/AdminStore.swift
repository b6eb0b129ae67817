import Foundation
import RedeemCore
import RedeemStore

/// What the admin API, the CLI and `AdminService` read and write: apps, keys, the catalog, offers and codes.
public protocol AdminStore: RedemptionLinkStore {
    // Apps and keys
    func createApp(_ app: App, keys: [GeneratedAPIKey], audit: AuditEntry?) async throws
    func apps() async throws -> [App]
    func updateApp(_ app: App, audit: AuditEntry?) async throws
    func createKey(_ key: GeneratedAPIKey, audit: AuditEntry?) async throws
    func keys(appID: String?) async throws -> [APIKey]
    func revokeKey(id: String, appID: String?, at date: Date, audit: AuditEntry?) async throws

    // Catalog
    func createEntitlement(_ entitlement: Entitlement, audit: AuditEntry?) async throws
    func updateEntitlement(_ entitlement: Entitlement, audit: AuditEntry?) async throws
    func entitlement(appID: String, id: String) async throws -> Entitlement
    func entitlements(appID: String) async throws -> [Entitlement]
    /// Creates the product; entitlements it names that do not exist yet are created with it.
    func createProduct(_ product: Product, audit: AuditEntry?) async throws
    func updateProduct(_ product: Product, audit: AuditEntry?) async throws
    func product(appID: String, id: String) async throws -> Product
    func products(appID: String) async throws -> [Product]

    // Purchases
    /// Records a purchase once per idempotency key; a repeat returns the first result.
    func grant(_ grant: PurchaseGrant, idempotency: Idempotency?, now: Date, audit: AuditEntry?) async throws -> GrantResult
    // Offer codes
    /// Creates an offer; refuses an 11th active offer on a subscription product.
    func createOffer(_ offer: Offer, audit: AuditEntry?) async throws
    func offer(appID: String, id: String) async throws -> Offer
    /// An offer found by its ID alone, for the CLI, which names offers without their app.
    func offer(id: String) async throws -> Offer
    func offers(appID: String, productID: String?) async throws -> [Offer]
    func setOfferActive(appID: String, id: String, active: Bool, audit: AuditEntry?) async throws -> Offer
    /// Stores a batch and its `batch.count` codes' hashes, read a chunk at a time, all or none.
    func createCodeBatch(
        _ batch: OfferCodeBatch, hashes: some CodeHashChunks, audit: AuditEntry?, progress: @escaping @Sendable (Int) -> Void) async throws
    func codeBatches(appID: String, offerID: String?) async throws -> [OfferCodeBatch]
    func setCodeBatchActive(appID: String, id: String, active: Bool, audit: AuditEntry?) async throws -> OfferCodeBatch
    func createCustomCode(_ code: CustomOfferCode, audit: AuditEntry?) async throws
    func customCodes(appID: String, offerID: String?) async throws -> [CustomOfferCode]
    func setCustomCodeActive(appID: String, id: String, active: Bool, audit: AuditEntry?) async throws -> CustomOfferCode
    func offerCodeUsage(appID: String, now: Date) async throws -> OfferCodeUsage
    func offerRedemptions(appID: String, offerID: String?) async throws -> [OfferRedemptionRecord]
    // Offerings
    func offerings(appID: String) async throws -> [Offering]
    func offeringOverrideCounts(appID: String) async throws -> [String: Int]
    func createOffering(_ offering: Offering, audit: AuditEntry?) async throws
    func updateOffering(_ offering: Offering, audit: AuditEntry?) async throws
    func deleteOffering(appID: String, id: String, audit: AuditEntry?) async throws
    // Subscriber attributes, for the CLI
    func attributeRecords(appID: String, appUserID: AppUserID) async throws -> [SubscriberAttributeRecord]
}

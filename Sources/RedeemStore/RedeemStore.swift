import Foundation
import RedeemCore

/// The one storage interface everything above the store uses.
public protocol RedeemStore: Sendable {
    // Apps and keys
    func createApp(_ app: App, keys: [GeneratedAPIKey]) async throws
    func app(id: String) async throws -> App
    func apps() async throws -> [App]
    func updateApp(_ app: App) async throws
    func createKey(_ key: GeneratedAPIKey) async throws
    func keys(appID: String?) async throws -> [APIKey]
    func revokeKey(id: String, appID: String?, at date: Date) async throws
    /// The live (unrevoked) key with this hash.
    func activeKey(hash: String) async throws -> APIKey?

    // Catalog
    func createEntitlement(_ entitlement: Entitlement) async throws
    func updateEntitlement(_ entitlement: Entitlement) async throws
    func entitlement(appID: String, id: String) async throws -> Entitlement
    func entitlements(appID: String) async throws -> [Entitlement]
    /// Creates the product; entitlements it names that do not exist yet are created with it.
    func createProduct(_ product: Product) async throws
    func updateProduct(_ product: Product) async throws
    func product(appID: String, id: String) async throws -> Product
    func products(appID: String) async throws -> [Product]

    // Customers
    /// The customer `appUserID` resolves to, created on first sight; `last_seen` is kept fresh.
    func customer(appID: String, appUserID: AppUserID, now: Date) async throws -> Customer
    func findCustomer(appID: String, appUserID: AppUserID) async throws -> Customer?
    /// Merges `source`'s customer into `target`'s; every alias then resolves to the survivor.
    func alias(appID: String, _ source: AppUserID, into target: AppUserID, now: Date) async throws -> Customer
    /// Moves one purchase to `appUserID`'s customer.
    func transferPurchase(appID: String, purchaseID: String, to appUserID: AppUserID, now: Date) async throws -> Purchase

    // Purchases
    /// Records a purchase once per idempotency key; a repeat returns the first result.
    func grant(_ grant: PurchaseGrant, idempotency: Idempotency?, now: Date) async throws -> GrantResult
    func purchase(appID: String, id: String) async throws -> Purchase
    func purchases(customerID: String) async throws -> [Purchase]
    /// Everything CustomerInfo is built from, read consistently.
    func customerInfo(appID: String, appUserID: AppUserID, now: Date) async throws -> CustomerInfo
    // Redemption links
    /// Stores a new token (by its hash) for a purchase.
    func issueRedemptionToken(appID: String, purchaseID: String, tokenHash: String, now: Date, expiresAt: Date) async throws
    /// Consumes a token for `claimant` exactly once, associating the purchase in the same transaction, and records the attempt.
    func redeem(appID: String, tokenHash: String, claimant: AppUserID, behavior: RestoreBehavior, now: Date) async throws -> RedemptionOutcome

    // Offer codes
    /// Creates an offer; refuses an 11th active offer on a subscription product.
    func createOffer(_ offer: Offer) async throws
    func offer(appID: String, id: String) async throws -> Offer
    func offer(id: String) async throws -> Offer
    func offers(appID: String, productID: String?) async throws -> [Offer]
    func setOfferActive(appID: String, id: String, active: Bool) async throws -> Offer
    /// Stores a batch and its codes' hashes, all or none.
    func createCodeBatch(_ batch: OfferCodeBatch, codeHashes: [String], progress: @escaping @Sendable (Int) -> Void) async throws
    func codeBatches(appID: String, offerID: String?) async throws -> [OfferCodeBatch]
    func setCodeBatchActive(appID: String, id: String, active: Bool) async throws -> OfferCodeBatch
    func createCustomCode(_ code: CustomOfferCode) async throws
    func customCodes(appID: String, offerID: String?) async throws -> [CustomOfferCode]
    func setCustomCodeActive(appID: String, id: String, active: Bool) async throws -> CustomOfferCode
    /// Redeems a code exactly once: claim, quota, one-per-customer record, purchase and event in one transaction.
    func redeemOfferCode(_ request: OfferCodeRedemptionRequest) async throws -> Result<OfferCodeRedemption, OfferRedemptionFailure>
    func findOfferCode(appID: String, code: String) async throws -> FoundOfferCode?
    func offerCodeUsage(appID: String, now: Date) async throws -> OfferCodeUsage
    func offerRedemptions(appID: String, offerID: String?) async throws -> [OfferRedemptionRecord]

    /// Changes whenever committed data may have changed; nil when reads must not be cached (see `SQLDatabase`).
    func changeToken() async throws -> UInt64?
}

/// A purchase to record, from the server API or a checkout.
public struct PurchaseGrant: Codable, Equatable, Sendable {
    public var appID: String
    public var appUserID: AppUserID
    public var productID: String
    public var store: Store
    public var isSandbox: Bool
    public var purchaseDate: Date
    /// For subscriptions: defaults to one period after `purchaseDate`.
    public var expiresDate: Date?
    public var periodType: PeriodType
    public var storeTransactionID: String?
    public var price: Price?
    public var email: String?
    public var customParams: [String: String]
    /// The checkout that produced it (a Stripe Checkout Session ID, a sandbox checkout ID), to find it from a success page.
    public var checkoutReference: String?
    /// The offer code that made it, if any.
    public var offer: PurchaseOffer?

    public init(
        appID: String, appUserID: AppUserID, productID: String, store: Store = .external, isSandbox: Bool = false,
        purchaseDate: Date, expiresDate: Date? = nil, periodType: PeriodType = .normal, storeTransactionID: String? = nil,
        price: Price? = nil, email: String? = nil, customParams: [String: String] = [:]
    ) {
        self.appID = appID
        self.appUserID = appUserID
        self.productID = productID
        self.store = store
        self.isSandbox = isSandbox
        self.purchaseDate = purchaseDate
        self.expiresDate = expiresDate
        self.periodType = periodType
        self.storeTransactionID = storeTransactionID
        self.price = price
        self.email = email
        self.customParams = customParams
    }
}

/// A client's idempotency key and a fingerprint of the request it came with.
public struct Idempotency: Sendable {
    public let key: String
    public let fingerprint: String

    public init(key: String, fingerprint: String) {
        self.key = key
        self.fingerprint = fingerprint
    }
}

public struct GrantResult: Sendable {
    public let purchase: Purchase
    /// False when an earlier request with the same idempotency key already recorded it.
    public let created: Bool
}

extension AppUserID: Codable {
    public init(from decoder: any Decoder) throws {
        let string = try decoder.singleValueContainer().decode(String.self)
        do { try self.init(validating: string) } catch { throw error }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }
}

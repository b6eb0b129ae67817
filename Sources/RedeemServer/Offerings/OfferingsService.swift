import Foundation
import NIOConcurrencyHelpers
import RedeemCore

/// Offerings and the product-entitlement mapping as RevenueCat's SDKs read them (`OfferingsDocument`), written once per
/// app, store and environment and kept in memory while the app's catalog version is unchanged: a request costs one
/// small read, as `/health`'s does.
struct OfferingsService: Sendable {
    let store: any OfferingsStore
    let cache: OfferingsCache
    let publicURL: URL

    /// `sandbox`: a sandbox key asked, so packages link to the sandbox checkout.
    func offerings(appID: String, platform: StorePlatform, sandbox: Bool) async throws -> [UInt8] {
        try await cached(.init(appID: appID, document: "offerings:\(platform.rawValue):\(sandbox)")) { offerings, products in
            let byID = Dictionary(products.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
            return OfferingsDocument.offerings(offerings, products: byID, platform: platform) { product in
                product.price == nil ? nil : PurchaseLinks.url(publicURL: publicURL, appID: appID, productID: product.id, sandbox: sandbox)
            }
        }
    }

    func productEntitlementMapping(appID: String) async throws -> [UInt8] {
        try await cached(.init(appID: appID, document: "mapping")) { _, products in OfferingsDocument.productEntitlementMapping(products) }
    }

    private func cached(
        _ key: OfferingsCache.Key, write: @Sendable ([Offering], [Product]) -> [UInt8]
    ) async throws -> [UInt8] {
        // Read before the catalog, so an entry is never older than its version.
        guard let version = try await store.catalogVersion(appID: key.appID) else { throw APIError.notFound("app '\(key.appID)' not found") }
        if let bytes = cache.lookup(key, version: version) { return bytes }
        let (offerings, products) = try await store.catalog(appID: key.appID)
        let bytes = write(offerings, products)
        cache.store(key, version: version, bytes: bytes)
        return bytes
    }
}

/// Written documents per app and kind, each valid for one catalog version.
final class OfferingsCache: Sendable {
    struct Key: Hashable {
        let appID: String
        let document: String
    }

    private let entries = NIOLockedValueBox([Key: (version: Int64, bytes: [UInt8])]())

    func lookup(_ key: Key, version: Int64) -> [UInt8]? {
        entries.withLockedValue { $0[key] }.flatMap { $0.version == version ? $0.bytes : nil }
    }

    func store(_ key: Key, version: Int64, bytes: [UInt8]) {
        entries.withLockedValue { entries in
            if entries.count >= 10_000 { entries.removeAll(keepingCapacity: true) }
            entries[key] = (version, bytes)
        }
    }
}

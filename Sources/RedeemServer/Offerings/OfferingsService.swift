import Foundation
import NIOConcurrencyHelpers
import NIOCore
import RedeemCore

/// Offerings and the product-entitlement mapping as RevenueCat's SDKs read them (`OfferingsDocument`), written once per
/// app, store and key kind and kept in memory while the app's catalog version is unchanged. A request costs one small
/// read, as `/health`'s does: the version on PostgreSQL, SQLite's commit counter while nothing has been committed since
/// the version was last read.
struct OfferingsService: Sendable {
    let store: any OfferingsStore
    let cache: OfferingsCache
    let publicURL: URL

    /// `sandbox`: a sandbox key asked, so packages link to the sandbox checkout.
    func offerings(appID: String, platform: StorePlatform, sandbox: Bool) async throws -> ByteBuffer {
        try await cached(appID: appID, document: .offerings(platform, sandbox: sandbox)) { offerings, products in
            let byID = Dictionary(products.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
            return OfferingsDocument.offerings(offerings, products: byID, platform: platform) { product in
                product.price == nil ? nil : PurchaseLinks.url(publicURL: publicURL, appID: appID, productID: product.id, sandbox: sandbox)
            }
        }
    }

    func productEntitlementMapping(appID: String) async throws -> ByteBuffer {
        try await cached(appID: appID, document: .mapping) { _, products in OfferingsDocument.productEntitlementMapping(products) }
    }

    private func cached(
        appID: String, document: OfferingsCache.Document, write: @Sendable ([Offering], [Product]) -> [UInt8]
    ) async throws -> ByteBuffer {
        // The token and the version are read before the catalog, so an entry is never older than its version.
        let token = try await store.changeToken()
        let version: Int64
        if let token, let known = cache.version(appID: appID, token: token) {
            version = known
        } else {
            guard let read = try await store.catalogVersion(appID: appID) else { throw APIError.notFound("app '\(appID)' not found") }
            version = read
            if let token { cache.confirm(appID: appID, version: read, token: token) }
        }
        if let bytes = cache.lookup(appID: appID, document: document, version: version) { return bytes }
        let (offerings, products) = try await store.catalog(appID: appID)
        let bytes = ByteBuffer(bytes: write(offerings, products))
        cache.store(appID: appID, document: document, version: version, bytes: bytes)
        return bytes
    }
}

/// Written documents per app, each valid for one catalog version; on SQLite, the commit counter at which each app's
/// version was last read.
final class OfferingsCache: Sendable {
    enum Document: Hashable, Sendable {
        case offerings(StorePlatform, sandbox: Bool)
        case mapping
    }

    private struct Key: Hashable {
        let appID: String
        let document: Document
    }

    private struct State {
        var documents: [Key: (version: Int64, bytes: ByteBuffer)] = [:]
        var versions: [String: (version: Int64, token: UInt64)] = [:]
    }

    private let state = NIOLockedValueBox(State())

    func version(appID: String, token: UInt64) -> Int64? {
        state.withLockedValue { $0.versions[appID] }.flatMap { $0.token == token ? $0.version : nil }
    }

    func confirm(appID: String, version: Int64, token: UInt64) {
        state.withLockedValue { state in
            if state.versions.count >= 10_000 { state.versions.removeAll(keepingCapacity: true) }
            state.versions[appID] = (version, token)
        }
    }

    func lookup(appID: String, document: Document, version: Int64) -> ByteBuffer? {
        state.withLockedValue { $0.documents[Key(appID: appID, document: document)] }.flatMap { $0.version == version ? $0.bytes : nil }
    }

    func store(appID: String, document: Document, version: Int64, bytes: ByteBuffer) {
        state.withLockedValue { state in
            if state.documents.count >= 10_000 { state.documents.removeAll(keepingCapacity: true) }
            state.documents[Key(appID: appID, document: document)] = (version, bytes)
        }
    }
}

import Foundation
import NIOConcurrencyHelpers
import NIOCore
import RedeemCore

/// Offerings and the product-entitlement mapping as RevenueCat's SDKs read them (`OfferingsDocument`), written once per
/// app, store, key kind and current offering, and kept in memory while the app's catalog version is unchanged. A request
/// costs one small read, as `/health`'s does: the version (with the user's offering override) on PostgreSQL; on SQLite,
/// none while nothing has been committed since the version was last read and no customer of the app has an override.
struct OfferingsService: Sendable {
    let store: any OfferingsStore
    let cache: OfferingsCache
    let publicURL: URL

    /// `sandbox`: a sandbox key asked, so packages link to the sandbox checkout. `appUserID`'s offering override, if
    /// any, is the current offering.
    func offerings(appID: String, appUserID: String, platform: StorePlatform, sandbox: Bool) async throws -> ByteBuffer {
        let facts = try await facts(appID: appID, appUserID: appUserID)
        let document = OfferingsCache.Document.offerings(platform, sandbox: sandbox, override: facts.override)
        return try await cached(appID: appID, document: document, version: facts.version) { offerings, products in
            let byID = Dictionary(products.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
            return OfferingsDocument.offerings(offerings, products: byID, platform: platform, override: facts.override) { product in
                product.price == nil ? nil : PurchaseLinks.url(publicURL: publicURL, appID: appID, productID: product.id, sandbox: sandbox)
            }
        }
    }

    func productEntitlementMapping(appID: String) async throws -> ByteBuffer {
        let version = try await facts(appID: appID, appUserID: nil).version
        return try await cached(appID: appID, document: .mapping, version: version) { _, products in
            OfferingsDocument.productEntitlementMapping(products)
        }
    }

    /// The catalog's version and `appUserID`'s override. The token and the version are read before the catalog, so an
    /// entry is never older than its version.
    private func facts(appID: String, appUserID: String?) async throws -> (version: Int64, override: String?) {
        let token = try await store.changeToken()
        if let token, let known = cache.known(appID: appID, token: token), appUserID == nil || !known.anyOverride {
            return (known.version, nil)
        }
        guard let facts = try await store.offeringsFacts(appID: appID, appUserID: appUserID ?? "") else {
            throw APIError.notFound("app '\(appID)' not found")
        }
        if let token { cache.confirm(appID: appID, version: facts.catalogVersion, anyOverride: facts.anyOverride, token: token) }
        return (facts.catalogVersion, facts.override)
    }

    private func cached(
        appID: String, document: OfferingsCache.Document, version: Int64, write: @Sendable ([Offering], [Product]) -> [UInt8]
    ) async throws -> ByteBuffer {
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
        /// `override`: the user's chosen current offering, nil for the app's own.
        case offerings(StorePlatform, sandbox: Bool, override: String?)
        case mapping
    }

    private struct Key: Hashable {
        let appID: String
        let document: Document
    }

    private struct State {
        var documents: [Key: (version: Int64, bytes: ByteBuffer)] = [:]
        var versions: [String: Known] = [:]
    }

    private let state = NIOLockedValueBox(State())

    /// What was read of an app at a commit count.
    struct Known {
        let version: Int64
        let anyOverride: Bool
        let token: UInt64
    }

    /// What was read of the app, if nothing has been committed since.
    func known(appID: String, token: UInt64) -> Known? {
        state.withLockedValue { $0.versions[appID] }.flatMap { $0.token == token ? $0 : nil }
    }

    func confirm(appID: String, version: Int64, anyOverride: Bool, token: UInt64) {
        state.withLockedValue { state in
            if state.versions.count >= 10_000 { state.versions.removeAll(keepingCapacity: true) }
            state.versions[appID] = Known(version: version, anyOverride: anyOverride, token: token)
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

import Foundation
import NIOConcurrencyHelpers
import RedeemCore

/// Keys by hash, remembered for a few seconds so hot routes skip the lookup.
/// A revocation in this process takes effect at once; in another instance, within `ttl`.
public final class KeyCache: Sendable {
    let store: any KeyStore
    let ttl: TimeInterval
    private let entries = NIOLockedValueBox([String: (key: APIKey?, fetched: Date)]())

    public init(store: any KeyStore, ttl: TimeInterval = 5) {
        self.store = store
        self.ttl = ttl
    }

    func key(hash: String) async throws -> APIKey? {
        let now = Date()
        if let entry = entries.withLockedValue({ $0[hash] }), now.timeIntervalSince(entry.fetched) < ttl {
            return entry.key
        }
        let key = try await store.activeKey(hash: hash)
        entries.withLockedValue { entries in
            if entries.count > 10_000 { entries.removeAll() }
            entries[hash] = (key, now)
        }
        return key
    }

    func invalidateAll() { entries.withLockedValue { $0.removeAll() } }
}

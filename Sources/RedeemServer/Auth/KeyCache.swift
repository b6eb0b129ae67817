import Foundation
import NIOConcurrencyHelpers
import RedeemCore

/// Keys by hash, remembered for a few seconds so hot routes skip the lookup; and when each key was last used, gathered
/// here and written in batches by `KeyUseWriter` (a write per request would cost the hot routes).
/// A revocation in this process takes effect at once; in another instance, within `ttl`.
public final class KeyCache: Sendable {
    let store: any KeyStore
    let ttl: TimeInterval

    private struct State {
        var entries: [String: (key: APIKey?, fetched: Date)] = [:]
        /// Key ID → the latest use not yet written.
        var uses: [String: Date] = [:]
    }

    private let state = NIOLockedValueBox(State())

    public init(store: any KeyStore, ttl: TimeInterval = 5) {
        self.store = store
        self.ttl = ttl
    }

    func key(hash: String) async throws -> APIKey? {
        let now = Date()
        let cached: APIKey?? = state.withLockedValue { state in
            guard let entry = state.entries[hash], now.timeIntervalSince(entry.fetched) < ttl else { return .none }
            if let key = entry.key { state.uses[key.id] = now }
            return .some(entry.key)
        }
        if let cached { return cached }
        let key = try await store.activeKey(hash: hash)
        state.withLockedValue { state in
            if state.entries.count > 10_000 { state.entries.removeAll() }
            state.entries[hash] = (key, now)
            if let key { state.uses[key.id] = now }
        }
        return key
    }

    func invalidateAll() { state.withLockedValue { $0.entries.removeAll() } }

    /// The uses gathered since the last call.
    func takeUses() -> [String: Date] {
        state.withLockedValue { state in
            defer { state.uses.removeAll(keepingCapacity: true) }
            return state.uses
        }
    }

    /// Uses that could not be written, back for the next try (a newer use wins).
    func restoreUses(_ uses: [String: Date]) {
        state.withLockedValue { state in state.uses.merge(uses) { max($0, $1) } }
    }

    /// Writes the uses gathered so far; on failure they are kept for the next call, and the error is thrown.
    func writeUses() async throws {
        let uses = takeUses()
        guard !uses.isEmpty else { return }
        do {
            try await store.recordKeyUses(uses)
        } catch {
            restoreUses(uses)
            throw error
        }
    }
}

import NIOConcurrencyHelpers
import RedeemStore

/// The customer and catalog versions the database has announced to this instance (PostgreSQL, migration 31), and how
/// fresh that knowledge is. A cached Customer Info is served without reading its tag only while the listener is
/// connected, its last ping came back less than `window` ago (so every version committed before then has been heard),
/// and the entry's versions equal the ones heard. Anything else (no listener, reconnecting, stalled, a customer never
/// heard of) falls back to the tag read, which teaches the map the versions it read.
///
/// So a write on another instance shows here within `window` (in practice within the notification's sub-millisecond
/// trip), no longer on the very next request.
final class CustomerVersions: Sendable {
    private struct State {
        var listening = false
        /// Moves whenever what is known may have missed an announcement (reconnect, loss, forgetting).
        var generation: UInt64 = 0
        var caughtUpAt: ContinuousClock.Instant?
        var customers: [String: Int64] = [:]
        var catalogs: [String: Int64] = [:]

        /// Versions only grow (a row lock orders a customer's updates), so an announcement and a read racing each
        /// other leave the later version.
        mutating func raise(_ map: WritableKeyPath<State, [String: Int64]>, _ key: String, to version: Int64) {
            if let known = self[keyPath: map][key], known >= version { return }
            self[keyPath: map][key] = version
        }

        /// Past `capacity` everything is forgotten (lookups fall back and learn again); a read in flight learns nothing.
        mutating func makeRoom(capacity: Int) {
            guard customers.count + catalogs.count >= capacity else { return }
            customers.removeAll(keepingCapacity: true)
            catalogs.removeAll(keepingCapacity: true)
            generation &+= 1
        }
    }

    private let state = NIOLockedValueBox(State())
    let window: Duration
    let capacity: Int

    init(window: Duration = .milliseconds(250), capacity: Int = 200_000) {
        self.window = window
        self.capacity = capacity
    }

    func apply(_ event: CustomerVersionEvent) {
        state.withLockedValue { state in
            switch event {
            case .listening, .lost:
                state = State(listening: event == .listening, generation: state.generation &+ 1)
            case .caughtUp(let sentAt):
                if state.listening { state.caughtUpAt = max(state.caughtUpAt ?? sentAt, sentAt) }
            case .customer(let id, let version):
                state.makeRoom(capacity: capacity)
                state.raise(\.customers, id, to: version)
            case .catalog(let appID, let version):
                state.makeRoom(capacity: capacity)
                state.raise(\.catalogs, appID, to: version)
            }
        }
    }

    /// Taken right before a tag read: with it, `learn` may record what the read found, since any later commit will be
    /// announced to a listener that was already listening.
    func readStarts() -> UInt64? {
        state.withLockedValue { $0.listening ? $0.generation : nil }
    }

    /// Records the versions a tag read found, unless the listener lost anything since `readStarts`.
    func learn(_ tag: CustomerInfoTag, appID: String, since generation: UInt64?) {
        guard let generation, let customerID = tag.customerID else { return }
        state.withLockedValue { state in
            guard state.listening, state.generation == generation else { return }
            state.makeRoom(capacity: capacity)
            guard state.generation == generation else { return }
            state.raise(\.customers, customerID, to: tag.infoVersion)
            state.raise(\.catalogs, appID, to: tag.catalogVersion)
        }
    }

    /// Whether `tag` (what a cached entry was built on) is still the latest the database announced, as of `now`.
    /// `writtenHereAt`: when this instance's latest write ended; until a ping sent after it has come back, its
    /// announcement may still be on its way, and this instance must read its own writes at once.
    func isCurrent(
        _ tag: CustomerInfoTag, appID: String, now: ContinuousClock.Instant = .now, writtenHereAt: ContinuousClock.Instant? = nil
    ) -> Bool {
        guard let customerID = tag.customerID else { return false }
        return state.withLockedValue { state in
            guard state.listening, let caughtUpAt = state.caughtUpAt, now - caughtUpAt <= window else { return false }
            if let writtenHereAt, caughtUpAt <= writtenHereAt { return false }
            return state.customers[customerID] == tag.infoVersion && state.catalogs[appID] == tag.catalogVersion
        }
    }
}

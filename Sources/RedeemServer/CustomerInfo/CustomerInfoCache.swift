import Foundation
import Hummingbird
import NIOConcurrencyHelpers
import RedeemCore
import RedeemStore

/// Rendered `subscriber` JSON per (app, app user ID), valid while the store's tag for it is unchanged.
///
/// CustomerInfo's `subscriber` does not depend on the request time (clients judge expiry against
/// `request_date`), so a hit only needs the store to confirm nothing it depends on was committed since it was filled.
/// Entries also lapse when `last_seen` is due a refresh, so that refresh still reaches the store.
final class CustomerInfoCache: Sendable {

    struct Key: Hashable {
        let appID: String
        let appUserID: String
        var withAttributes = false
    }

    struct Entry {
        let tag: CustomerInfoTag
        let refreshDue: Date
        let subscriber: ByteBuffer
    }

    private let entries = NIOLockedValueBox([Key: Entry]())
    let capacity: Int

    init(capacity: Int = 50_000) { self.capacity = capacity }

    func lookup(_ key: Key, tag: CustomerInfoTag, now: Date) -> ByteBuffer? {
        guard let entry = entries.withLockedValue({ $0[key] }), entry.tag == tag, now < entry.refreshDue else { return nil }
        return entry.subscriber
    }

    /// The entry for `key` while `last_seen` needs no refresh, whatever its tag: the caller judges the tag.
    func entry(_ key: Key, now: Date) -> Entry? {
        guard let entry = entries.withLockedValue({ $0[key] }), now < entry.refreshDue else { return nil }
        return entry
    }

    /// `tag` must have been read before the data the entry was built from.
    func store(_ key: Key, tag: CustomerInfoTag, info: CustomerInfo, subscriber: ByteBuffer) {
        let lastSeen = ISODate.parse(info.subscriber.lastSeen) ?? .distantPast
        let entry = Entry(tag: tag, refreshDue: lastSeen.addingTimeInterval(Customer.lastSeenResolution), subscriber: subscriber)
        entries.withLockedValue { entries in
            if entries.count >= capacity { entries.removeAll(keepingCapacity: true) }
            entries[key] = entry
        }
    }
}

import Foundation
import NIOConcurrencyHelpers
import RedeemCore
import RedeemStore
import RedeemTestSupport
import Testing

@testable import RedeemServer

/// Two stores on one PostgreSQL database stand for two instances. Instance A serves Customer Info from memory while
/// its listener is connected and caught up; a write through B reaches A's next read once A has heard of it, and with
/// the listener stopped A reads the tag again, so B's writes show at once.
@Suite struct CustomerVersionFeedTests {
    /// Counts the tag reads: a request served from memory makes none.
    final class CountingStore: CustomerInfoStore {
        let store: SQLStore
        let tagReads = NIOLockedValueBox(0)
        init(_ store: SQLStore) { self.store = store }

        func customerInfoTag(appID: String, appUserID: AppUserID) async throws -> CustomerInfoTag? {
            tagReads.withLockedValue { $0 += 1 }
            return try await store.customerInfoTag(appID: appID, appUserID: appUserID)
        }
        func customerInfo(appID: String, appUserID: AppUserID, now: Date) async throws -> CustomerInfo {
            try await store.customerInfo(appID: appID, appUserID: appUserID, now: now)
        }
        func subscriberAttributes(appID: String, appUserID: AppUserID) async throws -> [String: SubscriberAttribute] {
            try await store.subscriberAttributes(appID: appID, appUserID: appUserID)
        }
        func watchCustomerVersions(_ sink: @escaping @Sendable (CustomerVersionEvent) -> Void) async -> Bool {
            await store.watchCustomerVersions(sink)
        }
        var lastWriteFinished: ContinuousClock.Instant? { store.lastWriteFinished }
    }

    /// The events the feed applied, to wait on (never a fixed sleep); a wait gives up after 20 s.
    final class Heard: Sendable {
        private let events = NIOLockedValueBox([CustomerVersionEvent]())
        func record(_ event: CustomerVersionEvent) { events.withLockedValue { $0.append(event) } }
        var count: Int { events.withLockedValue { $0.count } }
        static func isCaughtUp(_ event: CustomerVersionEvent) -> Bool { if case .caughtUp = event { true } else { false } }

        /// Waits until, after the first `from` events, one matches `match` and a ping sent after it came back.
        func wait(from: Int = 0, for match: @escaping (CustomerVersionEvent) -> Bool) async throws {
            let deadline = ContinuousClock.now + .seconds(20)
            while ContinuousClock.now < deadline {
                let seen = events.withLockedValue { Array($0.dropFirst(from)) }
                if let index = seen.firstIndex(where: match), seen[(index + 1)...].contains(where: Self.isCaughtUp) { return }
                try await Task.sleep(for: .milliseconds(2))
            }
            Issue.record("not heard within 20 s")
            throw CancellationError()
        }
    }

    @Test(.enabled(if: TestDatabases.postgresConfigured, "needs REDEEM_TEST_POSTGRES_URL"))
    func aWriteOnAnotherInstanceShowsOnceHeardAndTheTagIsReadWhenTheListenerStops() async throws {
        try await TestDatabases.withTwoStores(.postgres) { storeA, storeB in
            let clock = ManualClock(TestServer.start)
            let admin = AdminService(store: storeB, clock: clock, actor: "test")
            var changes = AppChanges()
            changes.name = "A"
            let appID = try await admin.createApp(changes).app.id
            for (id, entitlement) in [("life", "pro"), ("extra", "more")] {
                _ = try await admin.createProduct(appID: appID, ProductInput(id: id, type: "non_consumable", entitlements: [entitlement]))
            }
            let counting = CountingStore(storeA)
            // The window is the one bound in time (its own tests, `CustomerVersionsTests`, pass `now`); an hour here
            // keeps this test about what was heard, however slowly a loaded machine runs it.
            let versions = CustomerVersions(window: .seconds(3600))
            let heard = Heard()
            // While held, what the listener hears is recorded but not applied: as if the announcement were still on its way.
            let held = NIOLockedValueBox(false)
            let service = CustomerInfoService(store: counting, cache: CustomerInfoCache(), versions: versions, clock: clock, managementURL: { $0 })
            let bob = try AppUserID(validating: "bob")
            func entitlements() async throws -> [String] {
                let response = try await service.customerInfo(appID: appID, appUserID: bob)
                let json = try JSONSerialization.jsonObject(with: Data(String(buffer: response.subscriber).utf8)) as? [String: Any]
                return ((json?["entitlements"] as? [String: Any]) ?? [:]).keys.sorted()
            }
            func tagReads(_ body: () async throws -> [String]) async throws -> ([String], Int) {
                let before = counting.tagReads.withLockedValue { $0 }
                let result = try await body()
                return (result, counting.tagReads.withLockedValue { $0 } - before)
            }

            let feed = Task {
                await counting.watchCustomerVersions { event in
                    if !held.withLockedValue({ $0 }) { versions.apply(event) }
                    heard.record(event)
                }
            }
            try await heard.wait { $0 == .listening }
            #expect(try await tagReads(entitlements) == ([], 1))  // first sight: no tag yet, nothing cached
            #expect(try await tagReads(entitlements) == ([], 1))  // the tag read fills the cache and teaches the version
            try await heard.wait(from: heard.count, for: Heard.isCaughtUp)  // the first sight's own write is heard
            #expect(try await tagReads(entitlements) == ([], 0))  // from memory

            let mark = heard.count
            _ = try await storeB.grant(
                PurchaseGrant(appID: appID, appUserID: bob, productID: "life", purchaseDate: clock.now()), idempotency: nil, now: clock.now())
            try await heard.wait(from: mark) { if case .customer = $0 { true } else { false } }
            #expect(try await tagReads(entitlements) == (["pro"], 1))  // the entry is older than what was heard
            #expect(try await tagReads(entitlements) == (["pro"], 0))

            // A catalog change elsewhere is heard too.
            let catalogMark = heard.count
            _ = try await admin.updateProduct(appID: appID, id: "life", ProductUpdate(entitlements: ["pro", "more"]))
            try await heard.wait(from: catalogMark) { if case .catalog = $0 { true } else { false } }
            #expect(try await tagReads(entitlements) == (["more", "pro"], 1))
            #expect(try await tagReads(entitlements) == (["more", "pro"], 0))

            // This instance's own write shows in its very next read, whether or not its announcement was heard yet.
            let carol = try AppUserID(validating: "carol")
            for _ in 0..<2 { _ = try await service.customerInfo(appID: appID, appUserID: carol) }
            try await heard.wait(from: heard.count, for: Heard.isCaughtUp)
            let cached = counting.tagReads.withLockedValue { $0 }
            _ = try await service.customerInfo(appID: appID, appUserID: carol)
            #expect(counting.tagReads.withLockedValue { $0 } == cached, "carol's entry is served from memory")
            held.withLockedValue { $0 = true }  // the grant's announcement and later pings are not applied yet
            _ = try await storeA.grant(
                PurchaseGrant(appID: appID, appUserID: carol, productID: "extra", purchaseDate: clock.now()), idempotency: nil, now: clock.now())
            let afterOwnWrite = try await service.customerInfo(appID: appID, appUserID: carol)
            #expect(String(buffer: afterOwnWrite.subscriber).contains("\"more\""))
            held.withLockedValue { $0 = false }
            try await heard.wait(from: heard.count, for: Heard.isCaughtUp)

            // The listener stops: every read asks again, and B's write shows in the very next one.
            feed.cancel()
            _ = await feed.value
            #expect(heard.count > 0)
            versions.apply(.lost)
            _ = try await admin.updateProduct(appID: appID, id: "life", ProductUpdate(entitlements: ["pro"]))
            #expect(try await tagReads(entitlements) == (["pro"], 1))
            _ = try await storeB.grant(
                PurchaseGrant(appID: appID, appUserID: bob, productID: "extra", purchaseDate: clock.now()), idempotency: nil, now: clock.now())
            #expect(try await tagReads(entitlements) == (["more", "pro"], 1))
            #expect(try await tagReads(entitlements) == (["more", "pro"], 1))
        }
    }
}

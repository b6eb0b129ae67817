import Foundation
import RedeemCore
import RedeemStore
import Testing

@testable import RedeemServer

/// The version map that lets a cached Customer Info skip its tag read on PostgreSQL: only while listening and caught
/// up within the window, and only with the latest versions announced or read.
@Suite struct CustomerVersionsTests {
    let tag = CustomerInfoTag(customerID: "cus_1", infoVersion: 4, catalogVersion: 2)
    let start = ContinuousClock.now

    func listening(window: Duration = .milliseconds(250), capacity: Int = 100) -> CustomerVersions {
        let versions = CustomerVersions(window: window, capacity: capacity)
        versions.apply(.listening)
        versions.apply(.caughtUp(sentAt: start))
        return versions
    }

    @Test func aReadTeachesTheVersionsAndAnAnnouncementMovesThem() {
        let versions = listening()
        #expect(!versions.isCurrent(tag, appID: "app", now: start))  // never heard of
        versions.learn(tag, appID: "app", since: versions.readStarts())
        #expect(versions.isCurrent(tag, appID: "app", now: start))
        versions.apply(.customer("cus_1", version: 5))
        #expect(!versions.isCurrent(tag, appID: "app", now: start))
        #expect(versions.isCurrent(CustomerInfoTag(customerID: "cus_1", infoVersion: 5, catalogVersion: 2), appID: "app", now: start))
        versions.apply(.catalog(appID: "app", version: 3))
        #expect(!versions.isCurrent(CustomerInfoTag(customerID: "cus_1", infoVersion: 5, catalogVersion: 2), appID: "app", now: start))
        versions.apply(.customer("cus_1", version: CustomerVersionEvent.gone))
        #expect(!versions.isCurrent(CustomerInfoTag(customerID: "cus_1", infoVersion: 5, catalogVersion: 3), appID: "app", now: start))
    }

    /// This instance's own write is read at once: what was heard is trusted again only once a ping sent after the write
    /// ended has come back (its announcement is then heard too).
    @Test func thisInstancesWriteIsTrustedOnlyAfterAPingSentLater() {
        let versions = listening()
        versions.learn(tag, appID: "app", since: versions.readStarts())
        #expect(versions.isCurrent(tag, appID: "app", now: start + .milliseconds(10), writtenHereAt: start - .milliseconds(1)))
        let written = start + .milliseconds(5)
        #expect(!versions.isCurrent(tag, appID: "app", now: start + .milliseconds(10), writtenHereAt: written))
        versions.apply(.caughtUp(sentAt: written))
        #expect(!versions.isCurrent(tag, appID: "app", now: start + .milliseconds(10), writtenHereAt: written))
        versions.apply(.caughtUp(sentAt: written + .milliseconds(1)))
        #expect(versions.isCurrent(tag, appID: "app", now: start + .milliseconds(10), writtenHereAt: written))
    }

    /// An announcement heard while a read was on its way is newer than what the read found: the read cannot lower it.
    @Test func aSlowReadNeverLowersAVersionAnnounced() {
        let versions = listening()
        let generation = versions.readStarts()
        versions.apply(.customer("cus_1", version: 5))
        versions.learn(tag, appID: "app", since: generation)
        #expect(!versions.isCurrent(tag, appID: "app", now: start))
    }

    /// Stale knowledge is never trusted: not after the window, not while disconnected or reconnecting, and a read that
    /// started before a reconnect teaches nothing (announcements may have been missed meanwhile).
    @Test func theWindowAndTheConnectionBoundWhatIsTrusted() {
        let versions = listening()
        versions.learn(tag, appID: "app", since: versions.readStarts())
        #expect(versions.isCurrent(tag, appID: "app", now: start + .milliseconds(250)))
        #expect(!versions.isCurrent(tag, appID: "app", now: start + .milliseconds(251)))
        versions.apply(.caughtUp(sentAt: start + .milliseconds(200)))
        #expect(versions.isCurrent(tag, appID: "app", now: start + .milliseconds(400)))

        let generation = versions.readStarts()
        versions.apply(.lost)
        #expect(!versions.isCurrent(tag, appID: "app", now: start))
        #expect(versions.readStarts() == nil)
        versions.apply(.listening)
        versions.apply(.caughtUp(sentAt: start))
        versions.learn(tag, appID: "app", since: generation)
        #expect(!versions.isCurrent(tag, appID: "app", now: start))
        versions.learn(tag, appID: "app", since: versions.readStarts())
        #expect(versions.isCurrent(tag, appID: "app", now: start))
    }

    /// A caught-up report from before a reconnect is not one: only pings answered on the new connection count.
    @Test func notCaughtUpUntilAPingReturnsAfterListening() {
        let versions = listening()
        versions.apply(.listening)
        versions.learn(tag, appID: "app", since: versions.readStarts())
        #expect(!versions.isCurrent(tag, appID: "app", now: start))
        versions.apply(.caughtUp(sentAt: start))
        #expect(versions.isCurrent(tag, appID: "app", now: start))
    }

    @Test func pastCapacityEverythingIsForgottenAndAReadInFlightLearnsNothing() {
        let versions = listening(capacity: 3)
        versions.learn(tag, appID: "app", since: versions.readStarts())  // two entries: the customer and the catalog
        let generation = versions.readStarts()
        versions.apply(.customer("cus_2", version: 1))  // the third
        versions.apply(.customer("cus_3", version: 1))  // forgets all, then keeps this one
        #expect(!versions.isCurrent(tag, appID: "app", now: start))
        versions.learn(tag, appID: "app", since: generation)
        #expect(!versions.isCurrent(tag, appID: "app", now: start))
    }

    @Test func payloadsOfMigration31() {
        #expect(CustomerVersionEvent.parse("c 12 cus_a b") == .customer("cus_a b", version: 12))
        #expect(CustomerVersionEvent.parse("c gone cus_a") == .customer("cus_a", version: CustomerVersionEvent.gone))
        #expect(CustomerVersionEvent.parse("a 3 app_x") == .catalog(appID: "app_x", version: 3))
        #expect(CustomerVersionEvent.parse("a gone app_x") == .catalog(appID: "app_x", version: CustomerVersionEvent.gone))
        #expect(CustomerVersionEvent.parse("ping 1 2") == nil)
        #expect(CustomerVersionEvent.parse("c x cus_a") == nil)
        #expect(CustomerVersionEvent.parse("c 1") == nil)
    }
}

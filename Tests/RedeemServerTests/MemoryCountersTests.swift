import Foundation
import RedeemCore
import RedeemTestSupport
import Testing

@testable import RedeemServer

/// A single SQLite server's rate-limit counters: fixed windows, as the database counts them, holding only the current
/// window's buckets.
@Suite struct MemoryCountersTests {
    let start = TestServer.start  // a whole minute

    @Test func countsEachBucketOncePerHitWithinItsWindow() {
        let counters = MemoryCounters()
        #expect(counters.hit(buckets: ["ip", "user:a", "ip"], window: 60, now: start).hits == ["ip": 1, "user:a": 1])
        let second = counters.hit(buckets: ["ip", "user:b"], window: 60, now: start.addingTimeInterval(59.9))
        #expect(second.hits == ["ip": 2, "user:b": 1])
        #expect(second.windowEnds == start.addingTimeInterval(60))
        // The next window starts again from one.
        let next = counters.hit(buckets: ["ip"], window: 60, now: start.addingTimeInterval(60))
        #expect(next.hits == ["ip": 1])
        #expect(next.windowEnds == start.addingTimeInterval(120))
    }

    /// However many buckets a window filled, the first hit of the next window drops them all, and until then every one
    /// keeps its count.
    @Test func aNewWindowDropsTheEndedWindowsBuckets() {
        let counters = MemoryCounters()
        for n in 0..<150_000 { _ = counters.hit(buckets: ["user:\(n)"], window: 60, now: start.addingTimeInterval(Double(n % 50))) }
        #expect(counters.bucketCount == 150_000)
        #expect(counters.hit(buckets: ["user:0"], window: 60, now: start.addingTimeInterval(59)).hits == ["user:0": 2])
        #expect(counters.hit(buckets: ["user:1"], window: 60, now: start.addingTimeInterval(60)).hits == ["user:1": 1])
        #expect(counters.bucketCount == 1)
    }

    /// A hit whose time was read just before the window turned, but counted after a later hit, counts in the new
    /// window: it never resets a bucket, and it is told when the window it counted in ends.
    @Test func aLateHitCountsInTheCurrentWindow() {
        let counters = MemoryCounters()
        _ = counters.hit(buckets: ["ip"], window: 60, now: start.addingTimeInterval(60))
        let late = counters.hit(buckets: ["ip"], window: 60, now: start.addingTimeInterval(59.99))
        #expect(late.hits == ["ip": 2])
        #expect(late.windowEnds == start.addingTimeInterval(120))
    }

    /// Limits with different windows count apart: one's window turning drops nothing of the other's.
    @Test func windowsOfDifferentLengthsAreKeptApart() {
        let counters = MemoryCounters()
        _ = counters.hit(buckets: ["hourly"], window: 3600, now: start)
        _ = counters.hit(buckets: ["minute"], window: 60, now: start)
        _ = counters.hit(buckets: ["minute"], window: 60, now: start.addingTimeInterval(61))
        #expect(counters.hit(buckets: ["hourly"], window: 3600, now: start.addingTimeInterval(62)).hits == ["hourly": 2])
        #expect(counters.bucketCount == 2)
    }
}

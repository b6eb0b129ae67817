import Foundation
import RedeemCore
import Testing

/// Every rate-limit counter cuts time into the same windows.
@Suite struct FixedWindowTests {
    @Test func windowsStartAtWholeMultiplesOfTheirLength() {
        let edge = Date(milliseconds: 1_800_000_060_000)  // a whole number of minutes since 1970
        let at = FixedWindow(length: 60, containing: edge)
        #expect(at.start == 1_800_000_060_000)
        #expect(at.ends == Date(milliseconds: 1_800_000_120_000))
        #expect(FixedWindow(length: 60, containing: edge.addingTimeInterval(59.999)) == at)
        #expect(FixedWindow(length: 60, containing: edge.addingTimeInterval(-0.001)).ends == edge)
        #expect(FixedWindow(length: 60, containing: edge.addingTimeInterval(60)).start == 1_800_000_120_000)
    }
}

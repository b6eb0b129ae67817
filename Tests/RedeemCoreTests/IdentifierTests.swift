import Foundation
import RedeemCore
import Testing

@Suite struct IdentifierTests {
    @Test func prefixTimeThenRandom() {
        let now = Date(timeIntervalSince1970: 1_763_800_000.123)
        let id = Identifier.make(prefix: "cus", now: now)
        #expect(id.hasPrefix("cus_"))
        let digits = id.dropFirst(4)
        #expect(digits.count == 28)
        let allHex = digits.allSatisfy { $0.isHexDigit }
        #expect(allHex)
        #expect(UInt64(digits.prefix(12), radix: 16) == 1_763_800_000_123)
    }

    @Test func laterIDsSortAfterEarlierOnes() {
        let start = Date(timeIntervalSince1970: 1_763_800_000)
        let ids = (0..<1000).map { Identifier.make(prefix: "att", now: start.addingTimeInterval(Double($0) / 100)) }
        // 10 ms apart: each later ID sorts after every earlier one, as B-tree keys.
        #expect(ids == ids.sorted())
    }

    @Test func sameMillisecondStillUnique() {
        let now = Date()
        let ids = (0..<10_000).map { _ in Identifier.make(prefix: "att", now: now) }
        #expect(Set(ids).count == ids.count)
    }
}

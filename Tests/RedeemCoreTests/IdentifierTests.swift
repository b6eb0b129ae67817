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

    /// One request's ID names one row: every submit alike, another request or another scope (another app) not.
    @Test func aDerivedIDIsTheSameForOneRequestAndScopeOnly() {
        let form = "Zq3v9Xk2Lw8Rt5Yp1Ns7Cd"
        let id = Identifier.derived(prefix: "whk", scope: "webhook-request:app_a", from: form)
        #expect(id.hasPrefix("whk_") && id.dropFirst(4).count == 28 && id.dropFirst(4).allSatisfy(\.isHexDigit))
        #expect(id == Identifier.derived(prefix: "whk", scope: "webhook-request:app_a", from: form))
        #expect(id != Identifier.derived(prefix: "whk", scope: "webhook-request:app_a", from: form + "x"))
        #expect(id != Identifier.derived(prefix: "whk", scope: "webhook-request:app_b", from: form))
        #expect(!id.contains(form))
    }
}

import Foundation
import RedeemCore
import Testing

/// The fast paths a batch of codes takes (in place, counting sort) give what the plain ones give.
@Suite struct OfferCodeChunkTests {
    @Test func digestsSortAsSortedDoes() {
        for count in [0, 1, 2, 3, 17, 1000, 50_000] {
            let digests = OfferCodeChunk(count: count, length: 16).digests()
            let same = CodeDigest.sorted(digests) == digests.sorted()  // one line when it fails, not 50,000 digests
            #expect(same, "\(count) digests")
        }
        // Equal top bits (no SHA-256 output, but the order must hold anyway).
        let crowded = (0..<500).map { _ in
            var d = OfferCodeChunk(count: 1, length: 16).digests()[0]
            d.high &= 0x0000_0000_FFFF_FFFF
            return d
        }
        #expect(CodeDigest.sorted(crowded) == crowded.sorted())
    }

    @Test func codesAreWrittenInPlaceAsOfferCodeWritesThem() {
        for length in OfferCode.lengths {
            let chunk = OfferCodeChunk(count: 20, length: length)
            for i in 0..<chunk.count {
                let written = [UInt8](unsafeUninitializedCapacity: 2 * length + 3) { out, initialized in
                    initialized = chunk.writeGrouped(i, to: out.baseAddress!)
                    initialized += chunk.writeCode(i, to: out.baseAddress! + initialized)
                }
                #expect(written == Array((OfferCode.grouped(chunk.code(i)) + chunk.code(i)).utf8))
                #expect(String(decoding: written.prefix(length + 3), as: UTF8.self) == OfferCode.grouped(chunk.code(i)))
            }
        }
    }

    @Test func hexIsWrittenInPlaceAsTheStoredHash() {
        let chunk = OfferCodeChunk(count: 10, length: 16)
        for (i, digest) in chunk.digests().enumerated() {
            #expect(digest.hex == OfferCode.storedHash(chunk.code(i)))
            #expect(digest.hex == String(SecretToken.hash(chunk.code(i)).prefix(32)))
        }
    }
}

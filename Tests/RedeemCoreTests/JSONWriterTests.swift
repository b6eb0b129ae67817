import Foundation
import Testing

@testable import RedeemCore

/// `JSONWriter` must write what the server's `JSONEncoder` writes (sorted keys, slashes unescaped), byte for byte.
@Suite struct JSONWriterTests {
    static func encoded<T: Encodable>(_ value: T) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(value), as: UTF8.self)
    }

    static func written(_ write: (inout JSONWriter) -> Void) -> String {
        var writer = JSONWriter()
        write(&writer)
        return String(decoding: writer.bytes, as: UTF8.self)
    }

    /// A seeded generator, so a failure can be replayed.
    struct SplitMix: RandomNumberGenerator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }

    /// Strings that reach every escape: quotes, backslashes, slashes, control characters, DEL, non-ASCII, emoji,
    /// a combining accent (not in NFC) and the line separators JavaScript cares about.
    static func randomString(_ rng: inout SplitMix) -> String {
        let pieces = [
            "a", "Z", "0", "9", "_", "-", " ", "\"", "\\", "/", "\n", "\r", "\t", "\u{8}", "\u{C}", "\u{0}", "\u{1}", "\u{1F}",
            "\u{7F}", "é", "e\u{301}", "ß", "日本", "😀", "\u{2028}", "\u{2029}", "$RCAnonymousID:", "pro", "P1M",
        ]
        return (0..<Int.random(in: 0...8, using: &rng)).map { _ in pieces.randomElement(using: &rng)! }.joined()
    }

    static func randomOptional(_ rng: inout SplitMix) -> String? {
        Bool.random(using: &rng) ? randomString(&rng) : nil
    }

    @Test func stringsAreEscapedAsJSONEncoderEscapesThem() throws {
        var rng = SplitMix(state: 1)
        for _ in 0..<2_000 {
            let text = Self.randomString(&rng)
            #expect(Self.written { $0.string(text) } == (try Self.encoded(text)), "\(text.unicodeScalars.map { $0.value })")
        }
        #expect(Self.written { $0.string("a\"b\\c/d\u{1}\n") } == #""a\"b\\c/d\u0001\n""#)
    }

    @Test func numbersAndLiteralsAreWrittenAsJSONEncoderWritesThem() throws {
        let doubles: [Double] = [0, -0.0, 9.99, 9, 0.1, 1e-7, 1e15, 1e16, 1e21, 123_456_789.123, 1.0 / 3, -42.5, 1.5e300, 4.99, 1_000_000]
        for value in doubles {
            #expect(Self.written { $0.double(value) } == (try Self.encoded(value)))
        }
        var rng = SplitMix(state: 2)
        for _ in 0..<1_000 {
            let cents = Double(Int.random(in: -1_000_000...100_000_000, using: &rng)) / 100
            let any = Double.random(in: -1e12...1e12, using: &rng)
            #expect(Self.written { $0.double(cents) } == (try Self.encoded(cents)))
            #expect(Self.written { $0.double(any) } == (try Self.encoded(any)))
        }
        for value: Int64 in [0, -1, 1_790_000_000_000, .max, .min] {
            #expect(Self.written { $0.int(value) } == (try Self.encoded(value)))
        }
        for value in [Double.nan, .infinity, -.infinity] {
            #expect(Self.written { $0.double(value) } == "null")
        }
        #expect(Self.written { $0.bool(true) } == "true")
        #expect(Self.written { $0.string(nil as String?) } == "null")
    }

    @Test func dictionaryKeysAreSortedAsJSONEncoderSortsThem() throws {
        var rng = SplitMix(state: 3)
        for _ in 0..<300 {
            var dictionary: [String: Int64] = [:]
            for _ in 0..<Int.random(in: 0...6, using: &rng) { dictionary[Self.randomString(&rng)] = Int64.random(in: 0...9, using: &rng) }
            #expect(Self.written { $0.object(dictionary) { $0.int($1) } } == (try Self.encoded(dictionary)))
        }
        let tricky: [String: Int64] = ["a10": 1, "a9": 2, "B": 3, "a": 4, "_x": 5, "aB": 6, "a_b": 7, "é": 8, "e": 9]
        #expect(Self.written { $0.object(tricky) { $0.int($1) } } == (try Self.encoded(tricky)))
    }

    static func randomPrice(_ rng: inout SplitMix) -> CustomerInfo.PriceInfo? {
        Bool.random(using: &rng) ? .init(amount: Double(Int.random(in: 0...99_999, using: &rng)) / 100, currency: "USD") : nil
    }

    static func randomTransaction(_ rng: inout SplitMix) -> CustomerInfo.Transaction {
        .init(
            id: randomString(&rng), purchaseDate: randomString(&rng), originalPurchaseDate: randomString(&rng), store: randomString(&rng),
            isSandbox: .random(using: &rng), storeTransactionID: randomString(&rng), displayName: randomOptional(&rng),
            refundedAt: randomOptional(&rng), price: randomPrice(&rng))
    }

    static func randomSubscription(_ rng: inout SplitMix) -> CustomerInfo.SubscriptionInfo {
        let offer =
            Bool.random(using: &rng)
            ? PurchaseOffer(
                offerID: randomString(&rng), referenceName: randomString(&rng),
                discountType: [.freeTrial, .payAsYouGo, .payUpFront].randomElement(using: &rng)!, period: randomOptional(&rng)) : nil
        return .init(
            purchaseDate: randomString(&rng), originalPurchaseDate: randomString(&rng), expiresDate: randomOptional(&rng),
            store: randomString(&rng), isSandbox: .random(using: &rng), periodType: randomString(&rng), ownershipType: randomString(&rng),
            unsubscribeDetectedAt: randomOptional(&rng), billingIssuesDetectedAt: randomOptional(&rng),
            gracePeriodExpiresDate: randomOptional(&rng), refundedAt: randomOptional(&rng), autoResumeDate: randomOptional(&rng),
            storeTransactionID: randomString(&rng), displayName: randomOptional(&rng), price: randomPrice(&rng),
            managementURL: randomOptional(&rng), offer: offer)
    }

    static func randomDictionary<V>(_ rng: inout SplitMix, _ value: (inout SplitMix) -> V) -> [String: V] {
        var dictionary: [String: V] = [:]
        for _ in 0..<Int.random(in: 0...3, using: &rng) { dictionary[randomString(&rng)] = value(&rng) }
        return dictionary
    }

    static func randomCustomerInfo(_ rng: inout SplitMix) -> CustomerInfo {
        let subscriber = CustomerInfo.Subscriber(
            originalAppUserID: randomString(&rng), originalApplicationVersion: randomOptional(&rng),
            originalPurchaseDate: randomOptional(&rng), firstSeen: randomString(&rng), lastSeen: randomString(&rng),
            managementURL: randomOptional(&rng), subscriptions: randomDictionary(&rng, randomSubscription),
            nonSubscriptions: randomDictionary(&rng) { rng in (0..<Int.random(in: 0...2, using: &rng)).map { _ in randomTransaction(&rng) } },
            entitlements: randomDictionary(&rng) { rng in
                .init(
                    expiresDate: randomOptional(&rng), purchaseDate: randomString(&rng), productIdentifier: randomString(&rng),
                    gracePeriodExpiresDate: randomOptional(&rng))
            },
            otherPurchases: randomDictionary(&rng, randomTransaction),
            subscriberAttributes: randomDictionary(&rng) { rng in
                .init(value: randomString(&rng), updatedAtMs: .random(in: 0...Int64.max, using: &rng))
            })
        return CustomerInfo(requestDate: randomString(&rng), requestDateMs: .random(in: 0...Int64.max, using: &rng), subscriber: subscriber)
    }

    @Test func customerInfoIsWrittenAsJSONEncoderWritesIt() throws {
        var rng = SplitMix(state: 4)
        var offers = 0
        for _ in 0..<500 {
            let info = Self.randomCustomerInfo(&rng)
            offers += info.subscriber.subscriptions.values.filter { $0.offer != nil }.count
            #expect(Self.written { info.writeJSON(to: &$0) } == (try Self.encoded(info)))
            #expect(Self.written { info.subscriber.writeJSON(to: &$0) } == (try Self.encoded(info.subscriber)))
        }
        #expect(offers > 50, "the random values reach the offer fields")
    }

    @Test func anExtraKeyGoesWhereSortingPutsIt() throws {
        var rng = SplitMix(state: 5)
        let info = Self.randomCustomerInfo(&rng)
        for key in ["a", "redemption_info", "request_date_a", "request_date_ms_", "subscriber_", "zzz"] {
            let written = Self.written { writer in
                writer.beginObject()
                info.writeFields(to: &writer, extra: (key, { $0.string("x") }))
                writer.endObject()
            }
            struct Wrapped: Encodable {
                let info: CustomerInfo
                let key: String
                func encode(to encoder: any Encoder) throws {
                    var c = encoder.container(keyedBy: Key.self)
                    try c.encode(info.requestDate, forKey: Key(stringValue: "request_date"))
                    try c.encode(info.requestDateMs, forKey: Key(stringValue: "request_date_ms"))
                    try c.encode(info.subscriber, forKey: Key(stringValue: "subscriber"))
                    try c.encode("x", forKey: Key(stringValue: key))
                }
            }
            #expect(written == (try Self.encoded(Wrapped(info: info, key: key))), "\(key)")
        }
    }
}

private struct Key: CodingKey {
    var stringValue: String
    var intValue: Int? { nil }
    init(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { nil }
}

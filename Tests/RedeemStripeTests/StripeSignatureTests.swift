import Foundation
import RedeemStripe
import Testing

@Suite struct StripeSignatureTests {
    let secret = "whsec_test_5f2a9c3e0d1b4a7e8c6f2b9d"
    let body = Array(#"{"id":"evt_test","object":"event"}"#.utf8)
    let t: Int64 = 1_722_518_090
    /// HMAC-SHA256(secret, "1722518090." + body), computed independently with Python's hmac.
    let knownV1 = "62bce609bdf93978eb4ba64b362de3921aebe1eff9371311f06f8bd097a5d8c0"

    var now: Date { Date(unix: t) }

    @Test func signsLikeStripe() {
        #expect(StripeSignature.signature(payload: body, secret: secret, timestamp: t) == knownV1)
        #expect(
            StripeSignature.header(payload: body, secret: secret, timestamp: Date(unix: t).addingTimeInterval(0.9))
                == "t=\(t),v1=\(knownV1)")
    }

    @Test func acceptsAValidSignatureOverBytesOrData() throws {
        let header = "t=\(t),v1=\(knownV1)"
        let signedAt = try StripeSignature.verify(payload: body, header: header, secret: secret, now: now)
        #expect(signedAt == now)
        try StripeSignature.verify(payload: Data(body), header: header, secret: secret, now: now.addingTimeInterval(42))
    }

    @Test func acceptsASignedFixture() throws {
        let payload = try Fixture.data("checkout.session.completed")
        let header = StripeSignature.header(payload: payload, secret: secret, timestamp: now)
        try StripeSignature.verify(payload: payload, header: header, secret: secret, now: now)
        #expect(try StripeEvent(json: payload).eventID == "evt_1PitH2LkdIwHu7ixd0qWm2Ks")
    }

    @Test func rejectsATamperedBody() throws {
        var payload = try Fixture.data("checkout.session.completed")
        let header = StripeSignature.header(payload: payload, secret: secret, timestamp: now)
        let range = try #require(payload.range(of: Data(#""amount_total": 999"#.utf8)))
        payload.replaceSubrange(range, with: Data(#""amount_total": 1"#.utf8))
        #expect(throws: StripeSignatureError.noMatchingSignature) {
            try StripeSignature.verify(payload: payload, header: header, secret: secret, now: now)
        }
        #expect(throws: StripeSignatureError.noMatchingSignature) {
            try StripeSignature.verify(payload: body + [0x20], header: "t=\(t),v1=\(knownV1)", secret: secret, now: now)
        }
    }

    @Test func rejectsTheWrongSecret() {
        #expect(throws: StripeSignatureError.noMatchingSignature) {
            try StripeSignature.verify(payload: body, header: "t=\(t),v1=\(knownV1)", secret: "whsec_other", now: now)
        }
    }

    @Test func rejectsAnotherTimestampUnderTheSameSignature() {
        #expect(throws: StripeSignatureError.noMatchingSignature) {
            try StripeSignature.verify(payload: body, header: "t=\(t + 1),v1=\(knownV1)", secret: secret, now: now)
        }
    }

    @Test func toleranceCoversThePastAndTheFuture() throws {
        let header = "t=\(t),v1=\(knownV1)"
        for offset: TimeInterval in [-300, -299, 0, 299, 300] {
            try StripeSignature.verify(payload: body, header: header, secret: secret, now: now.addingTimeInterval(offset))
        }
        // Stale: signed more than 300 s before now (replay).
        #expect(throws: StripeSignatureError.timestampOutsideTolerance) {
            try StripeSignature.verify(payload: body, header: header, secret: secret, now: now.addingTimeInterval(301))
        }
        // Future: signed more than 300 s after now.
        #expect(throws: StripeSignatureError.timestampOutsideTolerance) {
            try StripeSignature.verify(payload: body, header: header, secret: secret, now: now.addingTimeInterval(-301))
        }
        #expect(throws: StripeSignatureError.timestampOutsideTolerance) {
            try StripeSignature.verify(
                payload: body, header: header, secret: secret, tolerance: 10, now: now.addingTimeInterval(11))
        }
    }

    @Test func aBadSignatureIsReportedBeforeAStaleTimestamp() {
        #expect(throws: StripeSignatureError.noMatchingSignature) {
            try StripeSignature.verify(
                payload: body, header: "t=\(t),v1=\(knownV1)", secret: "whsec_other", now: now.addingTimeInterval(3600))
        }
    }

    @Test func anyOneOfSeveralV1ValuesMayMatch() throws {
        let old = StripeSignature.signature(payload: body, secret: "whsec_rolled_out", timestamp: t)
        let v0 = String(repeating: "ab", count: 32)
        for header in [
            "t=\(t),v1=\(old),v1=\(knownV1)",
            "t=\(t),v1=\(knownV1),v1=\(old),v0=\(v0)",
            "v1=not-hex,v0=\(v0),t=\(t),v1=\(old),v1=\(knownV1)",
            "t=\(t), v1=\(old), v1=\(knownV1)",
            "t=\(t),v1=\(knownV1.uppercased())",
        ] {
            try StripeSignature.verify(payload: body, header: header, secret: secret, now: now)
        }
        #expect(throws: StripeSignatureError.noMatchingSignature) {
            try StripeSignature.verify(payload: body, header: "t=\(t),v1=\(old),v1=\(v0)", secret: secret, now: now)
        }
    }

    @Test func aV0OnlyHeaderHasNoV1Signature() {
        let v0 = StripeSignature.signature(payload: body, secret: secret, timestamp: t)
        #expect(throws: StripeSignatureError.noV1Signature) {
            try StripeSignature.verify(payload: body, header: "t=\(t),v0=\(v0)", secret: secret, now: now)
        }
        #expect(throws: StripeSignatureError.noV1Signature) {
            try StripeSignature.verify(payload: body, header: "t=\(t)", secret: secret, now: now)
        }
    }

    @Test func aMissingHeader() {
        for header in [nil, "", "   "] as [String?] {
            #expect(throws: StripeSignatureError.missingHeader) {
                try StripeSignature.verify(payload: body, header: header, secret: secret, now: now)
            }
        }
    }

    @Test(arguments: [
        "garbage",
        "v1=62bce609bdf93978eb4ba64b362de3921aebe1eff9371311f06f8bd097a5d8c0",
        "t=,v1=62bce609bdf93978eb4ba64b362de3921aebe1eff9371311f06f8bd097a5d8c0",
        "t=abc,v1=62bce609bdf93978eb4ba64b362de3921aebe1eff9371311f06f8bd097a5d8c0",
        "t=-1722518090,v1=62bce609bdf93978eb4ba64b362de3921aebe1eff9371311f06f8bd097a5d8c0",
        "t=1722518090.5,v1=62bce609bdf93978eb4ba64b362de3921aebe1eff9371311f06f8bd097a5d8c0",
        "t=99999999999999999999,v1=62bce609bdf93978eb4ba64b362de3921aebe1eff9371311f06f8bd097a5d8c0",
        "t=1722518090,t=1722518091,v1=62bce609bdf93978eb4ba64b362de3921aebe1eff9371311f06f8bd097a5d8c0",
        "t=1722518090,,v1=62bce609bdf93978eb4ba64b362de3921aebe1eff9371311f06f8bd097a5d8c0",
        "t=1722518090,v1=62bce609bdf93978eb4ba64b362de3921aebe1eff9371311f06f8bd097a5d8c0,",
        "t=1722518090;v1=62bce609bdf93978eb4ba64b362de3921aebe1eff9371311f06f8bd097a5d8c0",
        "=1,t=1722518090,v1=62bce609bdf93978eb4ba64b362de3921aebe1eff9371311f06f8bd097a5d8c0",
    ])
    func malformedHeaders(header: String) {
        #expect(throws: StripeSignatureError.malformedHeader) {
            try StripeSignature.verify(payload: body, header: header, secret: secret, now: now)
        }
    }

    @Test func errorsDescribeThemselves() {
        #expect(StripeSignatureError.timestampOutsideTolerance.description == "Stripe-Signature timestamp outside tolerance")
        #expect(StripeSignatureError.missingHeader != .malformedHeader)
    }
}

import Foundation
import RedeemWebhooks
import Testing

@Suite struct WebhookSignatureTests {
    let secret = "whsec_test_secret"
    let body = Array(#"{"api_version":"1.0","event":{"id":"evt_1"}}"#.utf8)
    let sentAt = Date(timeIntervalSince1970: 1_767_225_600.9)

    @Test func roundTrip() throws {
        let header = WebhookSignature.header(body: body, secret: secret, timestamp: sentAt)
        #expect(header.wholeMatch(of: /t=1767225600,v1=[0-9a-f]{64}/) != nil)
        try WebhookSignature.verify(body: body, header: header, secret: secret, now: sentAt.addingTimeInterval(299))
        #expect(WebhookSignature.headerName == "Redeem-Signature")
    }

    @Test func matchesAnIndependentHMAC() throws {
        // HMAC-SHA256("whsec_test_secret", "1767225600." + body), computed with openssl.
        let header = WebhookSignature.header(body: body, secret: secret, timestamp: sentAt)
        #expect(header == "t=1767225600,v1=\(Self.expectedHex)")
    }

    @Test func rejectsTamperingWrongSecretAndStaleTimestamps() {
        let header = WebhookSignature.header(body: body, secret: secret, timestamp: sentAt)
        var tampered = body
        tampered[tampered.count - 3] = UInt8(ascii: "2")
        #expect(throws: WebhookSignatureError.signatureMismatch) {
            try WebhookSignature.verify(body: tampered, header: header, secret: secret, now: sentAt)
        }
        #expect(throws: WebhookSignatureError.signatureMismatch) {
            try WebhookSignature.verify(body: body, header: header, secret: "whsec_other", now: sentAt)
        }
        #expect(throws: WebhookSignatureError.timestampOutsideTolerance) {
            try WebhookSignature.verify(body: body, header: header, secret: secret, now: sentAt.addingTimeInterval(301))
        }
        #expect(throws: WebhookSignatureError.timestampOutsideTolerance) {
            try WebhookSignature.verify(body: body, header: header, secret: secret, tolerance: 10, now: sentAt.addingTimeInterval(-11))
        }
    }

    @Test func replayedSignatureWithANewTimestampFails() {
        let header = WebhookSignature.header(body: body, secret: secret, timestamp: sentAt)
        let forged = header.replacingOccurrences(of: "t=1767225600", with: "t=1767229200")
        #expect(throws: WebhookSignatureError.signatureMismatch) {
            try WebhookSignature.verify(body: body, header: forged, secret: secret, now: sentAt.addingTimeInterval(3600))
        }
    }

    @Test func malformedHeadersAndRotation() throws {
        for header in ["", "t=1767225600", "v1=abc", "t=soon,v1=abc"] {
            #expect(throws: WebhookSignatureError.malformedHeader) {
                try WebhookSignature.verify(body: body, header: header, secret: secret, now: sentAt)
            }
        }
        let rotated = "t=1767225600, v1=\(String(repeating: "0", count: 64)), v1=\(Self.expectedHex.uppercased())"
        try WebhookSignature.verify(body: body, header: rotated, secret: secret, now: sentAt)
    }

    @Test func secretsAreFreshAndPrefixed() {
        let a = WebhookSecret.generate()
        let b = WebhookSecret.generate()
        #expect(a != b)
        #expect(a.wholeMatch(of: /whsec_[A-Za-z0-9_-]{43}/) != nil)
    }

    static let expectedHex = "4814125246da54a86972f02ef0ebb6a4626d59454674be4df5fdd353a3477e2e"
}

import Foundation
import Testing

@testable import RedeemMail

@Suite struct MIMERenderingTests {
    let date = Date(timeIntervalSince1970: 1_751_360_700)  // 2025-07-01 09:05:00 UTC

    @Test func textOnlyMessageHasHeadersAndOneQuotedPrintablePart() throws {
        let mime = Fixtures.message().mime(date: date, messageID: "abc@redeem.test")
        #expect(mime.hasPrefix("Date: Tue, 01 Jul 2025 09:05:00 +0000\r\n"))
        #expect(mime.contains("\r\nFrom: \"Redeem Shop\" <shop@redeem.test>\r\n"))
        #expect(mime.contains("\r\nTo: <buyer@example.com>\r\n"))
        #expect(mime.contains("\r\nSubject: Your receipt\r\n"))
        #expect(mime.contains("\r\nMessage-ID: <abc@redeem.test>\r\n"))
        #expect(mime.contains("\r\nMIME-Version: 1.0\r\n"))
        #expect(mime.contains("\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Transfer-Encoding: quoted-printable\r\n\r\n"))
        #expect(mime.hasSuffix("\r\n\r\nThanks for your purchase.\r\nSee you soon.\r\n"))
        #expect(!mime.contains("multipart"))
        #expect(!mime.contains("Reply-To"))
    }

    @Test func htmlMakesMultipartAlternativeWithTextFirst() throws {
        let message = try MailMessage(
            from: Fixtures.address("shop@redeem.test"), to: [Fixtures.address("a@example.com")],
            replyTo: Fixtures.address("help@redeem.test", name: "Help"),
            subject: "Hi", text: "plain", html: "<p>rich</p>"
        )
        let mime = message.mime(date: date, messageID: "<id@redeem.test>")
        let boundaryLine = try #require(Fixtures.lines(mime).first { $0.hasPrefix("Content-Type: multipart/alternative;") })
        let boundary = try #require(boundaryLine.split(separator: "\"").dropFirst().first)
        let text = try #require(mime.range(of: "--\(boundary)\r\nContent-Type: text/plain; charset=utf-8"))
        let html = try #require(mime.range(of: "--\(boundary)\r\nContent-Type: text/html; charset=utf-8"))
        #expect(text.lowerBound < html.lowerBound)
        #expect(mime.hasSuffix("<p>rich</p>\r\n--\(boundary)--\r\n"))
        #expect(mime.contains("\r\nReply-To: \"Help\" <help@redeem.test>\r\n"))
        #expect(mime.contains("\r\nMessage-ID: <id@redeem.test>\r\n"))
    }

    @Test func everyLineIsASCIIEndsInCRLFAndFitsIn76Columns() throws {
        let message = try MailMessage(
            from: Fixtures.address("shop@redeem.test", name: "Zoë Ørsted — Grüße aus Köln, Ελλάδα και 東京"),
            to: (1...6).map { Fixtures.address("recipient\($0)@example.com", name: "Recipient Number \($0)") },
            subject: String(repeating: "Ваш чек готов 🧾 ", count: 8),
            text: String(repeating: "ünïcödé and long lines ", count: 30) + "\r\nold mac\rline\n",
            html: "<p>" + String(repeating: "x", count: 500) + "</p>"
        )
        let mime = message.mime(date: date, messageID: "id@redeem.test")
        #expect(mime.utf8.allSatisfy { $0 < 0x80 })
        for line in Fixtures.lines(mime) {
            #expect(line.utf8.count <= 76, "too long: \(line)")
            #expect(!line.contains("\n") && !line.contains("\r"), "bare line break in: \(line)")
        }
    }

    @Test func nonASCIISubjectIsEncodedAsUTF8Words() throws {
        let subject = "Grüße — ваш чек 🧾 is ready, and this subject is long enough to need several encoded words"
        let mime = Fixtures.message(subject: subject).mime(date: date, messageID: "id@redeem.test")
        let lines = Fixtures.lines(mime)
        let start = try #require(lines.firstIndex { $0.hasPrefix("Subject: ") })
        var words = [lines[start].dropFirst("Subject: ".count)]
        words += lines[(start + 1)...].prefix { $0.hasPrefix(" ") }.map { $0.dropFirst() }
        #expect(words.count > 1)
        let decoded = try words.map { word in
            #expect(word.hasPrefix("=?UTF-8?B?") && word.hasSuffix("?="))
            let base64 = String(word.dropFirst(10).dropLast(2))
            return try #require(Data(base64Encoded: base64).flatMap { String(data: $0, encoding: .utf8) })
        }
        #expect(decoded.joined() == subject)
    }

    @Test func asciiLookalikeEncodedWordAndQuotesAreEscaped() throws {
        let message = try MailMessage(
            from: Fixtures.address("shop@redeem.test", name: "The \"Best\" Shop \\o/"),
            to: [Fixtures.address("a@example.com")], subject: "=?UTF-8?B?Zm9v?=", text: ""
        )
        let mime = message.mime(date: date, messageID: "id@redeem.test")
        #expect(mime.contains("From: \"The \\\"Best\\\" Shop \\\\o/\" <shop@redeem.test>\r\n"))
        #expect(!mime.contains("Subject: =?UTF-8?B?Zm9v?="))
    }

    @Test func quotedPrintableEscapesAndSoftBreaks() {
        #expect(QuotedPrintable.encode("a=b") == "a=3Db")
        #expect(QuotedPrintable.encode("trailing \nx\t") == "trailing=20\r\nx=09")
        #expect(QuotedPrintable.encode("é") == "=C3=A9")
        #expect(QuotedPrintable.encode("a\r\nb\rc\nd") == "a\r\nb\r\nc\r\nd")
        let long = String(repeating: "0123456789", count: 20)
        let encoded = QuotedPrintable.encode(long)
        #expect(encoded.split(separator: "\r\n").allSatisfy { $0.utf8.count <= 76 })
        #expect(encoded.replacingOccurrences(of: "=\r\n", with: "") == long)
    }

    @Test func messageIDCannotInjectHeaders() {
        let mime = Fixtures.message().mime(date: date, messageID: "<x@y>\r\nBcc: evil@example.com")
        #expect(mime.contains("\r\nMessage-ID: <x@yBcc:evil@example.com>\r\n"))
        #expect(!mime.contains("\r\nBcc:"))
    }
}

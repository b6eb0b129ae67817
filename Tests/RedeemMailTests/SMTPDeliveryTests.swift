import Foundation
import RedeemMail
import RedeemTestSupport
import Testing

/// Sends through libcurl to a real aiosmtpd server and checks what it parsed.
@Suite(.timeLimit(.minutes(1))) struct SMTPDeliveryTests {
    @Test func textAndHTMLArriveWithTheRightEnvelopeAndParts() async throws {
        let text =
            "Hello,\n\nyour code is ABC=123.\n.a line starting with a dot\ntrailing spaces   \n"
            + String(repeating: "a long line of words ", count: 12)
        let html = "<html><body><p style=\"color: red\">Hello</p>\n<p>" + String(repeating: "long ", count: 40) + "</p></body></html>"
        let message = try MailMessage(
            from: Fixtures.address("shop@redeem.test", name: "Redeem Shop"),
            to: [Fixtures.address("buyer@example.com", name: "A Buyer")],
            replyTo: Fixtures.address("support@redeem.test", name: "Support"),
            subject: "Your receipt", text: text, html: html
        )
        try await SMTPTestServer.with { server in
            try await Fixtures.client(port: server.port).send(message, messageID: "retry-1@redeem.test")
            let mail = try #require(try server.received().first)
            #expect(mail.mailFrom == "shop@redeem.test")
            #expect(mail.rcptTos == ["buyer@example.com"])
            #expect(mail.from == [.init(name: "Redeem Shop", address: "shop@redeem.test")])
            #expect(mail.to == [.init(name: "A Buyer", address: "buyer@example.com")])
            #expect(mail.replyTo == [.init(name: "Support", address: "support@redeem.test")])
            #expect(mail.subject == "Your receipt")
            #expect(mail.messageId == "<retry-1@redeem.test>")
            #expect(mail.mimeVersion == "1.0")
            #expect(!mail.date.isEmpty && mail.date != "None")
            #expect(mail.contentType == "multipart/alternative")
            #expect(mail.parts.map(\.contentType) == ["text/plain", "text/html"])
            #expect(mail.parts.allSatisfy { $0.charset == "utf-8" && $0.transferEncoding == "quoted-printable" })
            #expect(mail.body("text/plain") == text)
            #expect(mail.body("text/html") == html)
            #expect(mail.defects.isEmpty)
            #expect(!mail.tls)
            for line in Fixtures.lines(mail.raw) { #expect(line.utf8.count <= 76, "too long: \(line)") }
        }
    }

    @Test func nonASCIISubjectNameAndBodyRoundTrip() async throws {
        let subject = "Grüße — ваш чек 🧾 готов, with a subject long enough to fold over several lines"
        let text = "Größe: 42 €\nПривет, мир!\n東京 🍣 ✓"
        let message = try MailMessage(
            from: Fixtures.address("shop@redeem.test", name: "Zoë Ørsted"),
            to: [Fixtures.address("buyer@example.com", name: "Jürgen \"JJ\" Müller")],
            subject: subject, text: text
        )
        try await SMTPTestServer.with { server in
            try await Fixtures.client(port: server.port).send(message)
            let mail = try #require(try server.received().first)
            #expect(mail.subject == subject)
            #expect(mail.from == [.init(name: "Zoë Ørsted", address: "shop@redeem.test")])
            #expect(mail.to == [.init(name: "Jürgen \"JJ\" Müller", address: "buyer@example.com")])
            #expect(mail.contentType == "text/plain")
            #expect(mail.body("text/plain") == text + "\n")  // a single-part body ends with the message's CRLF
            #expect(!mail.raw.contains("\u{FFFD}"), "the raw message must be 7-bit ASCII")
            #expect(mail.defects.isEmpty)
        }
    }

    @Test func everyRecipientIsInTheEnvelopeAndToHeader() async throws {
        let recipients = ["one@example.com", "two@example.org", "three@example.net"]
        try await SMTPTestServer.with { server in
            try await Fixtures.client(port: server.port).send(Fixtures.message(to: recipients))
            let mail = try #require(try server.received().first)
            #expect(mail.rcptTos == recipients)
            #expect(mail.to.map(\.address) == recipients)
            #expect(try server.received().count == 1)
        }
    }

    @Test func configuredSenderFillsAMessageWithoutFrom() async throws {
        let message = try MailMessage(to: [Fixtures.address("buyer@example.com")], subject: "s", text: "t")
        try await SMTPTestServer.with { server in
            let client = Fixtures.client(port: server.port, from: Fixtures.address("noreply@redeem.test", name: "Redeem"))
            try await client.send(message)
            let mail = try #require(try server.received().first)
            #expect(mail.mailFrom == "noreply@redeem.test")
            #expect(mail.from == [.init(name: "Redeem", address: "noreply@redeem.test")])
            #expect(mail.messageId.hasSuffix("@redeem.test>"))
        }
    }

    @Test func consecutiveSendsEachArrive() async throws {
        try await SMTPTestServer.with { server in
            let client = Fixtures.client(port: server.port)
            for index in 1...3 { try await client.send(Fixtures.message(subject: "Message \(index)")) }
            #expect(try server.received().map(\.subject) == ["Message 1", "Message 2", "Message 3"])
        }
    }
}

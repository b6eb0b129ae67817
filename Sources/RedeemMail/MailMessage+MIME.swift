import Foundation

extension MailMessage {
    /// The message as RFC 5322/2045 text with CRLF line endings, ready for SMTP DATA.
    ///
    /// Text and HTML go in a `multipart/alternative` (text first) when HTML is present.
    /// Bodies are UTF-8, quoted-printable. `messageID` may come with or without angle
    /// brackets; characters that can't appear in a Message-ID are dropped.
    /// `From` is left out when `from` is nil.
    public func mime(date: Date, messageID: String) -> String {
        let id = Self.sanitizedMessageID(messageID)
        var head = "Date: \(RFC5322Date.format(date))\r\n"
        if let from { head += HeaderValue.fold("From", HeaderValue.addressWords(from)) }
        head += HeaderValue.fold("To", HeaderValue.addressListWords(to))
        if let replyTo { head += HeaderValue.fold("Reply-To", HeaderValue.addressWords(replyTo)) }
        head += HeaderValue.fold("Subject", HeaderValue.unstructuredWords(subject))
        head += "Message-ID: <\(id)>\r\n"
        head += "MIME-Version: 1.0\r\n"

        let textPart = Self.part(type: "text/plain", body: text)
        guard let html else { return head + textPart }
        // "=_" never occurs in quoted-printable output, so the boundary can't clash with a body.
        let boundary = "=_redeem_\(Self.fnv1a(id + subject + text + html))"
        return head
            + "Content-Type: multipart/alternative; boundary=\"\(boundary)\"\r\n\r\n"
            + "--\(boundary)\r\n" + textPart
            + "--\(boundary)\r\n" + Self.part(type: "text/html", body: html)
            + "--\(boundary)--\r\n"
    }

    /// `Message-ID` value (without brackets) for a message from `domain`.
    public static func makeMessageID(domain: some StringProtocol) -> String {
        "\(UUID().uuidString.lowercased())@\(domain)"
    }

    /// Headers and body; the closing CRLF belongs to the next boundary line.
    private static func part(type: String, body: String) -> String {
        "Content-Type: \(type); charset=utf-8\r\n"
            + "Content-Transfer-Encoding: quoted-printable\r\n\r\n"
            + QuotedPrintable.encode(body) + "\r\n"
    }

    /// Keeps printable ASCII other than brackets and blanks.
    private static func sanitizedMessageID(_ raw: String) -> String {
        let kept = raw.unicodeScalars.filter { (0x21...0x7E).contains($0.value) && $0 != "<" && $0 != ">" }
        let id = String(String.UnicodeScalarView(kept))
        return id.isEmpty ? makeMessageID(domain: "localhost") : String(id.prefix(250))
    }

    private static func fnv1a(_ text: String) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in text.utf8 { hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01B3 }
        return String(hash, radix: 16)
    }
}

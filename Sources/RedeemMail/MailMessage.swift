/// An e-mail to send: addresses, subject, a text body and an optional HTML alternative.
///
/// Every header value is validated on creation, so a message can't carry CR/LF into its headers.
public struct MailMessage: Sendable, Hashable {
    /// The sender; when nil, `SMTPClient` uses `SMTPConfiguration.from`.
    public let from: MailAddress?
    public let to: [MailAddress]
    public let replyTo: MailAddress?
    public let subject: String
    public let text: String
    public let html: String?

    public init(
        from: MailAddress? = nil,
        to: [MailAddress],
        replyTo: MailAddress? = nil,
        subject: String,
        text: String,
        html: String? = nil
    ) throws(MailError) {
        guard !to.isEmpty else { throw MailError(.noRecipients) }
        try HeaderValue.checkNoLineBreaks(subject, field: "Subject")
        self.from = from
        self.to = to
        self.replyTo = replyTo
        self.subject = subject
        self.text = text
        self.html = html
    }

    /// This message with `from` filled in when it has none.
    func withSender(_ fallback: MailAddress?) throws(MailError) -> MailMessage {
        guard let sender = from ?? fallback else { throw MailError(.noSender) }
        return try MailMessage(from: sender, to: to, replyTo: replyTo, subject: subject, text: text, html: html)
    }
}

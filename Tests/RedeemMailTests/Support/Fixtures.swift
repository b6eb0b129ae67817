import Foundation
import RedeemMail

/// Shared builders for the mail tests.
enum Fixtures {
    static func address(_ address: String, name: String? = nil) -> MailAddress {
        try! MailAddress(address, name: name)
    }

    static func client(
        port: Int,
        security: SMTPConfiguration.Security = .none,
        username: String? = nil,
        password: String? = nil,
        timeout: Duration = .seconds(10),
        from: MailAddress? = nil,
        caCertificatesPath: String? = nil
    ) -> SMTPClient {
        SMTPClient(
            configuration: SMTPConfiguration(
                host: "127.0.0.1", port: port, security: security, username: username, password: password,
                timeout: timeout, from: from, caCertificatesPath: caCertificatesPath
            ))
    }

    static func message(to: [String] = ["buyer@example.com"], subject: String = "Your receipt") -> MailMessage {
        try! MailMessage(
            from: address("shop@redeem.test", name: "Redeem Shop"),
            to: to.map { address($0) },
            subject: subject,
            text: "Thanks for your purchase.\nSee you soon."
        )
    }

    /// Lines of a rendered message, split on CRLF.
    static func lines(_ mime: String) -> [Substring] {
        mime.split(separator: "\r\n", omittingEmptySubsequences: false)
    }
}

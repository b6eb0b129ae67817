import Foundation
import RedeemMail

/// Outgoing e-mail settings from `--smtp-url` / `REDEEM_SMTP_URL` and `--mail-from` / `REDEEM_MAIL_FROM`.
///
/// `smtp://user:password@host:587` uses STARTTLS (required), `smtps://…:465` implicit TLS, and
/// `smtp://…?security=none` plain text for a local relay. Percent-encode special characters in credentials.
public struct MailSettings: Sendable {
    public let smtp: SMTPConfiguration
    /// Minimum time between two new-link e-mails for one purchase.
    public var resendQuietPeriod: TimeInterval = MailSettings.defaultResendQuietPeriod
    public static let defaultResendQuietPeriod: TimeInterval = 300

    public init(smtpURL: String, from: String) throws(ConfigurationError) {
        let setting = Setting.smtpURL.name
        guard let url = URLComponents(string: smtpURL), let scheme = url.scheme, ["smtp", "smtps"].contains(scheme),
            let host = url.host, !host.isEmpty
        else {
            throw ConfigurationError(setting: setting, reason: "must look like smtp://user:password@host:587 or smtps://host:465")
        }
        var security: SMTPConfiguration.Security = scheme == "smtps" ? .tls : .startTLS
        if let value = url.queryItems?.first(where: { $0.name == "security" })?.value {
            switch value {
            case "none": security = .none
            case "starttls": security = .startTLS
            case "tls": security = .tls
            default: throw ConfigurationError(setting: setting, reason: "security must be none, starttls or tls")
            }
        }
        let sender: MailAddress
        do { sender = try MailAddress(from) } catch {
            throw ConfigurationError(setting: Setting.mailFrom.name, reason: "'\(from)' is not an e-mail address")
        }
        self.smtp = SMTPConfiguration(
            host: host, port: url.port, security: security,
            username: url.percentEncodedUser?.removingPercentEncoding, password: url.percentEncodedPassword?.removingPercentEncoding,
            from: sender
        )
    }

    public init(smtp: SMTPConfiguration) { self.smtp = smtp }
}

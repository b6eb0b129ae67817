/// Why a message could not be built or sent. Wraps a private enum so cases can grow.
///
/// `isTransient` tells an outbox whether retrying later may succeed.
/// The description never contains the SMTP password.
public struct MailError: Error, Sendable, Equatable, CustomStringConvertible {
    enum Code: Equatable, Sendable {
        /// A header value held CR or LF, or an address was malformed.
        case invalidHeader(field: String, reason: String)
        case noRecipients
        case noSender
        case configuration(String)
        /// Could not connect, or the connection broke.
        case connection(String)
        case timeout(String)
        /// The server offered no STARTTLS though it was required.
        case tlsUnavailable
        /// TLS handshake or certificate verification failed.
        case tls(String)
        /// The server answered with an SMTP error code.
        case rejected(smtpCode: Int, detail: String)
        case authenticationFailed(smtpCode: Int, detail: String)
        case cancelled
        /// Any other libcurl failure.
        case transfer(String)
    }

    let code: Code

    init(_ code: Code) { self.code = code }

    /// True when a later retry may succeed: network failures, timeouts, SMTP 4xx.
    public var isTransient: Bool {
        switch code {
        case .connection, .timeout, .cancelled, .transfer: true
        case .rejected(let smtp, _), .authenticationFailed(let smtp, _): (400..<500).contains(smtp)
        case .invalidHeader, .noRecipients, .noSender, .configuration, .tlsUnavailable, .tls: false
        }
    }

    /// The SMTP reply code the server sent with its refusal, if any.
    public var smtpCode: Int? {
        switch code {
        case .rejected(let smtp, _), .authenticationFailed(let smtp, _): smtp
        default: nil
        }
    }

    /// The message itself was invalid (bad address, CR/LF in a header, no recipients).
    public var isInvalidMessage: Bool {
        switch code {
        case .invalidHeader, .noRecipients, .noSender: true
        default: false
        }
    }

    /// The server refused the credentials.
    public var isAuthenticationFailure: Bool {
        if case .authenticationFailed = code { true } else { false }
    }

    /// The task sending the message was cancelled.
    public var isCancelled: Bool { code == .cancelled }

    public var description: String {
        switch code {
        case .invalidHeader(let field, let reason): "invalid \(field) header: \(reason)"
        case .noRecipients: "the message has no recipients"
        case .noSender: "the message has no sender and the SMTP configuration has no default"
        case .configuration(let what): "SMTP configuration: \(what)"
        case .connection(let detail): "SMTP connection failed: \(detail)"
        case .timeout(let detail): "SMTP timed out: \(detail)"
        case .tlsUnavailable: "the SMTP server does not offer STARTTLS, which is required"
        case .tls(let detail): "SMTP TLS failed: \(detail)"
        case .rejected(let smtp, let detail): "SMTP server rejected the message (\(smtp)): \(detail)"
        case .authenticationFailed(let smtp, let detail): "SMTP authentication failed (\(smtp)): \(detail)"
        case .cancelled: "sending was cancelled"
        case .transfer(let detail): "SMTP transfer failed: \(detail)"
        }
    }
}

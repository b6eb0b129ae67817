/// Where and how to send: server, transport security, credentials, timeout, default sender.
public struct SMTPConfiguration: Sendable, CustomStringConvertible {
    public enum Security: String, Sendable {
        /// Plain text: only for a local relay or tests.
        case none
        /// `smtp://` upgraded with STARTTLS; sending fails if the server doesn't offer it.
        case startTLS
        /// Implicit TLS (`smtps://`), usually port 465.
        case tls
    }

    public var host: String
    public var port: Int
    public var security: Security
    public var username: String?
    public var password: String?
    /// Limit for the whole transfer; connecting is limited to 3 s of it (a dead server fails fast, freeing its slot).
    public var timeout: Duration
    /// Sender used for messages without `from`.
    public var from: MailAddress?
    /// PEM file of CA certificates to trust instead of the system's (private CAs, tests).
    public var caCertificatesPath: String?
    /// Name sent with EHLO; libcurl's default when nil.
    public var clientHostname: String?

    /// `port` defaults to 25, 587 or 465 for `.none`, `.startTLS` and `.tls`.
    public init(
        host: String,
        port: Int? = nil,
        security: Security = .startTLS,
        username: String? = nil,
        password: String? = nil,
        timeout: Duration = .seconds(30),
        from: MailAddress? = nil,
        caCertificatesPath: String? = nil,
        clientHostname: String? = nil
    ) {
        self.host = host
        self.port = port ?? Self.defaultPort(security)
        self.security = security
        self.username = username
        self.password = password
        self.timeout = timeout
        self.from = from
        self.caCertificatesPath = caCertificatesPath
        self.clientHostname = clientHostname
    }

    public static func defaultPort(_ security: Security) -> Int {
        switch security {
        case .none: 25
        case .startTLS: 587
        case .tls: 465
        }
    }

    /// Never shows the password.
    public var description: String {
        let user = username.map { " user=\($0)" } ?? ""
        let secret = password == nil ? "" : " password=<redacted>"
        return "SMTPConfiguration(\(security.rawValue) \(host):\(port)\(user)\(secret))"
    }

    /// The libcurl URL; its path is the EHLO name. Throws for values that would not make a clean URL.
    func url() throws(MailError) -> String {
        guard (1...65535).contains(port) else { throw MailError(.configuration("port \(port) is out of range")) }
        guard Self.isHostname(host) || Self.isBracketedIPv6(host) else {
            throw MailError(.configuration("host '\(host)' is not a hostname, IPv4 or [IPv6] address"))
        }
        if let clientHostname, !Self.isHostname(clientHostname) {
            throw MailError(.configuration("client hostname '\(clientHostname)' is not a hostname"))
        }
        guard timeout > .zero else { throw MailError(.configuration("timeout must be positive")) }
        return "\(security == .tls ? "smtps" : "smtp")://\(host):\(port)/\(clientHostname ?? "")"
    }

    var timeoutMilliseconds: Int { Self.milliseconds(timeout) }

    var connectTimeoutMilliseconds: Int { Self.milliseconds(min(timeout, .seconds(3))) }

    private static func milliseconds(_ duration: Duration) -> Int {
        let (seconds, attoseconds) = duration.components
        // At least 1: libcurl reads 0 as "no timeout".
        return max(1, Int(min(seconds, 86_400)) * 1000 + Int(attoseconds / 1_000_000_000_000_000))
    }

    /// Letters, digits, `.`, `-` and `_`: a DNS name or an IPv4 address.
    private static func isHostname(_ value: String) -> Bool {
        !value.isEmpty
            && value.unicodeScalars.allSatisfy { scalar in
                scalar.isASCII && (scalar.properties.isAlphabetic || ("0"..."9").contains(scalar) || ".-_".unicodeScalars.contains(scalar))
            }
    }

    private static func isBracketedIPv6(_ value: String) -> Bool {
        value.count > 2 && value.hasPrefix("[") && value.hasSuffix("]")
            && value.dropFirst().dropLast().allSatisfy { $0 == ":" || $0 == "." || $0.isHexDigit }
    }
}

import Foundation
import Logging
import RedeemStore

/// Everything `serve` needs, from flags and environment; invalid values fail before anything starts.
public struct ServerConfiguration: Sendable {
    public var host: String
    public var port: Int
    public var databaseURL: String
    /// PostgreSQL connections this process may open (`--database-pool-size`).
    public var databasePoolSize = SQLStore.defaultPostgresPoolSize
    /// Where PostgreSQL's listener connects (`--database-listen-url`): nil uses `databaseURL`; set it to a direct
    /// connection when `databaseURL` is a transaction pooler's, which cannot carry `LISTEN`.
    public var databaseListenURL: String?
    /// The public base URL (`https://…`) that links and pages use; defaults to the listening address.
    public var publicURL: URL
    public var migrateOnStart: Bool
    public var logLevel: Logger.Level
    /// Outgoing e-mail; nil leaves e-mail off.
    public var mail: MailSettings?
    /// Verifies `POST /webhooks/stripe`.
    public var stripeWebhookSecret: String?
    /// Creates Checkout Sessions for production purchase links.
    public var stripe: StripeSettings?
    /// Serves the redemption benchmark's baseline route.
    public var benchmarkRoutes = false
    /// How long a sandbox checkout's free trial lasts (RevenueCat's 5 minutes; `REDEEM_SANDBOX_TRIAL_SECONDS` shortens it for tests).
    public var sandboxTrialSeconds: TimeInterval = 300
    /// Console owners must enrol and use an authenticator app.
    public var ownersNeedTwoFactor = false
    /// `GET /metrics` (Prometheus) on its own listener at this port; nil leaves metrics off, costing nothing.
    public var metricsPort: Int?
    /// Where the metrics listener binds: loopback unless an operator says otherwise.
    public var metricsHost = "127.0.0.1"
    /// The OTLP/HTTP collector's base URL for traces; nil leaves tracing off, costing nothing.
    public var otlpEndpoint: String?
    /// Limits on guessable routes.
    public var rateLimits = RateLimits()
    /// Peers (a reverse proxy on this machine, say) whose `X-Forwarded-For` names the client; empty trusts nobody.
    public var trustedProxies: Set<String> = []

    public static let defaultDatabaseURL = "./redeem.sqlite"

    public init(
        host: String = "127.0.0.1", port: Int = 8080, databaseURL: String = defaultDatabaseURL, publicURL: String? = nil,
        migrateOnStart: Bool = true, logLevel: String = "info", smtpURL: String? = nil, mailFrom: String? = nil,
        stripeWebhookSecret: String? = nil, stripeSecretKey: String? = nil, stripeAPIBase: String? = nil
    ) throws(ConfigurationError) {
        if let stripeSecretKey {
            guard let base = URL(string: stripeAPIBase ?? "https://api.stripe.com"), base.scheme != nil else {
                throw ConfigurationError(setting: "REDEEM_STRIPE_API_URL", reason: "is not a URL")
            }
            self.stripe = try StripeSettings(secretKey: stripeSecretKey, apiBase: base)
        }
        if let stripeWebhookSecret, !stripeWebhookSecret.hasPrefix("whsec_") {
            throw ConfigurationError(setting: "--stripe-webhook-secret / REDEEM_STRIPE_WEBHOOK_SECRET", reason: "must start with whsec_")
        }
        self.stripeWebhookSecret = stripeWebhookSecret
        guard !host.isEmpty else { throw ConfigurationError(setting: "--host / REDEEM_HOST", reason: "is empty") }
        guard (0...65535).contains(port) else {
            throw ConfigurationError(setting: "--port / REDEEM_PORT", reason: "\(port) is not a TCP port (0–65535)")
        }
        do { _ = try DatabaseLocation(databaseURL) } catch {
            throw ConfigurationError(setting: "--database-url / REDEEM_DATABASE_URL", reason: error.description)
        }
        guard let level = Logger.Level(rawValue: logLevel.lowercased()) else {
            throw ConfigurationError(
                setting: "--log-level / REDEEM_LOG_LEVEL", reason: "'\(logLevel)' is not one of trace, debug, info, notice, warning, error, critical")
        }
        let base = publicURL ?? "http://\(host.contains(":") ? "[\(host)]" : host):\(port)"
        guard let url = URL(string: base), let scheme = url.scheme, ["http", "https"].contains(scheme), url.host != nil,
            url.path.isEmpty || url.path == "/"
        else {
            throw ConfigurationError(setting: "--public-url / REDEEM_PUBLIC_URL", reason: "'\(base)' must be an absolute http(s) URL with no path")
        }
        self.host = host
        self.port = port
        self.databaseURL = databaseURL
        self.publicURL = url
        self.migrateOnStart = migrateOnStart
        self.logLevel = level
        switch (smtpURL, mailFrom) {
        case (nil, nil): self.mail = nil
        case (let url?, let from?): self.mail = try MailSettings(smtpURL: url, from: from)
        case (nil, _?): throw ConfigurationError(setting: "--smtp-url / REDEEM_SMTP_URL", reason: "is required with --mail-from")
        case (_?, nil): throw ConfigurationError(setting: "--mail-from / REDEEM_MAIL_FROM", reason: "is required with --smtp-url")
        }
    }
}

extension ServerConfiguration {
    /// `--trusted-proxies`: comma-separated IPv4 or IPv6 addresses.
    public static func trustedProxies(_ text: String) throws(ConfigurationError) -> Set<String> {
        var addresses: Set<String> = []
        for part in text.split(separator: ",") {
            let address = part.trimmingCharacters(in: .whitespaces)
            var buffer = [UInt8](repeating: 0, count: 16)
            guard inet_pton(AF_INET, address, &buffer) == 1 || inet_pton(AF_INET6, address, &buffer) == 1 else {
                throw ConfigurationError(setting: "--trusted-proxies / REDEEM_TRUSTED_PROXIES", reason: "'\(address)' is not an IP address")
            }
            addresses.insert(address)
        }
        return addresses
    }
}

/// A setting that cannot be used, named as the operator wrote it.
public struct ConfigurationError: Error, CustomStringConvertible {
    public let setting: String
    public let reason: String

    public init(setting: String, reason: String) {
        self.setting = setting
        self.reason = reason
    }

    public var description: String { "configuration error: \(setting) \(reason)" }
}

import Configuration
import Foundation
import Logging
import RedeemStore

/// Everything `serve` needs, read from flags and the environment (`Settings`); invalid values fail before anything starts.
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
    public var metricsHost = ServerConfiguration.defaultHost
    /// The OTLP/HTTP collector's base URL for traces; nil leaves tracing off, costing nothing.
    public var otlpEndpoint: String?
    /// Limits on guessable routes.
    public var rateLimits = RateLimits()
    /// Peers (a reverse proxy on this machine, say) whose `X-Forwarded-For` names the client; empty trusts nobody.
    public var trustedProxies: Set<String> = []

    public static let defaultDatabaseURL = "./redeem.sqlite"
    /// Where `serve` listens, and so the public URL, unless told otherwise; the CLI's help and its local link commands
    /// name the same.
    public static let defaultHost = "127.0.0.1"
    public static let defaultPort = 8080
    public static let defaultLogLevel = Logger.Level.info
    public static var defaultPublicURL: URL { URL(string: "http://\(defaultHost):\(defaultPort)")! }

    /// Reads and checks every setting; the first that cannot be used is named as the operator wrote it.
    public init(reader: ConfigReader, migrateOnStart: Bool = true) throws(ConfigurationError) {
        let database = try DatabaseSettings(reader: reader)
        self.databaseURL = database.url
        self.databasePoolSize = database.poolSize
        self.databaseListenURL = database.listenURL
        self.migrateOnStart = migrateOnStart
        let host = reader.text(.host) ?? Self.defaultHost
        let port = try reader.number(.port, in: 0...65535, what: "a TCP port (0–65535)") ?? Self.defaultPort
        self.host = host
        self.port = port
        let levelText = reader.text(.logLevel) ?? Self.defaultLogLevel.rawValue
        guard let level = Logger.Level(rawValue: levelText.lowercased()) else {
            throw ConfigurationError(
                setting: Setting.logLevel.name, reason: "'\(levelText)' is not one of trace, debug, info, notice, warning, error, critical")
        }
        self.logLevel = level
        self.publicURL = try Self.publicURL(reader.text(.publicURL) ?? "http://\(host.contains(":") ? "[\(host)]" : host):\(port)")
        try readIntegrations(reader)
        try readLimits(reader)
        try readObservability(reader)
        self.ownersNeedTwoFactor = try reader.flag(.consoleRequireTwoFactor)
        self.benchmarkRoutes = try reader.flag(.benchmarkRoutes)
        if let seconds = try reader.number(.sandboxTrialSeconds, in: 1...86_400, what: "a number of seconds from 1 to 86400") {
            self.sandboxTrialSeconds = TimeInterval(seconds)
        }
    }

    /// The public base URL links and pages are built from: `serve` and the CLI's link commands hold it to one rule.
    public static func publicURL(_ base: String) throws(ConfigurationError) -> URL {
        guard let url = URL(string: base), let scheme = url.scheme, ["http", "https"].contains(scheme), url.host != nil,
            url.path.isEmpty || url.path == "/"
        else {
            throw ConfigurationError(setting: Setting.publicURL.name, reason: "'\(base)' must be an absolute http(s) URL with no path")
        }
        return url
    }

    /// E-mail and Stripe: each is off unless its settings are given, and refused when given by halves.
    private mutating func readIntegrations(_ reader: ConfigReader) throws(ConfigurationError) {
        switch (reader.text(.smtpURL), reader.text(.mailFrom)) {
        case (nil, nil): self.mail = nil
        case (let url?, let from?): self.mail = try MailSettings(smtpURL: url, from: from)
        case (nil, _?): throw ConfigurationError(setting: Setting.smtpURL.name, reason: "is required with \(Setting.mailFrom.flag)")
        case (_?, nil): throw ConfigurationError(setting: Setting.mailFrom.name, reason: "is required with \(Setting.smtpURL.flag)")
        }
        if let seconds = try reader.number(.resendInterval, in: 0...Int(Int32.max), what: "a number of seconds") {
            self.mail?.resendQuietPeriod = TimeInterval(seconds)
        }
        if let secretKey = reader.text(.stripeSecretKey) {
            let apiBase = reader.text(.stripeAPIURL) ?? "https://api.stripe.com"
            guard let base = URL(string: apiBase), base.scheme != nil else {
                throw ConfigurationError(setting: Setting.stripeAPIURL.name, reason: "is not a URL")
            }
            self.stripe = try StripeSettings(secretKey: secretKey, apiBase: base)
        }
        if let secret = reader.text(.stripeWebhookSecret) {
            guard secret.hasPrefix("whsec_") else {
                throw ConfigurationError(setting: Setting.stripeWebhookSecret.name, reason: "must start with whsec_")
            }
            self.stripeWebhookSecret = secret
        }
    }

    private mutating func readLimits(_ reader: ConfigReader) throws(ConfigurationError) {
        for (setting, keyPath) in [(Setting.rateLimitPerIP, \RateLimits.redeemPerIP), (.rateLimitPerUser, \.redeemPerUser)] {
            if let limit = try reader.number(setting, in: 1...Int(Int32.max), what: "a positive number") {
                rateLimits[keyPath: keyPath] = limit
            }
        }
        if let text = reader.text(.trustedProxies) {
            trustedProxies = try Self.trustedProxies(text)
        }
    }

    private mutating func readObservability(_ reader: ConfigReader) throws(ConfigurationError) {
        if let value = try reader.number(.metricsPort, in: 1...65535, what: "a free port number other than \(Setting.port.flag)") {
            guard value != port else {
                throw ConfigurationError(
                    setting: Setting.metricsPort.name, reason: "'\(value)' is not a free port number other than \(Setting.port.flag)")
            }
            metricsPort = value
        }
        metricsHost = reader.text(.metricsHost) ?? Self.defaultHost
        if let endpoint = reader.text(.otlpEndpoint) ?? reader.text(.openTelemetryEndpoint) {
            guard let url = URL(string: endpoint), ["http", "https"].contains(url.scheme ?? ""), url.host != nil else {
                throw ConfigurationError(setting: Setting.otlpEndpoint.name, reason: "'\(endpoint)' is not an http(s) URL")
            }
            otlpEndpoint = endpoint
        }
    }
}

/// Where the database is and how many connections this process may open: what every command that opens it reads.
public struct DatabaseSettings: Sendable {
    public var url: String
    public var poolSize: Int
    public var listenURL: String?

    public init(reader: ConfigReader) throws(ConfigurationError) {
        let url = reader.text(.databaseURL) ?? ServerConfiguration.defaultDatabaseURL
        do { _ = try DatabaseLocation(url) } catch {
            throw ConfigurationError(setting: Setting.databaseURL.name, reason: error.description)
        }
        self.url = url
        self.poolSize = try reader.number(.databasePoolSize, in: 1...1000, what: "a whole number from 1 to 1000") ?? SQLStore.defaultPostgresPoolSize
        self.listenURL = reader.text(.databaseListenURL)
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
                throw ConfigurationError(setting: Setting.trustedProxies.name, reason: "'\(address)' is not an IP address")
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

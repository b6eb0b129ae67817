import Configuration
import Foundation

/// One setting an operator gives as a flag or a `REDEEM_…` variable. Its words make both names, so neither is
/// written by hand: `Setting("public", "url")` is `--public-url` and `REDEEM_PUBLIC_URL`.
public struct Setting: Sendable, Hashable {
    public let key: ConfigKey
    /// False for the few settings only the environment gives (tests' and benchmarks' knobs).
    public let hasFlag: Bool

    init(_ words: String..., flag: Bool = true) {
        self.key = ConfigKey(words)
        self.hasFlag = flag
    }

    /// A secret's value is redacted wherever the configuration library prints it.
    public var isSecret: Bool { Self.secrets.contains(self) }

    public var flag: String { "--" + key.components.joined(separator: "-") }
    public var environmentName: String { "REDEEM_" + key.components.joined(separator: "_").uppercased() }
    /// How an error names it: both ways an operator may have written it.
    public var name: String { hasFlag ? "\(flag) / \(environmentName)" : environmentName }

    public static let host = Setting("host")
    public static let port = Setting("port")
    public static let publicURL = Setting("public", "url")
    public static let logLevel = Setting("log", "level")
    /// `json` for one JSON object per log line; read before any command starts, so it has no flag.
    public static let logFormat = Setting("log", "format", flag: false)
    public static let databaseURL = Setting("database", "url")
    public static let databasePoolSize = Setting("database", "pool", "size")
    public static let databaseListenURL = Setting("database", "listen", "url")
    public static let smtpURL = Setting("smtp", "url")
    public static let mailFrom = Setting("mail", "from")
    public static let resendInterval = Setting("resend", "interval")
    public static let stripeSecretKey = Setting("stripe", "secret", "key")
    public static let stripeWebhookSecret = Setting("stripe", "webhook", "secret")
    public static let stripeAPIURL = Setting("stripe", "api", "url", flag: false)
    public static let rateLimitPerIP = Setting("rate", "limit", "per", "ip")
    public static let rateLimitPerUser = Setting("rate", "limit", "per", "user")
    public static let trustedProxies = Setting("trusted", "proxies")
    public static let metricsPort = Setting("metrics", "port")
    public static let metricsHost = Setting("metrics", "host")
    public static let otlpEndpoint = Setting("otlp", "endpoint")
    /// OpenTelemetry's own name for the collector, read when `REDEEM_OTLP_ENDPOINT` is not set.
    static let openTelemetryEndpoint = Setting("otel", "exporter", "otlp", "endpoint", flag: false)
    public static let consoleRequireTwoFactor = Setting("console", "require", "two", "factor")
    public static let sandboxTrialSeconds = Setting("sandbox", "trial", "seconds", flag: false)
    public static let benchmarkRoutes = Setting("benchmark", "routes")
    /// The CLI's: the server its admin commands reach, the admin key they send, and the app they act on.
    public static let server = Setting("server")
    public static let adminKey = Setting("admin", "key", flag: false)
    public static let app = Setting("app")

    /// The settings whose values are secrets: keys, signing secrets, and URLs that may hold a password.
    static let secrets: Set<Setting> = [databaseURL, databaseListenURL, smtpURL, stripeSecretKey, stripeWebhookSecret, adminKey]
}

extension ConfigReader {
    /// The setting's text as given; nil when it is not given or given empty (`REDEEM_SMTP_URL=` turns e-mail off).
    public func text(_ setting: Setting) -> String? {
        guard let value = string(forKey: setting.key, isSecret: setting.isSecret), !value.isEmpty else { return nil }
        return value
    }

    /// A switch: 1, true or yes turns it on; 0, false or no off; anything else is refused rather than ignored.
    public func flag(_ setting: Setting) throws(ConfigurationError) -> Bool {
        guard let text = text(setting) else { return false }
        switch text.lowercased() {
        case "1", "true", "yes", "on": return true
        case "0", "false", "no", "off": return false
        default: throw ConfigurationError(setting: setting.name, reason: "'\(text)' is not 1 or 0 (true or false)")
        }
    }

    /// A whole number within `range`, named in the error when it is not one.
    public func number(_ setting: Setting, in range: ClosedRange<Int>, what: String) throws(ConfigurationError) -> Int? {
        guard let text = text(setting) else { return nil }
        guard let value = Int(text), range.contains(value) else {
            throw ConfigurationError(setting: setting.name, reason: "'\(text)' is not \(what)")
        }
        return value
    }
}

import Configuration
import Foundation
import Logging
import Synchronization
import Testing

@testable import RedeemServer

/// `serve`'s settings: flags over the environment over defaults, and every unusable value refused by the name an
/// operator wrote it with, before anything starts.
@Suite struct ServerConfigurationTests {
    static func configuration(
        flags: [Setting: String?] = [:], _ environment: [String: String] = [:]
    ) throws(ConfigurationError) -> ServerConfiguration {
        try ServerConfiguration(reader: Settings.reader(flags: flags, environment: environment))
    }

    static func refusal(flags: [Setting: String?] = [:], _ environment: [String: String] = [:]) -> ConfigurationError? {
        do {
            _ = try configuration(flags: flags, environment)
            return nil
        } catch {
            return error
        }
    }

    @Test func nothingGivenIsALocalServerOnSQLite() throws {
        let configuration = try Self.configuration()
        #expect(configuration.host == "127.0.0.1" && configuration.port == 8080)
        #expect(configuration.databaseURL == "./redeem.sqlite" && configuration.databaseListenURL == nil)
        #expect(configuration.publicURL.absoluteString == "http://127.0.0.1:8080")
        #expect(configuration.logLevel == .info && configuration.mail == nil && configuration.stripe == nil)
        #expect(configuration.stripeWebhookSecret == nil && configuration.metricsPort == nil && configuration.otlpEndpoint == nil)
        #expect(configuration.rateLimits.redeemPerIP == RateLimits().redeemPerIP && configuration.trustedProxies.isEmpty)
        #expect(!configuration.ownersNeedTwoFactor && !configuration.benchmarkRoutes && configuration.sandboxTrialSeconds == 300)
    }

    @Test func aFlagWinsOverItsVariableAndAnEmptyVariableIsUnset() throws {
        let environment = ["REDEEM_PORT": "9000", "REDEEM_HOST": "0.0.0.0", "REDEEM_LOG_LEVEL": "", "REDEEM_PUBLIC_URL": "https://pay.example.com"]
        let configuration = try Self.configuration(flags: [.port: "9100", .host: nil], environment)
        #expect(configuration.port == 9100, "the flag")
        #expect(configuration.host == "0.0.0.0", "the variable, since no flag was given")
        #expect(configuration.logLevel == .info, "REDEEM_LOG_LEVEL= is as if it were not set")
        #expect(configuration.publicURL.absoluteString == "https://pay.example.com")
    }

    @Test func everySettingIsReadFromItsVariable() throws {
        let configuration = try Self.configuration([
            "REDEEM_DATABASE_URL": "postgres://redeem@db.internal:5432/redeem", "REDEEM_DATABASE_POOL_SIZE": "12",
            "REDEEM_DATABASE_LISTEN_URL": "postgres://redeem@db.internal:5432/redeem", "REDEEM_LOG_LEVEL": "DEBUG",
            "REDEEM_SMTP_URL": "smtp://127.0.0.1:2525?security=none", "REDEEM_MAIL_FROM": "receipts@example.com", "REDEEM_RESEND_INTERVAL": "60",
            "REDEEM_STRIPE_SECRET_KEY": "sk_test_123", "REDEEM_STRIPE_API_URL": "http://127.0.0.1:12111",
            "REDEEM_STRIPE_WEBHOOK_SECRET": "whsec_abc", "REDEEM_RATE_LIMIT_PER_IP": "120", "REDEEM_RATE_LIMIT_PER_USER": "7",
            "REDEEM_TRUSTED_PROXIES": "127.0.0.1, ::1", "REDEEM_METRICS_PORT": "9464", "REDEEM_METRICS_HOST": "0.0.0.0",
            "OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:4318", "REDEEM_CONSOLE_REQUIRE_TWO_FACTOR": "true",
            "REDEEM_SANDBOX_TRIAL_SECONDS": "3", "REDEEM_BENCHMARK_ROUTES": "1",
        ])
        #expect(configuration.databaseURL.hasPrefix("postgres://") && configuration.databasePoolSize == 12)
        #expect(configuration.databaseListenURL == "postgres://redeem@db.internal:5432/redeem" && configuration.logLevel == .debug)
        #expect(configuration.mail?.smtp.host == "127.0.0.1" && configuration.mail?.resendQuietPeriod == 60)
        #expect(configuration.stripe?.apiBase.absoluteString == "http://127.0.0.1:12111" && configuration.stripeWebhookSecret == "whsec_abc")
        #expect(configuration.rateLimits.redeemPerIP == 120 && configuration.rateLimits.redeemPerUser == 7)
        #expect(configuration.trustedProxies == ["127.0.0.1", "::1"])
        #expect(configuration.metricsPort == 9464 && configuration.metricsHost == "0.0.0.0")
        #expect(configuration.otlpEndpoint == "http://127.0.0.1:4318", "OpenTelemetry's own variable")
        #expect(configuration.ownersNeedTwoFactor, "true is as good as 1")
        #expect(configuration.sandboxTrialSeconds == 3 && configuration.benchmarkRoutes)

        let both = try Self.configuration(["REDEEM_OTLP_ENDPOINT": "https://otel.example", "OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:4318"])
        #expect(both.otlpEndpoint == "https://otel.example", "Redeem's own variable comes first")
    }

    @Test(arguments: [
        (["REDEEM_PORT": "eighty"], "--port / REDEEM_PORT", "'eighty' is not a TCP port"),
        (["REDEEM_PORT": "70000"], "--port / REDEEM_PORT", "'70000' is not a TCP port"),
        (["REDEEM_LOG_LEVEL": "loud"], "--log-level / REDEEM_LOG_LEVEL", "'loud' is not one of"),
        (["REDEEM_PUBLIC_URL": "https://pay.example.com/shop"], "--public-url / REDEEM_PUBLIC_URL", "with no path"),
        (["REDEEM_PUBLIC_URL": "ftp://pay.example.com"], "--public-url / REDEEM_PUBLIC_URL", "http(s)"),
        (["REDEEM_DATABASE_URL": "mysql://db/redeem"], "--database-url / REDEEM_DATABASE_URL", "unsupported scheme 'mysql'"),
        (["REDEEM_DATABASE_POOL_SIZE": "0"], "--database-pool-size / REDEEM_DATABASE_POOL_SIZE", "from 1 to 1000"),
        (["REDEEM_DATABASE_POOL_SIZE": "many"], "--database-pool-size / REDEEM_DATABASE_POOL_SIZE", "'many'"),
        (["REDEEM_MAIL_FROM": "receipts@example.com"], "--smtp-url / REDEEM_SMTP_URL", "is required with --mail-from"),
        (["REDEEM_SMTP_URL": "smtp://127.0.0.1:25"], "--mail-from / REDEEM_MAIL_FROM", "is required with --smtp-url"),
        (["REDEEM_SMTP_URL": "smtp://127.0.0.1:25", "REDEEM_MAIL_FROM": "nobody"], "--mail-from / REDEEM_MAIL_FROM", "not an e-mail address"),
        (
            ["REDEEM_SMTP_URL": "smtp://h:25", "REDEEM_MAIL_FROM": "a@example.com", "REDEEM_RESEND_INTERVAL": "-1"],
            "--resend-interval / REDEEM_RESEND_INTERVAL", "number of seconds"
        ),
        (["REDEEM_STRIPE_WEBHOOK_SECRET": "abc"], "--stripe-webhook-secret / REDEEM_STRIPE_WEBHOOK_SECRET", "must start with whsec_"),
        (["REDEEM_STRIPE_SECRET_KEY": "sk_test_1", "REDEEM_STRIPE_API_URL": "not a url"], "REDEEM_STRIPE_API_URL", "is not a URL"),
        (["REDEEM_RATE_LIMIT_PER_IP": "0"], "--rate-limit-per-ip / REDEEM_RATE_LIMIT_PER_IP", "positive number"),
        (["REDEEM_RATE_LIMIT_PER_USER": "x"], "--rate-limit-per-user / REDEEM_RATE_LIMIT_PER_USER", "positive number"),
        (["REDEEM_TRUSTED_PROXIES": "127.0.0.1,proxy.internal"], "--trusted-proxies / REDEEM_TRUSTED_PROXIES", "'proxy.internal' is not an IP"),
        (["REDEEM_METRICS_PORT": "8080"], "--metrics-port / REDEEM_METRICS_PORT", "other than --port"),
        (["REDEEM_OTLP_ENDPOINT": "collector:4318"], "--otlp-endpoint / REDEEM_OTLP_ENDPOINT", "not an http(s) URL"),
        (["OTEL_EXPORTER_OTLP_ENDPOINT": "grpc://c:4317"], "--otlp-endpoint / REDEEM_OTLP_ENDPOINT", "not an http(s) URL"),
        (["REDEEM_CONSOLE_REQUIRE_TWO_FACTOR": "please"], "--console-require-two-factor / REDEEM_CONSOLE_REQUIRE_TWO_FACTOR", "'please'"),
        (["REDEEM_SANDBOX_TRIAL_SECONDS": "0"], "REDEEM_SANDBOX_TRIAL_SECONDS", "from 1 to 86400"),
    ])
    func anUnusableValueIsRefusedByItsNames(environment: [String: String], setting: String, reason: String) throws {
        let error = try #require(Self.refusal(environment), "\(environment) was accepted")
        #expect(error.setting == setting)
        #expect(error.reason.contains(reason), "\(error.reason)")
        #expect(error.description.hasPrefix("configuration error: \(setting) "))
    }

    @Test func aFlagIsRefusedByTheSameNames() throws {
        let error = try #require(Self.refusal(flags: [.port: "x"], ["REDEEM_PORT": "9000"]), "the flag is read first, and is bad")
        #expect(error.setting == "--port / REDEEM_PORT" && error.reason.contains("'x'"))
    }

    /// A refusal is printed and logged, so it never repeats a secret: a Stripe key, a webhook secret, or the
    /// password in a mail or database URL. Nor does a report of where each setting came from.
    @Test(arguments: [
        ["REDEEM_STRIPE_SECRET_KEY": "pk_live_visible1234"], ["REDEEM_STRIPE_WEBHOOK_SECRET": "wh_visible5678"],
        ["REDEEM_SMTP_URL": "imap://user:visible9012@mail.example.com", "REDEEM_MAIL_FROM": "a@example.com"],
        ["REDEEM_DATABASE_URL": "mysql://redeem:visible3456@db.internal/redeem"],
        ["REDEEM_DATABASE_URL": "postgres://redeem:visible7890@db internal/redeem"],
    ])
    func aSecretIsNeitherEchoedNorReported(environment: [String: String]) throws {
        let (name, secret) = try #require(environment.first { $0.value.contains("visible") })
        let password = String(secret.split(separator: "visible").last!.prefix(4))
        let error = try #require(Self.refusal(environment), "\(environment) was accepted")
        #expect(!error.description.contains(password), "\(error)")

        let heard = Heard()
        _ = try? ServerConfiguration(reader: Settings.reader(environment: environment, reporter: heard))
        let key = name.dropFirst("REDEEM_".count).lowercased().replacingOccurrences(of: "_", with: ".")
        #expect(heard.lines.contains { $0.contains(key) }, "the secret's lookup was heard: \(key)")
        #expect(!heard.lines.contains { $0.contains(password) }, "\(heard.lines.filter { $0.contains(password) })")
        if let from = environment["REDEEM_MAIL_FROM"] {
            #expect(heard.lines.contains { $0.contains(from) }, "a value that is no secret is reported as it is")
        }
    }

    /// A secrets directory (systemd's credentials, a container's or Kubernetes' mounted secrets): one file per setting,
    /// named as its flag without the dashes, its contents trimmed, links followed; a variable still wins over a file.
    @Test func aSecretsDirectoryGivesSettingsAsFiles() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("redeem-secrets-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        for (name, contents) in [
            ("stripe-secret-key", "sk_test_fromfile\n"), ("stripe-webhook-secret", "whsec_fromfile\n"), ("rate-limit-per-ip", "42\n"),
            ("README", "not a setting"), (".hidden", "skipped"), ("..data-smtp-url", "smtp://relay:pw@mail.example.com:587\n"),
        ] {
            try Data(contents.utf8).write(to: directory.appendingPathComponent(name))
        }
        // Kubernetes' secret volumes: each setting a link into a hidden folder.
        try FileManager.default.createSymbolicLink(
            atPath: directory.appendingPathComponent("smtp-url").path, withDestinationPath: "..data-smtp-url")
        try FileManager.default.createDirectory(at: directory.appendingPathComponent("a-folder"), withIntermediateDirectories: true)
        let files = try #require(try Settings.secretFiles(environment: ["CREDENTIALS_DIRECTORY": directory.path]))
        let configuration = try ServerConfiguration(
            reader: Settings.reader(
                environment: ["REDEEM_MAIL_FROM": "receipts@example.com", "REDEEM_RATE_LIMIT_PER_IP": "7"], files: files))
        #expect(configuration.stripe?.secretKey == "sk_test_fromfile" && configuration.stripeWebhookSecret == "whsec_fromfile")
        #expect(configuration.mail?.smtp.password == "pw" && configuration.mail?.smtp.host == "mail.example.com")
        #expect(configuration.rateLimits.redeemPerIP == 7, "the variable wins over the file")

        let refused = #expect(throws: ConfigurationError.self) {
            try Settings.loadSecretFiles(environment: [Settings.secretsDirectory: directory.path + "-missing"])
        }
        #expect(refused?.setting == "REDEEM_SECRETS_DIR" && refused?.reason.contains("-missing") == true)
        #expect(Settings.loadedSecretFiles == nil, "a directory that cannot be read loads nothing")
    }

    /// The first log line says what the server runs with, and holds no password or key.
    @Test func theStartingLineSaysWhatRunsAndNoSecret() throws {
        let configuration = try Self.configuration([
            "REDEEM_DATABASE_URL": "postgres://redeem:pw-db-123@db.internal:5432/redeem", "REDEEM_PUBLIC_URL": "https://pay.example.com",
            "REDEEM_SMTP_URL": "smtp://mailer:pw-mail-456@mail.example.com:587", "REDEEM_MAIL_FROM": "receipts@example.com",
            "REDEEM_STRIPE_SECRET_KEY": "sk_live_key789", "REDEEM_STRIPE_WEBHOOK_SECRET": "whsec_hook012",
            "REDEEM_TRUSTED_PROXIES": "::1,127.0.0.1",
        ])
        let summary = configuration.summary.mapValues { "\($0)" }
        #expect(summary["database"] == "postgres db.internal:5432/redeem" && summary["database_pool_size"] == "8")
        #expect(summary["email"] == "mail.example.com:587 (startTLS)" && summary["public_url"] == "https://pay.example.com")
        #expect(summary["stripe"] == "live" && summary["stripe_webhooks"] == "on" && summary["trusted_proxies"] == "127.0.0.1,::1")
        let text = summary.description
        for secret in ["pw-db-123", "pw-mail-456", "key789", "hook012", "mailer"] {
            #expect(!text.contains(secret), "\(secret) in \(text)")
        }
        let local = try Self.configuration(["REDEEM_DATABASE_URL": "sqlite:///tmp/shop.sqlite", "REDEEM_STRIPE_SECRET_KEY": "rk_test_1"])
        #expect(local.summary["database"] == "sqlite /tmp/shop.sqlite" && local.summary["stripe"] == "test")
        #expect(local.summary["email"] == "off" && local.summary["database_pool_size"] == nil)
    }

    @Test func theDatabaseSettingsAreTheSameForEveryCommand() throws {
        let reader = Settings.reader(
            flags: [.databasePoolSize: "3"], environment: ["REDEEM_DATABASE_URL": "sqlite:///tmp/shop.sqlite", "REDEEM_DATABASE_POOL_SIZE": "9"])
        let settings = try DatabaseSettings(reader: reader)
        #expect(settings.url == "sqlite:///tmp/shop.sqlite" && settings.poolSize == 3 && settings.listenURL == nil)
        #expect(Setting.databaseListenURL.flag == "--database-listen-url" && Setting.rateLimitPerIP.environmentName == "REDEEM_RATE_LIMIT_PER_IP")
    }
}

/// Every access report, as the text swift-configuration would log.
private final class Heard: AccessReporter, Sendable {
    private let store = Mutex<[String]>([])
    var lines: [String] { store.withLock { $0 } }

    func report(_ event: AccessEvent) {
        let text = "\(event) \(event.providerResults.map { "\($0.providerName): \($0.result)" })"
        store.withLock { $0.append(text) }
    }
}

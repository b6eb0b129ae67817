import ArgumentParser
import Foundation
import Hummingbird
import Logging
import RedeemServer
import RedeemStore

/// Options shared by `serve` and `demo`.
struct ServerOptions: ParsableArguments {
    @Option(help: "Address to listen on (env REDEEM_HOST; default 127.0.0.1).")
    var host: String?
    @Option(help: "Port to listen on (env REDEEM_PORT; default 8080).")
    var port: String?
    @Option(help: "Public base URL for links and pages, e.g. https://pay.example.com (env REDEEM_PUBLIC_URL).")
    var publicURL: String?
    @Option(help: "trace, debug, info, notice, warning, error or critical (env REDEEM_LOG_LEVEL; default info).")
    var logLevel: String?
    @Option(
        help:
            "Outgoing mail server: smtp://user:password@host:587 (STARTTLS), smtps://host:465, or smtp://host:25?security=none (env REDEEM_SMTP_URL)."
    )
    var smtpURL: String?
    @Option(help: "Sender address of e-mails, e.g. 'receipts@example.com' (env REDEEM_MAIL_FROM).")
    var mailFrom: String?
    @Option(help: "Stripe webhook signing secret, whsec_… (env REDEEM_STRIPE_WEBHOOK_SECRET); turns on POST /webhooks/stripe.")
    var stripeWebhookSecret: String?
    @Option(help: "Stripe secret key, sk_… (env REDEEM_STRIPE_SECRET_KEY); turns on paid checkout for production purchase links.")
    var stripeSecretKey: String?
    @Option(help: "Minimum seconds between two new-link e-mails for one purchase (env REDEEM_RESEND_INTERVAL; default 300).")
    var resendInterval: Int?
    @Option(help: "Redemption attempts per IP per minute (env REDEEM_RATE_LIMIT_PER_IP; default 60).")
    var rateLimitPerIP: Int?
    @Option(help: "Redemption attempts per app user per minute (env REDEEM_RATE_LIMIT_PER_USER; default 20).")
    var rateLimitPerUser: Int?
    @Flag(help: .hidden)  // POST /v1/benchmark/baseline, for benchmarks/redemption.py (env REDEEM_BENCHMARK_ROUTES=1)
    var benchmarkRoutes = false
    @Option(
        help:
            "Comma-separated addresses of reverse proxies whose X-Forwarded-For names the client, e.g. 127.0.0.1,::1 (env REDEEM_TRUSTED_PROXIES; default none)."
    )
    var trustedProxies: String?
    @Option(help: "Serve GET /metrics (Prometheus text format) on this port; off when not given (env REDEEM_METRICS_PORT).")
    var metricsPort: String?
    @Option(help: "Address the metrics listener binds (env REDEEM_METRICS_HOST; default 127.0.0.1).")
    var metricsHost: String?
    @Option(
        help: """
            Export a trace span per request over OTLP/HTTP to this collector base URL, e.g. http://127.0.0.1:4318 \
            (env REDEEM_OTLP_ENDPOINT or OTEL_EXPORTER_OTLP_ENDPOINT); off when not given.
            """)
    var otlpEndpoint: String?
    @Flag(help: "Console owners must sign in with an authenticator app as well as a password (env REDEEM_CONSOLE_REQUIRE_TWO_FACTOR=1).")
    var consoleRequireTwoFactor = false
    @Flag(help: "Refuse to start when migrations are pending instead of applying them.")
    var noMigrate = false
    @OptionGroup var database: DatabaseOptions

    func configuration() throws -> ServerConfiguration {
        let portText = port ?? Environment.value("REDEEM_PORT") ?? "8080"
        guard let port = Int(portText) else {
            throw ConfigurationError(setting: "--port / REDEEM_PORT", reason: "'\(portText)' is not a number")
        }
        var configuration = try ServerConfiguration(
            host: host ?? Environment.value("REDEEM_HOST") ?? "127.0.0.1", port: port,
            databaseURL: database.resolvedURL, publicURL: publicURL ?? Environment.value("REDEEM_PUBLIC_URL"),
            migrateOnStart: !noMigrate, logLevel: logLevel ?? Environment.value("REDEEM_LOG_LEVEL") ?? "info",
            smtpURL: smtpURL ?? Environment.value("REDEEM_SMTP_URL"), mailFrom: mailFrom ?? Environment.value("REDEEM_MAIL_FROM"),
            stripeWebhookSecret: stripeWebhookSecret ?? Environment.value("REDEEM_STRIPE_WEBHOOK_SECRET"),
            stripeSecretKey: stripeSecretKey ?? Environment.value("REDEEM_STRIPE_SECRET_KEY"),
            stripeAPIBase: Environment.value("REDEEM_STRIPE_API_URL")
        )
        configuration.databasePoolSize = try database.resolvedPoolSize()
        configuration.databaseListenURL = database.resolvedListenURL
        configuration.benchmarkRoutes = benchmarkRoutes || Environment.value("REDEEM_BENCHMARK_ROUTES") == "1"
        if let text = Environment.value("REDEEM_SANDBOX_TRIAL_SECONDS") {
            guard let seconds = Double(text), (1...86_400).contains(seconds) else {
                throw ConfigurationError(setting: "REDEEM_SANDBOX_TRIAL_SECONDS", reason: "must be a number of seconds from 1 to 86400")
            }
            configuration.sandboxTrialSeconds = seconds
        }
        if let text = metricsPort ?? Environment.value("REDEEM_METRICS_PORT") {
            guard let value = Int(text), (1...65535).contains(value), value != port else {
                throw ConfigurationError(
                    setting: "--metrics-port / REDEEM_METRICS_PORT", reason: "'\(text)' is not a free port number other than --port")
            }
            configuration.metricsPort = value
        }
        configuration.metricsHost = metricsHost ?? Environment.value("REDEEM_METRICS_HOST") ?? "127.0.0.1"
        if let endpoint = otlpEndpoint ?? Environment.value("REDEEM_OTLP_ENDPOINT") ?? Environment.value("OTEL_EXPORTER_OTLP_ENDPOINT") {
            guard let url = URL(string: endpoint), ["http", "https"].contains(url.scheme ?? ""), url.host != nil else {
                throw ConfigurationError(setting: "--otlp-endpoint / REDEEM_OTLP_ENDPOINT", reason: "'\(endpoint)' is not an http(s) URL")
            }
            configuration.otlpEndpoint = endpoint
        }
        configuration.ownersNeedTwoFactor = consoleRequireTwoFactor || Environment.value("REDEEM_CONSOLE_REQUIRE_TWO_FACTOR") == "1"
        if let text = trustedProxies ?? Environment.value("REDEEM_TRUSTED_PROXIES") {
            configuration.trustedProxies = try ServerConfiguration.trustedProxies(text)
        }
        if let text = resendInterval.map(String.init) ?? Environment.value("REDEEM_RESEND_INTERVAL") {
            guard let seconds = Int(text), seconds >= 0 else {
                throw ConfigurationError(setting: "--resend-interval / REDEEM_RESEND_INTERVAL", reason: "'\(text)' is not a number of seconds")
            }
            configuration.mail?.resendQuietPeriod = TimeInterval(seconds)
        }
        for (value, setting, keyPath) in [
            (
                rateLimitPerIP.map(String.init) ?? Environment.value("REDEEM_RATE_LIMIT_PER_IP"), "--rate-limit-per-ip / REDEEM_RATE_LIMIT_PER_IP",
                \RateLimits.redeemPerIP
            ),
            (
                rateLimitPerUser.map(String.init) ?? Environment.value("REDEEM_RATE_LIMIT_PER_USER"),
                "--rate-limit-per-user / REDEEM_RATE_LIMIT_PER_USER", \RateLimits.redeemPerUser
            ),
        ] as [(String?, String, WritableKeyPath<RateLimits, Int>)] {
            guard let value else { continue }
            guard let limit = Int(value), limit > 0 else { throw ConfigurationError(setting: setting, reason: "'\(value)' is not a positive number") }
            configuration.rateLimits[keyPath: keyPath] = limit
        }
        return configuration
    }
}

struct Serve: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Run the HTTP server.")

    @OptionGroup var options: ServerOptions

    func run() async throws {
        let configuration = try options.configuration()
        let app = try await buildApplication(configuration)
        try await app.runService()
    }
}

struct Migrate: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Apply pending database migrations.")

    @OptionGroup var database: DatabaseOptions
    @Flag(help: "Only list pending migrations.")
    var dryRun = false

    func run() async throws {
        let store = try await SQLStore.open(url: database.resolvedURL, poolSize: try database.resolvedPoolSize(), logger: .cli)
        let runner = MigrationRunner(database: store.database)
        if dryRun {
            let pending = try await runner.pending()
            print(pending.isEmpty ? "No pending migrations." : pending.map { "pending: \($0.version) \($0.name)" }.joined(separator: "\n"))
        } else {
            let applied = try await runner.apply(logger: .cli)
            print(applied.isEmpty ? "Database is up to date." : "Applied migrations \(applied.map(String.init).joined(separator: ", ")).")
        }
        await store.close()
    }
}

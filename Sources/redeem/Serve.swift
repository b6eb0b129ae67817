import ArgumentParser
import Hummingbird
import Logging
import RedeemServer
import RedeemStore

/// Options shared by `serve` and `demo`.
struct ServerOptions: ParsableArguments {
    @Option(help: "Address to listen on (env \(Setting.host.environmentName); default \(ServerConfiguration.defaultHost)).")
    var host: String?
    @Option(help: "Port to listen on (env \(Setting.port.environmentName); default \(ServerConfiguration.defaultPort)).")
    var port: String?
    @Option(help: "Public base URL for links and pages, e.g. https://pay.example.com (env \(Setting.publicURL.environmentName)).")
    var publicURL: String?
    @Option(
        help:
            "trace, debug, info, notice, warning, error or critical (env \(Setting.logLevel.environmentName); default \(ServerConfiguration.defaultLogLevel.rawValue))."
    )
    var logLevel: String?
    @Option(
        help:
            "Outgoing mail server: smtp://user:password@host:587 (STARTTLS), smtps://host:465, or smtp://host:25?security=none (env \(Setting.smtpURL.environmentName))."
    )
    var smtpURL: String?
    @Option(help: "Sender address of e-mails, e.g. 'receipts@example.com' (env \(Setting.mailFrom.environmentName)).")
    var mailFrom: String?
    @Option(help: "Stripe webhook signing secret, whsec_… (env \(Setting.stripeWebhookSecret.environmentName)); turns on POST /webhooks/stripe.")
    var stripeWebhookSecret: String?
    @Option(help: "Stripe secret key, sk_… (env \(Setting.stripeSecretKey.environmentName)); turns on paid checkout for production purchase links.")
    var stripeSecretKey: String?
    @Option(
        help:
            "Minimum seconds between two new-link e-mails for one purchase (env \(Setting.resendInterval.environmentName); default \(Int(MailSettings.defaultResendQuietPeriod)))."
    )
    var resendInterval: Int?
    @Option(help: "Redemption attempts per IP per minute (env \(Setting.rateLimitPerIP.environmentName); default \(RateLimits().redeemPerIP)).")
    var rateLimitPerIP: Int?
    @Option(
        help: "Redemption attempts per app user per minute (env \(Setting.rateLimitPerUser.environmentName); default \(RateLimits().redeemPerUser)).")
    var rateLimitPerUser: Int?
    @Flag(help: .hidden)  // POST /v1/benchmark/baseline, for benchmarks/redemption.py (env REDEEM_BENCHMARK_ROUTES=1)
    var benchmarkRoutes = false
    @Option(
        help:
            "Comma-separated addresses of reverse proxies whose X-Forwarded-For names the client, e.g. 127.0.0.1,::1 (env \(Setting.trustedProxies.environmentName); default none)."
    )
    var trustedProxies: String?
    @Option(help: "Serve GET /metrics (Prometheus text format) on this port; off when not given (env \(Setting.metricsPort.environmentName)).")
    var metricsPort: String?
    @Option(help: "Address the metrics listener binds (env \(Setting.metricsHost.environmentName); default \(ServerConfiguration.defaultHost)).")
    var metricsHost: String?
    @Option(
        help: """
            Export a trace span per request over OTLP/HTTP to this collector base URL, e.g. http://127.0.0.1:4318 \
            (env \(Setting.otlpEndpoint.environmentName) or OTEL_EXPORTER_OTLP_ENDPOINT); off when not given.
            """)
    var otlpEndpoint: String?
    @Flag(
        help:
            "Console owners must sign in with an authenticator app as well as a password (env \(Setting.consoleRequireTwoFactor.environmentName)=1).")
    var consoleRequireTwoFactor = false
    @Flag(help: "Refuse to start when migrations are pending instead of applying them.")
    var noMigrate = false
    @OptionGroup var database: DatabaseOptions

    /// The settings given as flags; `Settings` layers them over the environment.
    var flags: [Setting: String?] {
        database.flags.merging([
            .host: host, .port: port, .publicURL: publicURL, .logLevel: logLevel, .smtpURL: smtpURL, .mailFrom: mailFrom,
            .stripeWebhookSecret: stripeWebhookSecret, .stripeSecretKey: stripeSecretKey, .resendInterval: resendInterval.map(String.init),
            .rateLimitPerIP: rateLimitPerIP.map(String.init), .rateLimitPerUser: rateLimitPerUser.map(String.init),
            .trustedProxies: trustedProxies, .metricsPort: metricsPort, .metricsHost: metricsHost, .otlpEndpoint: otlpEndpoint,
            .consoleRequireTwoFactor: consoleRequireTwoFactor ? "1" : nil, .benchmarkRoutes: benchmarkRoutes ? "1" : nil,
        ]) { $1 }
    }

    func configuration() throws -> ServerConfiguration {
        try ServerConfiguration(reader: Settings.reader(flags: flags), migrateOnStart: !noMigrate)
    }
}

struct Serve: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Run the HTTP server.",
        discussion: """
            Each setting is its flag, else its variable, else a file named as the flag without the dashes \
            (stripe-secret-key) in \(Settings.secretsDirectory) or systemd's CREDENTIALS_DIRECTORY. \
            CONFIG_ACCESS_LOG_FILE=path writes where each came from, secrets redacted.
            """)

    @OptionGroup var options: ServerOptions
    @Flag(help: "Check the settings, the database and the mail server, print what serve would run with, and exit without serving or migrating.")
    var check = false

    func run() async throws {
        let configuration = try options.configuration()
        if check {
            let lines = try await ConfigurationCheck.run(configuration, logger: .cli)
            print("The settings can be used. serve would run with:\n" + lines.joined(separator: "\n"))
            return
        }
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
        let settings = try database.settings()
        let store = try await SQLStore.open(url: settings.url, poolSize: settings.poolSize, logger: .cli)
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

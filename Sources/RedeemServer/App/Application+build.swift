import Foundation
import Hummingbird
import Logging
import RedeemCore
import RedeemStore
import ServiceLifecycle

/// The pieces a running server is made of, built once and shared by routes and tests.
public struct ServerDependencies: Sendable {
    public let store: SQLStore
    public let clock: any RedeemClock
    public let keyCache: KeyCache
    /// The base of HTTPS redemption links and hosted pages.
    public let publicURL: URL
    public let templates: Templates
    /// The Customer Center's words in each language it speaks.
    let customerCenterLanguages: CustomerCenterLanguages
    public let rateLimits: RateLimits
    public let mail: MailSettings?
    /// Sends queued e-mail; nil without SMTP settings.
    public let mailer: EmailDeliveryWorker?
    /// Queues the reminders before a renewal; nil without SMTP settings.
    let reminders: RenewalReminderWorker?
    /// Sends the team's invitations and password-reset links; nil without SMTP settings.
    public let teamMailer: TeamMailer?
    /// Delivers server notifications.
    public let webhooks: WebhookDeliveryWorker
    /// Stripe's webhook signing secret (`whsec_…`); nil leaves `/webhooks/stripe` off.
    public let stripeWebhookSecret: String?
    /// Creates Stripe Checkout Sessions for production purchase links; nil leaves them off.
    public let stripe: StripeSettings?
    /// Serves `POST /v1/benchmark/baseline` and `/v1/benchmark/same-writes`, for `benchmarks/redemption.py` only.
    public var benchmarkRoutes = false
    /// Peers whose `X-Forwarded-For` names the client (`ForwardedForMiddleware`).
    public var trustedProxies: Set<String> = []
    /// Console owners must sign in with an authenticator code (`--console-require-two-factor`).
    public var ownersNeedTwoFactor = false
    /// A span per request (`RequestSpanMiddleware`), when tracing was bootstrapped.
    public var tracing = false

    public init(
        store: SQLStore, clock: any RedeemClock = SystemClock(), keyTTL: TimeInterval = 5,
        publicURL: URL = ServerConfiguration.defaultPublicURL, mail: MailSettings? = nil, rateLimits: RateLimits = RateLimits(),
        stripeWebhookSecret: String? = nil, stripe: StripeSettings? = nil, logger: Logger = Logger(label: "redeem")
    ) async throws {
        self.stripeWebhookSecret = stripeWebhookSecret
        self.stripe = stripe
        self.store = store
        self.clock = clock
        self.sharedCounters = BatchedCounter(store: store)
        self.keyCache = KeyCache(store: store, ttl: keyTTL)
        self.publicURL = publicURL
        let templates = try await Templates.load()
        self.templates = templates
        self.customerCenterLanguages = try CustomerCenterLanguages.load()
        self.rateLimits = rateLimits
        self.mail = mail
        let composer = EmailComposer(
            store: store, links: RedemptionLinkIssuer(store: store, publicURL: publicURL), templates: templates, sender: mail?.smtp.from)
        let mailer = mail.map { EmailDeliveryWorker(store: store, composer: composer, settings: $0, clock: clock, logger: logger) }
        self.mailer = mailer
        self.reminders = mailer.map { RenewalReminderWorker(store: store, clock: clock, mailer: $0, logger: logger) }
        self.teamMailer = mail.map {
            TeamMailer(store: store, settings: $0, templates: templates, clock: clock, publicURL: publicURL, logger: logger)
        }
        self.webhooks = WebhookDeliveryWorker(store: store, clock: clock, logger: logger)
    }

    public var admin: AdminService { AdminService(store: store, clock: clock, keyCache: keyCache) }
    /// Offerings written per app, kept while the app's catalog is unchanged.
    let offeringsCache = OfferingsCache()
    /// Customer and catalog versions announced by PostgreSQL, fed by `CustomerVersionFeed` while the server runs.
    let customerVersions = CustomerVersions()
    var offerings: OfferingsService { OfferingsService(store: store, cache: offeringsCache, publicURL: publicURL) }
    var offeringOverrides: OfferingOverrideService { OfferingOverrideService(store: store, clock: clock) }
    var identity: IdentityService {
        IdentityService(
            store: store, clock: clock,
            managed: { [publicURL] info, appID in
                info.withManagementURL(PortalLinks.home(publicURL: publicURL, appID: appID))
            })
    }
    var supportTickets: SupportTicketService {
        SupportTicketService(store: store, limiter: rateLimiter, mail: mail, logger: Logger(label: "redeem"))
    }
    var customerCenter: CustomerCenterService {
        CustomerCenterService(store: store, publicURL: publicURL, portalSignsIn: mail != nil, tickets: supportTickets)
    }
    var sdkHealth: SDKHealthReportService { SDKHealthReportService(store: store) }
    var attributes: AttributesService { AttributesService(store: store, clock: clock) }
    var erasure: ErasureService { ErasureService(store: store, clock: clock, support: support) }
    var exports: CustomerExportService { CustomerExportService(store: store, clock: clock) }
    var links: RedemptionLinkIssuer { RedemptionLinkIssuer(store: store, publicURL: publicURL) }
    /// Rate-limit counters for a single SQLite server process.
    let counters = MemoryCounters()
    /// Rate-limit counters in the database, which PostgreSQL instances share.
    let sharedCounters: BatchedCounter
    /// One SQLite server process counts in memory (no write per request); PostgreSQL instances share the database's counts.
    var rateLimiter: RateLimiter {
        RateLimiter(counter: store.database.engine == .sqlite ? counters : sharedCounters, limits: rateLimits, clock: clock)
    }
    var emailQueue: EmailQueue { EmailQueue(store: store, mail: mail, mailer: mailer, clock: clock) }
    var redemption: RedemptionService { RedemptionService(store: store, emailQueue: emailQueue, limiter: rateLimiter, clock: clock) }
    var checkout: CheckoutService {
        CheckoutService(store: store, links: links, emailQueue: emailQueue, clock: clock, sandboxTrialLength: sandboxTrialLength)
    }
    /// How long a sandbox checkout's free trial lasts.
    public var sandboxTrialLength: TimeInterval = SandboxClock.trialLength
    var stripePrices: StripePriceSync { StripePriceSync(stripe: stripeSessions, store: store, logger: Logger(label: "redeem")) }
    var checkoutPages: CheckoutPages { CheckoutPages(templates: templates, emailOn: mail != nil) }
    var stripeSessions: StripeSessions? { stripe.map { StripeSessions(settings: $0, client: .shared) } }
    var offerCodes: OfferCodeService {
        OfferCodeService(store: store, emailQueue: emailQueue, limiter: rateLimiter, clock: clock, publicURL: publicURL, links: links)
    }
    var webCheckouts: WebCheckoutService {
        WebCheckoutService(store: store, clock: clock, publicURL: publicURL, stripe: stripeSessions, links: links, checkout: checkout)
    }
    var stripeEvents: StripeEventService {
        StripeEventService(store: store, clock: clock, webhookSecret: stripeWebhookSecret, emailQueue: emailQueue, stripe: stripeSessions)
    }
    var linkPage: LinkPageService { LinkPageService(store: store, clock: clock, limiter: rateLimiter, emailQueue: emailQueue) }
    var webhookEndpoints: WebhookEndpointService { WebhookEndpointService(store: store, clock: clock, worker: webhooks) }
    var support: SupportService { SupportService(store: store, clock: clock, links: links, emailQueue: emailQueue, stripe: stripeSessions) }
    var console: ConsoleService {
        ConsoleService(
            sessions: store, store: store, clock: clock, limiter: rateLimiter, support: support, ownersNeedTwoFactor: ownersNeedTwoFactor)
    }
    var team: TeamService { TeamService(store: store, clock: clock, limiter: rateLimiter, mailer: teamMailer, publicURL: publicURL) }
    var portal: PortalService {
        PortalService(
            store: store, clock: clock, limiter: rateLimiter, emailQueue: emailQueue, support: support, stripe: stripeSessions, publicURL: publicURL)
    }
    /// CustomerInfo with `management_url` at the app's portal, for customers who bought on the web.
    func managed(_ info: CustomerInfo, appID: String) -> CustomerInfo {
        info.withManagementURL(PortalLinks.home(publicURL: publicURL, appID: appID))
    }
    var purchases: PurchaseService { PurchaseService(store: store, links: links, emailQueue: emailQueue, clock: clock) }
    public var subscriptionMetrics: SubscriptionMetricsService { SubscriptionMetricsService(store: store, clock: clock) }
}

/// The router with every route: public, SDK (`/v1`, any key of the app) and admin (`/admin/v1`, secret keys).
public func buildRouter(_ deps: ServerDependencies) throws -> Router<AppRequestContext> {
    let router = Router(context: AppRequestContext.self)
    let routes = RouteTable()
    if deps.tracing { router.add(middleware: RequestSpanMiddleware<AppRequestContext>()) }
    router.add(middleware: BrowserAccessMiddleware<AppRequestContext>())
    router.add(middleware: RevenueCatHeadersMiddleware<AppRequestContext>(clock: deps.clock))
    router.add(middleware: BuyerLanguageMiddleware<AppRequestContext>(languages: .bundled, secureCookies: deps.publicURL.scheme == "https"))
    router.addMiddleware {
        RequestLogMiddleware<AppRequestContext>()
        ErrorMiddleware<AppRequestContext>(
            routes: routes, pages: ErrorPages(templates: deps.templates, app: { [store = deps.store] in try? await store.app(id: $0) }))
    }
    // Only behind a proxy is there a header to read; without one, no request pays for the check.
    if !deps.trustedProxies.isEmpty { router.add(middleware: ForwardedForMiddleware(trusted: deps.trustedProxies)) }
    HealthController(database: deps.store.database, templates: deps.templates, publicURL: deps.publicURL).addRoutes(to: router)
    try OpenAPIController().addRoutes(to: router)
    try AssetsController.load().addRoutes(to: router)
    WellKnownController(files: AssociationFiles(store: deps.store)).addRoutes(to: router)
    let purchaseLinks = PurchaseLinkService(
        store: deps.store, checkout: deps.checkout, stripe: deps.stripeSessions, links: deps.links, clock: deps.clock, publicURL: deps.publicURL)
    CheckoutPageController(service: purchaseLinks, checkout: deps.checkout, clock: deps.clock, pages: deps.checkoutPages, publicURL: deps.publicURL)
        .addRoutes(to: router)
    OfferRedeemPageController(
        service: deps.offerCodes, flow: OfferClaimFlow(service: deps.offerCodes, stripe: deps.stripeSessions), pages: deps.checkoutPages
    ).addRoutes(to: router)
    StripeWebhookController(service: deps.stripeEvents).addRoutes(to: router)
    let linkPages = LinkPageController(service: deps.linkPage, templates: deps.templates, publicURL: deps.publicURL)
    linkPages.addRoutes(to: router)
    let portalPages = PortalPages(templates: deps.templates, mailOn: deps.portal.mailOn, secureCookies: deps.publicURL.scheme == "https")
    PortalSignInController(service: deps.portal, pages: portalPages).addRoutes(to: router)
    PortalController(service: deps.portal, pages: portalPages).addRoutes(to: router)
    let consolePages = ConsolePages(templates: deps.templates)
    ConsoleSignInController(service: deps.console, pages: consolePages, secureCookies: deps.publicURL.scheme == "https").addRoutes(to: router)
    let gate = ConsoleSessionMiddleware(service: deps.console, pages: consolePages)
    TeamLinksController(service: deps.team, console: deps.console, pages: consolePages, secureCookies: deps.publicURL.scheme == "https")
        .addRoutes(to: router)
    ConsoleAccountController(service: deps.console, pages: consolePages)
        .addRoutes(
            to: router.group().add(middleware: ConsoleSessionMiddleware(service: deps.console, pages: consolePages, enrolling: true)).group(
                context: ConsoleContext.self))
    let console = router.group().add(middleware: gate).group(context: ConsoleContext.self)
    ConsoleSupportController(service: deps.console, erasure: deps.erasure, exports: deps.exports, pages: consolePages).addRoutes(to: console)
    ConsolePurchaseActionsController(service: deps.console, offeringOverrides: deps.offeringOverrides, pages: consolePages).addRoutes(to: console)
    ConsoleAuditController(service: deps.console, pages: consolePages).addRoutes(to: console)
    ConsoleOperationsController(service: deps.console, pages: consolePages, admin: deps.admin, webhooks: deps.webhookEndpoints).addRoutes(to: console)
    let firstSteps = FirstStepsService(store: deps.store, mailConfigured: deps.mail != nil, stripeConfigured: deps.stripe != nil)
    ConsoleOverviewController(service: deps.console, metrics: deps.subscriptionMetrics, pages: consolePages, firstSteps: firstSteps).addRoutes(
        to: console)
    TeamController(service: deps.team, pages: consolePages, clock: deps.clock).addRoutes(to: console)
    ConsoleSettingsController(
        service: deps.console, pages: consolePages, admin: deps.admin, publicURL: deps.publicURL, paidCheckout: deps.stripe != nil,
        firstSteps: firstSteps
    )
    .addRoutes(to: console)
    ConsoleCatalogController(
        service: deps.console, pages: consolePages, admin: deps.admin, publicURL: deps.publicURL, paidCheckout: deps.stripe != nil,
        stripePrices: deps.stripePrices
    ).addRoutes(to: console)
    ConsoleOfferingsController(service: deps.console, pages: consolePages, admin: deps.admin).addRoutes(to: console)
    ConsolePreviewController(
        service: deps.console, admin: deps.admin, checkoutPages: deps.checkoutPages, linkPages: linkPages, publicURL: deps.publicURL
    )
    .addRoutes(to: console)
    let jobs = CodeBatchJobs(clock: deps.clock)
    let offersPage = OffersPage(
        service: deps.console, pages: consolePages, admin: deps.admin, jobs: jobs, publicURL: deps.publicURL, paidCheckout: deps.stripe != nil)
    ConsoleOffersController(service: deps.console, pages: consolePages, admin: deps.admin, offersPage: offersPage).addRoutes(to: console)
    ConsoleCodeBatchesController(
        service: deps.console, pages: consolePages, admin: deps.admin, jobs: jobs, publicURL: deps.publicURL, offersPage: offersPage
    ).addRoutes(to: console)

    SDKHealthController().addRoutes(to: router)
    let v1 = router.group("/v1").add(middleware: AuthMiddleware(keys: deps.keyCache))
    OfferingsController(service: deps.offerings).addRoutes(to: v1)
    let customerInfo = CustomerInfoService(
        store: deps.store, cache: CustomerInfoCache(), versions: deps.customerVersions, clock: deps.clock,
        managementURL: { PortalLinks.home(publicURL: deps.publicURL, appID: $0) })
    CustomerInfoController(service: customerInfo).addRoutes(to: v1)
    RedeemPurchaseController(deps: deps).addRoutes(to: v1)
    OfferCodeController(deps: deps).addRoutes(to: v1)
    if deps.benchmarkRoutes {
        BenchmarkController(service: BenchmarkService(store: deps.store, limiter: deps.rateLimiter, clock: deps.clock)).addRoutes(to: v1)
    }

    try APIHandlers.register(deps, on: router)
    routes.load(router.routes)
    return router
}

/// Opens the store, migrates (or checks nothing is pending), and builds the application.
public func buildApplication(
    _ configuration: ServerConfiguration, clock: any RedeemClock = SystemClock(), logger: Logger? = nil
) async throws -> some ApplicationProtocol {
    var logger = logger ?? Logger(label: "redeem")
    logger.logLevel = configuration.logLevel
    try PortCheck.ensureFree(host: configuration.host, port: configuration.port)
    if let port = configuration.metricsPort { try PortCheck.ensureFree(host: configuration.metricsHost, port: port) }
    // Before anything makes a metric handle: handles made earlier would stay no-ops.
    let registry = configuration.metricsPort.map { _ in MetricsServer.bootstrap() }
    let tracing = try configuration.otlpEndpoint.map { try TracingSetup.bootstrap(endpoint: $0, logger: logger) }
    let store = try await SQLStore.open(
        url: configuration.databaseURL, listenURL: configuration.databaseListenURL, poolSize: configuration.databasePoolSize, logger: logger)
    let runner = MigrationRunner(database: store.database)
    if configuration.migrateOnStart {
        try await runner.apply(logger: logger)
    } else {
        let pending = try await runner.pending()
        guard pending.isEmpty else { throw MigrationError.pending(pending.map(\.version)) }
    }
    var deps = try await ServerDependencies(
        store: store, clock: clock, publicURL: configuration.publicURL, mail: configuration.mail, rateLimits: configuration.rateLimits,
        stripeWebhookSecret: configuration.stripeWebhookSecret, stripe: configuration.stripe, logger: logger
    )
    deps.benchmarkRoutes = configuration.benchmarkRoutes
    deps.ownersNeedTwoFactor = configuration.ownersNeedTwoFactor
    deps.trustedProxies = configuration.trustedProxies
    deps.sandboxTrialLength = configuration.sandboxTrialSeconds
    logger.info("starting", metadata: configuration.summary)
    if deps.mailer == nil { logger.warning("no SMTP settings (--smtp-url): e-mail is off, and expired links cannot be re-sent") }
    deps.tracing = tracing != nil
    let router = try buildRouter(deps)
    // The store closes last: services shut down in reverse order, and the key-use writer flushes on its way out.
    var services: [any Service] = [
        StoreService(store: store), KeyUseWriter(cache: deps.keyCache, logger: logger), deps.webhooks,
        SandboxRenewalWorker(
            store: store, clock: clock, logger: logger, interval: SandboxRenewalWorker.interval(trialLength: deps.sandboxTrialLength),
            mail: deps.emailQueue.lifecycle),
    ]
    services.append(CustomerVersionFeed(store: store, versions: deps.customerVersions))
    if store.database.engine == .postgres {
        services.append(RateLimitPruner(store: store, window: deps.rateLimits.window, clock: clock, logger: logger))
    }
    if let mailer = deps.mailer { services.append(mailer) }
    if let reminders = deps.reminders { services.append(reminders) }
    if let teamMailer = deps.teamMailer { services.append(teamMailer) }
    if let tracing, let endpoint = configuration.otlpEndpoint {
        services.append(tracing)
        logger.info("tracing to \(endpoint)")
    }
    if let registry, let port = configuration.metricsPort {
        let gauges = SubscriptionGauges(registry: registry, service: deps.subscriptionMetrics)
        services.append(
            MetricsServer.application(
                registry: registry, store: store, subscriptions: gauges, host: configuration.metricsHost, port: port, logger: logger))
        logger.info("metrics at http://\(configuration.metricsHost):\(port)/metrics")
    }
    return Application(
        router: router,
        configuration: .init(address: .hostname(configuration.host, port: configuration.port), serverName: "redeem"),
        services: services,
        logger: logger
    )
}

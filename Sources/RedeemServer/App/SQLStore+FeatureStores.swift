import Foundation
import RedeemCore
import RedeemStore

// The composition root's one link between the features and the storage: `SQLStore` serves every feature's store
// protocol, on SQLite and PostgreSQL alike. Nothing else in the server names `SQLStore`.
extension SQLStore: AdminStore {}
extension SQLStore: AttributesStore {}
extension SQLStore: ErasureStore {}
extension SQLStore: CustomerExportStore {}
extension SQLStore: IdentityStore {}
extension SQLStore: OfferingsStore {}
extension SQLStore: OfferingOverrideStore {}
extension SQLStore: BenchmarkStore {}
extension SQLStore: CheckoutStore {}
extension SQLStore: ProductPricingStore {}
extension SQLStore: ConsoleReadStore {}
extension SQLStore: ConsoleSessionStore {}
extension SQLStore: CustomerInfoStore {}
extension SQLStore: CustomerCenterStore {}
extension SQLStore: SDKHealthStore {}
extension SQLStore: EmailStore {}
extension SQLStore: HitBatchStore {}
extension SQLStore: RateLimitPruneStore {}
extension SQLStore: PortalStore {}
extension SQLStore: KeyStore {}
extension SQLStore: LinkPageStore {}
extension SQLStore: MetricsStore {}
extension SQLStore: OfferCodeStore {}
extension SQLStore: OperatorStore {}
extension SQLStore: PurchaseStore {}
extension SQLStore: RedemptionLinkStore {}
extension SQLStore: RedemptionStore {}
extension SQLStore: SandboxRenewalStore {}
extension SQLStore: StripeEventStore {}
extension SQLStore: RenewalReminderStore {}
extension SQLStore: SupportStore {}
extension SQLStore: SubscriptionMetricsStore {}
extension SQLStore: TeamStore {}
extension SQLStore: UniversalLinkStore {}
extension SQLStore: WebhookAdminStore {}
extension SQLStore: FirstStepsStore {}
extension SQLStore: WebhookQueueStore {}

extension SupportService {
    /// For the CLI: links against `publicURL`; e-mail is left to the running server (nothing is queued).
    public init(store: SQLStore, publicURL: URL, clock: any RedeemClock = SystemClock()) {
        self.init(
            store: store, clock: clock, links: RedemptionLinkIssuer(store: store, publicURL: publicURL),
            emailQueue: EmailQueue(store: store, mail: nil, mailer: nil, clock: clock), stripe: nil)
    }
}

extension TeamService {
    /// For the CLI (`redeem operators invite`): an invitation whose link is returned to print, not e-mailed.
    public static func invite(store: SQLStore, email: String, role: OperatorRole, publicURL: URL, actor: String) async throws -> String {
        let clock = SystemClock()
        let limiter = RateLimiter(counter: MemoryCounters(), limits: RateLimits(), clock: clock)
        let service = TeamService(store: store, clock: clock, limiter: limiter, mailer: nil, publicURL: publicURL)
        return try await service.invite(email: email, role: role, actor: actor).link ?? ""
    }
}

extension SubscriptionMetricsService {
    /// For the CLI: metrics read from a local database.
    public init(store: SQLStore, clock: any RedeemClock = SystemClock()) { self.init(store: store as any SubscriptionMetricsStore, clock: clock) }
}

extension OfferingOverrideService {
    /// For the CLI (`redeem customers offering`): a customer's chosen offering in a local database.
    public init(store: SQLStore, clock: any RedeemClock = SystemClock()) { self.init(store: store as any OfferingOverrideStore, clock: clock) }
}

extension CustomerExportService {
    /// For the CLI (`redeem customers export`): a customer's data from a local database, the export audited as `cli`.
    public init(store: SQLStore, clock: any RedeemClock = SystemClock()) { self.init(store: store as any CustomerExportStore, clock: clock) }
}

import Foundation

/// The RedeemKit entry point: redeem web purchases and offer codes, and read the customer's
/// web entitlements.
///
/// Configure once at launch with `Redeem.configure(apiKey:baseURL:)` and use `Redeem.shared`,
/// or create independent instances with `init(configuration:)`.
public final class Redeem: Sendable {
    public let configuration: Configuration

    let backend: Backend
    let identity: IdentityManager
    let broadcaster: CustomerInfoBroadcaster
    let customerInfoManager: CustomerInfoManager
    let redemptions = InFlightRequests<WebPurchaseRedemptionResult>()
    let delegateBox = DelegateBox()
    let linkParser: RedemptionLinkParser

    private static let sharedInstance = Locked<Redeem?>(nil)

    /// An instance that is not `shared` and does not take buffered links.
    public init(configuration: Configuration) {
        self.configuration = configuration
        let storage = configuration.keyValueStorage ?? DirectoryStorage(directory: configuration.storageDirectory)
        let cache = CustomerInfoCache(directory: configuration.storageDirectory.appendingPathComponent("customer-info"))
        backend = Backend(
            baseURL: configuration.baseURL,
            apiKey: configuration.apiKey,
            transport: configuration.transport,
            retryPolicy: configuration.retryPolicy,
            clock: configuration.clock
        )
        identity = IdentityManager(appUserID: configuration.appUserID, storage: storage)
        broadcaster = CustomerInfoBroadcaster()
        customerInfoManager = CustomerInfoManager(
            backend: backend,
            cache: cache,
            identity: identity,
            broadcaster: broadcaster,
            clock: configuration.clock,
            maxAge: configuration.cacheMaxAge
        )
        linkParser = configuration.linkParser

        // Subscribers start from what is on disk, evaluated now.
        let now = configuration.clock.now()
        broadcaster.reset(to: cache.load(appUserID: identity.appUserID).map { $0.info.evaluated(at: max(now, $0.info.requestDate)) })

        if configuration.refreshOnConfigure {
            let manager = customerInfoManager
            let appUserID = identity.appUserID
            Task { _ = await manager.customerInfo(for: appUserID, policy: .cachedOrFetched) }
        }
    }

    /// Configures `Redeem.shared` and redeems every link kept by `Redeem.handle(url:)` so far, in order.
    ///
    /// Pass the delegate here (not afterwards) so kept links report to it.
    @discardableResult
    public static func configure(
        apiKey: String,
        baseURL: URL,
        appUserID: String? = nil,
        delegate: (any RedeemDelegate)? = nil
    ) -> Redeem {
        configure(with: Configuration(apiKey: apiKey, baseURL: baseURL, appUserID: appUserID), delegate: delegate)
    }

    /// Configures `Redeem.shared` with a full configuration. See `configure(apiKey:baseURL:appUserID:delegate:)`.
    @discardableResult
    public static func configure(with configuration: Configuration, delegate: (any RedeemDelegate)? = nil) -> Redeem {
        let redeem = Redeem(configuration: configuration)
        redeem.delegateBox.delegate = delegate
        sharedInstance.withLock { $0 = redeem }
        LinkBuffer.shared.attach(redeem)
        return redeem
    }

    /// The configured instance. Calling this before `configure` is a programming error.
    public static var shared: Redeem {
        guard let redeem = sharedInstance.withLock({ $0 }) else {
            preconditionFailure("Redeem.configure(apiKey:baseURL:) must be called before Redeem.shared")
        }
        return redeem
    }

    public static var isConfigured: Bool {
        sharedInstance.withLock { $0 != nil }
    }

    static var sharedIfConfigured: Redeem? {
        sharedInstance.withLock { $0 }
    }

    /// Told about every redemption, on the main actor. Held weakly.
    public var delegate: (any RedeemDelegate)? {
        get { delegateBox.delegate }
        set { delegateBox.delegate = newValue }
    }

    /// The current app user ID (anonymous IDs start with `$RCAnonymousID:`).
    public var appUserID: String { identity.appUserID }

    public var isAnonymous: Bool { identity.isAnonymous }
}

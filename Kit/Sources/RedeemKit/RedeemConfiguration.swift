import Foundation

extension Redeem {
    /// Everything `Redeem` needs; only the API key and base URL are required.
    public struct Configuration: Sendable {
        /// The public API key, sent as `Authorization: Bearer <key>`.
        public var apiKey: String
        /// The Redeem server, e.g. `https://pay.example.com`.
        public var baseURL: URL
        /// The app user ID to use. `nil` keeps the persisted one, or generates an anonymous ID.
        public var appUserID: String?
        /// Hosts accepted for `https://<host>/r/<token>` links. `nil` accepts `baseURL`'s host only.
        public var redemptionLinkHosts: [String]?
        /// The app's custom URL scheme for `<scheme>://redeem_web_purchase` links. `nil` accepts any.
        public var urlScheme: String?
        /// Where the SDK keeps its files (cached customer info, and the app user ID by default).
        public var storageDirectory: URL
        /// Where the app user ID is persisted. `nil`: a file in `storageDirectory`.
        public var keyValueStorage: (any KeyValueStorage)?
        public var transport: any HTTPTransport
        public var clock: any RedeemClock
        public var retryPolicy: RetryPolicy
        /// Cached customer info older than this is refreshed on the next read (default 24 hours).
        public var cacheMaxAge: TimeInterval
        /// Refresh stale customer info in the background when the instance is created.
        public var refreshOnConfigure: Bool

        public init(
            apiKey: String,
            baseURL: URL,
            appUserID: String? = nil,
            redemptionLinkHosts: [String]? = nil,
            urlScheme: String? = nil,
            storageDirectory: URL = Configuration.defaultStorageDirectory,
            keyValueStorage: (any KeyValueStorage)? = nil,
            transport: any HTTPTransport = URLSessionTransport(),
            clock: any RedeemClock = SystemClock(),
            retryPolicy: RetryPolicy = .default,
            cacheMaxAge: TimeInterval = 24 * 60 * 60,
            refreshOnConfigure: Bool = true
        ) {
            self.apiKey = apiKey
            self.baseURL = baseURL
            self.appUserID = appUserID
            self.redemptionLinkHosts = redemptionLinkHosts
            self.urlScheme = urlScheme
            self.storageDirectory = storageDirectory
            self.keyValueStorage = keyValueStorage
            self.transport = transport
            self.clock = clock
            self.retryPolicy = retryPolicy
            self.cacheMaxAge = cacheMaxAge
            self.refreshOnConfigure = refreshOnConfigure
        }

        /// `Application Support/RedeemKit`.
        public static var defaultStorageDirectory: URL {
            let base =
                FileManager.default.urls(for: .applicationSupportDirectory, in: .userDomainMask).first
                ?? FileManager.default.temporaryDirectory
            return base.appendingPathComponent("RedeemKit", isDirectory: true)
        }

        var linkParser: RedemptionLinkParser {
            let hosts = redemptionLinkHosts ?? [baseURL.host].compactMap { $0 }
            return RedemptionLinkParser(
                acceptedHosts: Set(hosts.map { $0.lowercased() }),
                scheme: urlScheme,
                allowsHTTP: baseURL.scheme?.lowercased() == "http"
            )
        }
    }
}

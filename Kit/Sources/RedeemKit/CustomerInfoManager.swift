import Foundation

/// Owns cached customer info per user: when to refresh, what a refresh may replace, and
/// which changes reach `customerInfoStream`.
actor CustomerInfoManager {
    struct FetchOutcome: Sendable {
        let info: CustomerInfo
        /// Whether the fetch already emitted `info` to the stream.
        let emitted: Bool
    }

    private let backend: Backend
    private let cache: CustomerInfoCache
    private let identity: IdentityManager
    private let broadcaster: CustomerInfoBroadcaster
    private let clock: any RedeemClock
    private let maxAge: TimeInterval
    private let fetches = InFlightRequests<Result<FetchOutcome, RedeemError>>()
    private var memory: [String: CustomerInfoCache.Entry] = [:]

    init(
        backend: Backend,
        cache: CustomerInfoCache,
        identity: IdentityManager,
        broadcaster: CustomerInfoBroadcaster,
        clock: any RedeemClock,
        maxAge: TimeInterval
    ) {
        self.backend = backend
        self.cache = cache
        self.identity = identity
        self.broadcaster = broadcaster
        self.clock = clock
        self.maxAge = maxAge
    }

    /// Customer info for `appUserID` following `policy`.
    func customerInfo(for appUserID: String, policy: CacheFetchPolicy) async -> Result<CustomerInfo, RedeemError> {
        if policy == .cachedOrFetched, let entry = entry(for: appUserID), !isStale(entry) {
            return .success(servable(entry))
        }
        switch await fetch(appUserID) {
        case .success(let outcome):
            return .success(outcome.info)
        case .failure(let error):
            // A failed refresh never wipes the cache.
            if policy == .cachedOrFetched, let entry = entry(for: appUserID) {
                return .success(servable(entry))
            }
            return .failure(error)
        }
    }

    /// After a user switch: emit exactly one value for the new user if any info can be had.
    func didSwitchUser(to appUserID: String) async -> CustomerInfo? {
        let cached = entry(for: appUserID)
        broadcaster.reset(to: cached.map(servable))
        if let cached, !isStale(cached) {
            return emitIfCurrent(servable(cached), for: appUserID)
        }
        switch await fetch(appUserID) {
        case .success(let outcome):
            return outcome.emitted ? outcome.info : emitIfCurrent(outcome.info, for: appUserID)
        case .failure:
            return cached.map { emitIfCurrent(servable($0), for: appUserID) }
        }
    }

    /// Stores info the server returned (from a refresh or a redemption) and emits it if it
    /// replaced the cache. Returns whether it did.
    ///
    /// An answer without entitlements does not replace a cache that still holds an unexpired
    /// entitlement, and does not reset the fetch age, so the next read asks again.
    @discardableResult
    func receive(_ info: CustomerInfo, for appUserID: String) -> Bool {
        let now = clock.now()
        if info.entitlements.isEmpty, let cached = entry(for: appUserID),
            cached.info.hasUnexpiredEntitlement(at: max(now, info.requestDate))
        {
            return false
        }
        let entry = CustomerInfoCache.Entry(info: info, fetchedAt: now)
        memory[appUserID] = entry
        cache.save(entry, appUserID: appUserID)
        emitIfCurrent(info, for: appUserID)
        return true
    }

    /// The cached info for `appUserID`, evaluated now, without any network.
    func cachedInfo(for appUserID: String) -> CustomerInfo? {
        entry(for: appUserID).map(servable)
    }

    func isCacheStale(for appUserID: String) -> Bool {
        entry(for: appUserID).map(isStale) ?? true
    }

    /// Callers waiting on a fetch for `appUserID`, for tests.
    func fetchWaiters(for appUserID: String) -> Int {
        fetches.waiters(for: appUserID)
    }

    private func fetch(_ appUserID: String) async -> Result<FetchOutcome, RedeemError> {
        await fetches.run(key: appUserID) { [backend] in
            let result = ResponseMapping.customerInfo(await backend.customerInfo(appUserID: appUserID))
            switch result {
            case .success(let info):
                return .success(await self.received(info, for: appUserID))
            case .failure(let error):
                return .failure(error)
            }
        }
    }

    private func received(_ info: CustomerInfo, for appUserID: String) -> FetchOutcome {
        if receive(info, for: appUserID) {
            return FetchOutcome(info: info, emitted: identity.appUserID == appUserID)
        }
        // Kept the cache over an empty answer: serve the cache.
        let kept = entry(for: appUserID).map(servable) ?? info
        return FetchOutcome(info: kept, emitted: false)
    }

    private func entry(for appUserID: String) -> CustomerInfoCache.Entry? {
        if let entry = memory[appUserID] { return entry }
        let entry = cache.load(appUserID: appUserID)
        memory[appUserID] = entry
        return entry
    }

    private func isStale(_ entry: CustomerInfoCache.Entry) -> Bool {
        let age = clock.now().timeIntervalSince(entry.fetchedAt)
        return age >= maxAge || age < 0
    }

    /// Cached info with activity recomputed now, so an entitlement that expired since the
    /// fetch reads as inactive (it is kept, never dropped).
    private func servable(_ entry: CustomerInfoCache.Entry) -> CustomerInfo {
        entry.info.evaluated(at: max(entry.info.requestDate, clock.now()))
    }

    @discardableResult
    private func emitIfCurrent(_ info: CustomerInfo, for appUserID: String) -> CustomerInfo {
        if identity.appUserID == appUserID {
            broadcaster.emit(info)
        }
        return info
    }
}

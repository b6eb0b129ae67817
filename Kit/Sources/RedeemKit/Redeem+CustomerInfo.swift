import Foundation

extension Redeem {
    /// The current user's customer info; see `CacheFetchPolicy` for how the cache is used.
    public func customerInfo(fetchPolicy: CacheFetchPolicy = .cachedOrFetched) async throws -> CustomerInfo {
        try await customerInfoManager.customerInfo(for: identity.appUserID, policy: fetchPolicy).get()
    }

    /// The cached customer info, without any network.
    public func cachedCustomerInfo() async -> CustomerInfo? {
        await customerInfoManager.cachedInfo(for: identity.appUserID)
    }

    /// Refreshes the customer info if the cache is older than `cacheMaxAge`; call it when the app
    /// comes to the foreground.
    public func refreshIfStale() async {
        _ = await customerInfoManager.customerInfo(for: identity.appUserID, policy: .cachedOrFetched)
    }

    /// Customer info of the current user: the latest known value first (if any), then a value
    /// after every change (redemption, refresh, user switch). Each access makes a new stream.
    public var customerInfoStream: AsyncStream<CustomerInfo> {
        broadcaster.stream()
    }

    /// Switches to `appUserID` and returns its customer info (cached, or fetched if stale),
    /// or `nil` if none could be had. Throws `RedeemError.invalidAppUserID` for a blank ID.
    @discardableResult
    public func logIn(_ appUserID: String) async throws -> CustomerInfo? {
        guard let id = IdentityManager.validated(appUserID) else { throw RedeemError.invalidAppUserID }
        if id == identity.appUserID {
            return try? await customerInfo()
        }
        _ = identity.logIn(id)
        return await customerInfoManager.didSwitchUser(to: id)
    }

    /// Switches to a new anonymous app user ID and returns its customer info, if any could be had.
    @discardableResult
    public func logOut() async -> CustomerInfo? {
        let id = identity.logOut()
        return await customerInfoManager.didSwitchUser(to: id)
    }
}

/// How `Redeem.customerInfo(fetchPolicy:)` uses the cache.
public enum CacheFetchPolicy: Sendable, Hashable {
    /// The cached info if younger than `cacheMaxAge`; otherwise fetch, falling back to the
    /// cached info (never wiped) if the fetch fails.
    case cachedOrFetched
    /// Always fetch; fail if the fetch fails (the cache is kept either way).
    case fetchCurrent
}

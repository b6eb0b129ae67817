import Foundation
import RedeemCore

/// The hottest read: a customer's info, served from the rendered-JSON cache while the store's tag for the customer
/// says nothing it depends on was committed since it was filled (see `CustomerInfoCache`). On every engine, so
/// several instances on one PostgreSQL cache too. On PostgreSQL, while `versions` is fed by the database's
/// announcements and current, a cached entry whose versions are the latest announced is served with no round trip at
/// all; otherwise the tag is read from the database (one round trip).
struct CustomerInfoService: Sendable {
    let store: any CustomerInfoStore
    let cache: CustomerInfoCache
    var versions = CustomerVersions()
    let clock: any RedeemClock
    /// The app's portal, RevenueCat's `management_url` for web purchases.
    let managementURL: @Sendable (String) -> String

    /// `withAttributes`: a backend's read (the secret key) carries `subscriber_attributes`, as RevenueCat's does; the SDKs'
    /// never do (iOS fails a whole CustomerInfo over one malformed attribute).
    func customerInfo(appID: String, appUserID: AppUserID, withAttributes: Bool = false) async throws -> CustomerInfoResponse {
        let now = clock.now()
        let key = CustomerInfoCache.Key(appID: appID, appUserID: appUserID.rawValue, withAttributes: withAttributes)
        if let entry = cache.entry(key, now: now), versions.isCurrent(entry.tag, appID: appID, writtenHereAt: store.lastWriteFinished) {
            return CustomerInfoResponse(requestDate: now, subscriber: entry.subscriber)
        }
        let generation = versions.readStarts()
        // Read before the data, so an entry may be newer than its tag but never older.
        let token = try await store.customerInfoTag(appID: appID, appUserID: appUserID)
        if let token { versions.learn(token, appID: appID, since: generation) }
        if let token, let subscriber = cache.lookup(key, tag: token, now: now) {
            return CustomerInfoResponse(requestDate: now, subscriber: subscriber)
        }
        var info = try await store.customerInfo(appID: appID, appUserID: appUserID, now: now)
        if withAttributes { info = info.withAttributes(try await store.subscriberAttributes(appID: appID, appUserID: appUserID)) }
        let subscriber = CustomerInfoResponse.render(info.withManagementURL(managementURL(appID)).subscriber)
        if let token { cache.store(key, tag: token, info: info, subscriber: subscriber) }
        return CustomerInfoResponse(requestDate: now, subscriber: subscriber)
    }
}

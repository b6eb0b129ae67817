import Foundation
import RedeemCore
import RedeemStore

/// RevenueCat's `logIn` and Android's restore alias: who becomes whom is `LogInRules` (Core), applied by the store.
struct IdentityService: Sendable {
    let store: any IdentityStore
    let clock: any RedeemClock
    /// Adds `management_url` for customers who bought on the web.
    let managed: @Sendable (CustomerInfo, String) -> CustomerInfo

    /// The new ID's CustomerInfo, and whether the new ID was created (RevenueCat's 201).
    func logIn(appID: String, current: AppUserID, new: AppUserID, sandbox: Bool) async throws -> (CustomerInfo, created: Bool) {
        let now = clock.now()
        let created = try await Self.againOnConflict { try await store.logIn(appID: appID, current: current, new: new, sandbox: sandbox, now: now) }
        return (managed(try await store.customerInfo(appID: appID, appUserID: new, now: now), appID), created)
    }

    /// The user's CustomerInfo (created on first sight), for answers that carry it; `withAttributes` for a backend's
    /// (secret-key) call, as RevenueCat answers those.
    func customerInfo(appID: String, appUserID: AppUserID, withAttributes: Bool = false) async throws -> CustomerInfo {
        var info = try await store.customerInfo(appID: appID, appUserID: appUserID, now: clock.now())
        if withAttributes { info = info.withAttributes(try await store.subscriberAttributes(appID: appID, appUserID: appUserID)) }
        return managed(info, appID)
    }

    func restoreAlias(appID: String, previous: AppUserID, current: AppUserID, sandbox: Bool) async throws {
        try await Self.againOnConflict {
            try await store.restoreAlias(appID: appID, previous: previous, current: current, sandbox: sandbox, now: clock.now())
        }
    }

    /// Two devices logging in as one new user at once: the second's alias or customer collides with the first's. Deciding
    /// again on what is there now settles it (the new ID exists by then, so it merges or switches).
    static func againOnConflict<T>(_ body: () async throws -> T) async throws -> T {
        do { return try await body() } catch let error as StoreError where error.isConflict { return try await body() }
    }
}

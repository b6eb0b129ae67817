import Foundation
import RedeemCore
import RedeemStore

/// Records a purchase made elsewhere (the server API), exactly once per idempotency key: the purchase, its
/// redemption link when the app's policy allows one, the receipt e-mail on first recording, and the buyer's info.
struct PurchaseService: Sendable {
    let store: any PurchaseStore
    let links: RedemptionLinkIssuer
    let emailQueue: EmailQueue
    let clock: any RedeemClock

    struct Recorded: Sendable {
        let purchase: Purchase
        let customerInfo: CustomerInfo
        let link: RedemptionLink?
        /// False when an earlier request with the same key recorded it.
        let created: Bool
    }

    func record(_ grant: PurchaseGrant, idempotency: Idempotency, sendReceipt: Bool) async throws -> Recorded {
        let now = clock.now()
        let result = try await store.grant(grant, idempotency: idempotency, now: now)
        if result.created { RedeemMetrics.purchase(source: "server_api") }
        let link = try await links.issue(for: result.purchase, now: now)
        if result.created, sendReceipt { _ = try await emailQueue.queueReceipt(for: result.purchase) }
        let info = try await store.customerInfo(appID: grant.appID, appUserID: grant.appUserID, now: now)
        return Recorded(purchase: result.purchase, customerInfo: info, link: link, created: result.created)
    }
}

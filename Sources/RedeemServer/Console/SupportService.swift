import Foundation
import RedeemCore
import RedeemStore

/// The support operations the console, the admin API and the CLI share: find a customer, send a purchase a new
/// redemption link, refund a sandbox purchase. Who may call them is the caller's check (console roles, admin keys);
/// every write is audited under `actor`.
public struct SupportService: Sendable {
    let store: any ConsoleStore
    let clock: any RedeemClock
    let links: RedemptionLinkIssuer
    let emailQueue: EmailQueue

    init(store: any ConsoleStore, clock: any RedeemClock, links: RedemptionLinkIssuer, emailQueue: EmailQueue) {
        self.store = store
        self.clock = clock
        self.links = links
        self.emailQueue = emailQueue
    }

    public static let pageSize = 25

    /// One page of the customers `query` names exactly (see `ConsoleStore.searchCustomers`), and whether more follow.
    public func search(appID: String, query: String, page: Int) async throws -> (matches: [CustomerMatch], more: Bool) {
        _ = try await store.app(id: appID)
        let found = try await store.searchCustomers(
            appID: appID, query: query, limit: Self.pageSize + 1, offset: (max(1, page) - 1) * Self.pageSize)
        return (Array(found.prefix(Self.pageSize)), found.count > Self.pageSize)
    }

    /// A new single-use link for a purchase, and the new-link e-mail to its address when e-mail is on and none went out
    /// in the quiet period.
    public struct NewLink: Sendable {
        public let purchase: Purchase
        public let link: RedemptionLink
        public let emailed: Bool
    }

    public func sendNewLink(appID: String, purchaseID: String, actor: String) async throws -> NewLink {
        let purchase = try await store.purchase(appID: appID, id: purchaseID)
        let now = clock.now()
        guard let link = try await links.issue(for: purchase, now: now) else {
            throw APIError.conflict("This app's redemption-link policy gives no links for this purchase.")
        }
        let emailed = try await emailQueue.queueNewLink(for: purchase)
        try await store.recordAudit(
            AuditEntry(
                at: now, actor: actor, action: "purchase.link", objectType: "purchase", objectID: purchase.id, appID: appID,
                detail: emailed ? "shown and e-mailed" : "shown"))
        return NewLink(purchase: purchase, link: link, emailed: emailed)
    }

    /// Refunds a sandbox purchase at once: it grants nothing more, its CANCELLATION event is queued, and the refund is
    /// audited, in one transaction. A paid purchase is refunded in Stripe, whose webhook then applies it here.
    public func refund(appID: String, purchaseID: String, actor: String) async throws -> Purchase {
        let purchase = try await store.purchase(appID: appID, id: purchaseID)
        guard purchase.refundedAt == nil else { throw APIError.conflict("This purchase is already refunded.") }
        guard purchase.isSandbox else {
            throw APIError.conflict("Refund a paid purchase in Stripe's dashboard; Stripe's webhook then applies the refund here.")
        }
        let now = clock.now()
        let audit = AuditEntry(at: now, actor: actor, action: "purchase.refund", objectType: "purchase", objectID: purchase.id, appID: appID)
        return try await store.refundPurchase(appID: appID, id: purchase.id, now: now, audit: audit)
    }
}

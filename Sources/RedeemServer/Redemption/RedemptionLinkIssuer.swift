import Foundation
import RedeemCore
import RedeemStore

/// Issues redemption links for purchases, as the app's policy allows.
struct RedemptionLinkIssuer: Sendable {
    let store: any RedemptionLinkStore
    let publicURL: URL

    /// A new link for `purchase`, or nil when the app's policy gives none for its environment.
    /// A purchase may hold several live links (one per device or e-mail); each is single-use.
    func issue(for purchase: Purchase, now: Date) async throws -> RedemptionLink? {
        let app = try await store.app(id: purchase.appID)
        guard let link = make(for: purchase, app: app, now: now) else { return nil }
        try await store.issueRedemptionToken(
            appID: app.id, purchaseID: purchase.id, tokenHash: SecretToken.hash(link.token), now: now, expiresAt: link.expiresAt
        )
        return link
    }

    /// A link issued once for an occasion (`occasion`, such as Stripe's return from one checkout session).
    enum Once {
        case issued(RedemptionLink)
        /// The occasion had its link already; a second would be a second live link for the same page.
        case issuedBefore
        /// The app's policy gives this purchase no link.
        case noLink
    }

    func issueOnce(for purchase: Purchase, occasion: String, now: Date) async throws -> Once {
        let app = try await store.app(id: purchase.appID)
        guard let link = make(for: purchase, app: app, now: now) else { return .noLink }
        let stored = try await store.issueRedemptionTokenOnce(
            appID: app.id, purchaseID: purchase.id, tokenHash: SecretToken.hash(link.token), issuedFor: occasion, now: now,
            expiresAt: link.expiresAt)
        return stored ? .issued(link) : .issuedBefore
    }

    /// A new link for `purchase` of `app`, not stored yet; nil when the app's policy gives none for its environment.
    func make(for purchase: Purchase, app: App, now: Date) -> RedemptionLink? {
        guard app.redemptionLinkPolicy.allowsLinks(sandbox: purchase.isSandbox) else { return nil }
        return RedemptionLink(
            token: RedemptionLink.newToken(), scheme: app.scheme, publicURL: publicURL,
            expiresAt: now.addingTimeInterval(TimeInterval(app.redemptionLinkLifetimeSeconds)))
    }
}

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

    /// A new link for `purchase` of `app`, not stored yet; nil when the app's policy gives none for its environment.
    func make(for purchase: Purchase, app: App, now: Date) -> RedemptionLink? {
        guard app.redemptionLinkPolicy.allowsLinks(sandbox: purchase.isSandbox) else { return nil }
        return RedemptionLink(
            token: RedemptionLink.newToken(), scheme: app.scheme, publicURL: publicURL,
            expiresAt: now.addingTimeInterval(TimeInterval(app.redemptionLinkLifetimeSeconds)))
    }
}

import Foundation
import RedeemCore
import RedeemStore

/// What the HTTPS link's browser page shows, and its "Send me a new link" form. Viewing never consumes the token:
/// mail scanners open every link. Only the app's POST redeems.
struct LinkPageService: Sendable {
    let store: any LinkPageStore
    let clock: any RedeemClock
    let limiter: RateLimiter
    let emailQueue: EmailQueue

    /// Without e-mail there is no new link to send: the page offers the support address instead of the form.
    var sendsNewLinks: Bool { emailQueue.mail != nil }

    enum State: Equatable, Sendable {
        case invalid
        case used(App)
        case expired(App)
        /// With when the link stops working.
        case valid(App, expiresAt: Date)
    }

    /// Also records, once, that the link's page was opened (support's view and the funnel); that consumes nothing.
    func state(token: String) async throws -> State {
        let hash = SecretToken.hash(token)
        guard RedemptionLink.isWellFormed(token), let state = try await store.redemptionTokenState(tokenHash: hash) else {
            return .invalid
        }
        let app = try await store.app(id: state.appID)
        if state.consumedAt != nil { return .used(app) }
        let now = clock.now()
        if state.expiresAt <= now { return .expired(app) }
        if state.openedAt == nil { try await store.markLinkOpened(tokenHash: hash, now: now) }
        return .valid(app, expiresAt: state.expiresAt)
    }

    /// E-mails a new link when `email` is the purchase's address; the caller's answer never tells whether it matched.
    func sendNewLink(token: String, email typed: String?, ip: String?) async throws {
        try await limiter.newLink(ip: ip)
        let email = typed?.trimmingCharacters(in: .whitespaces).lowercased()
        guard RedemptionLink.isWellFormed(token), let email, Formats.isEmail(email),
            let state = try await store.redemptionTokenState(tokenHash: SecretToken.hash(token))
        else { return }
        try await limiter.newLink(appID: state.appID, email: email)
        let purchase = try await store.purchase(appID: state.appID, id: state.purchaseID)
        if purchase.email?.lowercased() == email { _ = try await emailQueue.queueNewLink(for: purchase) }
    }
}

import Foundation
import RedeemCore
import RedeemStore

/// The buyer's own portal for one app: sign-in by a one-time link e-mailed to the address their purchases carry, then
/// their purchases, a fresh redemption link, cancel or resume, another plan of the group, and Stripe's Billing Portal. Every action goes through
/// the same `SupportService` as the console and the admin API, audited as `customer:portal`.
struct PortalService: Sendable {
    let store: any PortalStore
    let clock: any RedeemClock
    let limiter: RateLimiter
    let emailQueue: EmailQueue
    let support: SupportService
    let stripe: StripeSessions?
    let publicURL: URL

    static let actor = "customer:portal"

    /// A signed-in buyer.
    struct Session: Sendable {
        let appID: String
        let email: String
        let tokenHash: String
        /// The token every portal form carries, derived from the session token (nothing more is stored).
        let csrf: String
    }

    func app(id: String) async throws -> App { try await store.app(id: id) }

    func products(appID: String) async throws -> [Product] { try await store.products(appID: appID) }

    /// Whether e-mail is on (without it there is no way to sign in, and the page says so).
    var mailOn: Bool { emailQueue.mail != nil }

    /// E-mails a sign-in link when the address has purchases in the app. The caller answers the same either way.
    func requestSignIn(appID: String, email text: String, ip: String?) async throws {
        guard let email = PortalRules.normalizedEmail(text) else {
            throw ValidationError(field: "email", reason: "must be an e-mail address")
        }
        _ = try await store.app(id: appID)
        try await limiter.portalSignIn(ip: ip, appID: appID, email: email)
        let purchases = try await store.purchases(appID: appID, email: email)
        guard let latest = purchases.first(where: PortalRules.isManaged) ?? purchases.first else { return }
        _ = try await emailQueue.queuePortalSignIn(for: latest, recipient: email)
    }

    /// Whether a sign-in link can still be used (the confirming page; showing it uses nothing).
    func signInLinkIsLive(appID: String, token: String) async throws -> Bool {
        try await store.portalSignInTokenIsLive(tokenHash: SecretToken.hash(token), appID: appID, now: clock.now())
    }

    /// Uses a sign-in link once; returns the new session's token, or nil when the link is used, expired or unknown.
    func signIn(appID: String, token: String, ip: String?) async throws -> String? {
        try await limiter.portalLink(ip: ip)
        let session = SecretToken.generate(byteCount: 32)
        let now = clock.now()
        let email = try await store.signInToPortal(
            linkHash: SecretToken.hash(token), appID: appID, sessionHash: SecretToken.hash(session), now: now,
            sessionExpiresAt: now.addingTimeInterval(PortalRules.sessionLifetime))
        return email == nil ? nil : session
    }

    func session(appID: String, token: String) async throws -> Session? {
        let hash = SecretToken.hash(token)
        guard let record = try await store.portalSession(tokenHash: hash, now: clock.now()), record.appID == appID else { return nil }
        return Session(appID: appID, email: record.email, tokenHash: hash, csrf: SecretToken.hash("portal-form:" + token))
    }

    func signOut(_ session: Session) async throws { try await store.endPortalSession(tokenHash: session.tokenHash, now: clock.now()) }

    /// The buyer's web purchases in the app, newest first.
    func purchases(_ session: Session) async throws -> [Purchase] {
        try await store.purchases(appID: session.appID, email: session.email).filter(PortalRules.isManaged)
    }

    /// One of the buyer's purchases; another's (or one bought elsewhere) is not found, whatever its ID.
    func owned(_ session: Session, purchaseID: String) async throws -> Purchase {
        let purchase = try await store.purchase(appID: session.appID, id: purchaseID)
        guard PortalRules.isManaged(purchase), let email = purchase.email, PortalRules.normalizedEmail(email) == session.email else {
            throw StoreError.notFound("purchase '\(purchaseID)'")
        }
        return purchase
    }

    func newLink(_ session: Session, purchaseID: String) async throws -> SupportService.NewLink {
        let purchase = try await owned(session, purchaseID: purchaseID)
        // The buyer is on the page that shows it: one token, not a second one by e-mail.
        return try await support.sendNewLink(appID: session.appID, purchaseID: purchase.id, actor: Self.actor, emailing: false)
    }

    /// `feedback`: the reason the buyer chose, if any.
    func cancel(_ session: Session, purchaseID: String, feedback: CancellationFeedback?) async throws -> SupportService.Outcome {
        let purchase = try await owned(session, purchaseID: purchaseID)
        return try await support.cancelAtPeriodEnd(appID: session.appID, purchaseID: purchase.id, actor: Self.actor, feedback: feedback)
    }

    func resume(_ session: Session, purchaseID: String) async throws -> SupportService.Outcome {
        let purchase = try await owned(session, purchaseID: purchaseID)
        return try await support.resume(appID: session.appID, purchaseID: purchase.id, actor: Self.actor)
    }

    /// The plans one of the buyer's subscriptions may switch to (`SupportService.planOptions`).
    func planOptions(_ purchase: Purchase) async throws -> [PlanChange.Option] { try await support.planOptions(purchase) }

    func changePlan(_ session: Session, purchaseID: String, to productID: String) async throws -> SupportService.Outcome {
        let purchase = try await owned(session, purchaseID: purchaseID)
        return try await support.changePlan(appID: session.appID, purchaseID: purchase.id, to: productID, actor: Self.actor)
    }

    /// Stripe's Billing Portal for a Stripe subscription's customer, returning to this portal.
    func billingPortalURL(_ session: Session, purchaseID: String) async throws -> String {
        let purchase = try await owned(session, purchaseID: purchaseID)
        guard PortalRules.actions(purchase, linksAllowed: false, now: clock.now()).billing, let stripe else {
            throw APIError.conflict("Payment details are kept by Stripe for Stripe subscriptions only.")
        }
        return try await stripe.billingPortalURL(
            subscriptionID: purchase.storeTransactionID, returnURL: PortalLinks.home(publicURL: publicURL, appID: session.appID))
    }
}

import Foundation
import HummingbirdBcrypt
import RedeemCore
import RedeemStore

/// A signed-in operator's session, as a request sees it.
struct ConsoleSession: Sendable {
    let `operator`: Operator
    let tokenHash: String
    /// The form token every console form carries: derived from the session token, so nothing more is stored.
    let csrf: String
}

/// The wrong e-mail or the wrong password: one answer for both, so the form reveals no account.
struct SignInRefused: Error {}

/// Signing in and out of the console, the sessions behind its pages, and what the support views read.
struct ConsoleService: Sendable {
    let store: any ConsoleStore
    let clock: any RedeemClock
    let limiter: RateLimiter
    let links: RedemptionLinkIssuer
    let emailQueue: EmailQueue

    /// Checked when no operator has the address, so an unknown address costs as much time as a wrong password.
    static let decoyHash = Bcrypt.hash(SecretToken.generate(byteCount: 16), cost: 12)

    /// Returns the new session's token (128 bits or more, from the CSPRNG); only its SHA-256 is stored.
    func signIn(email: String, password: String, ip: String?) async throws -> String {
        let email = Operator.normalize(email: email)
        try await limiter.signIn(ip: ip, email: email)
        let credentials = try await store.operatorCredentials(email: email)
        let matches = Bcrypt.verify(password, hash: credentials?.passwordHash ?? Self.decoyHash)
        guard matches, let op = credentials?.operator, op.disabledAt == nil else { throw SignInRefused() }
        let token = SecretToken.generate(byteCount: 32)
        try await store.createOperatorSession(tokenHash: SecretToken.hash(token), operatorID: op.id, now: clock.now())
        return token
    }

    /// The live session a cookie names, or nil (unknown, signed out, idle too long, too old, operator disabled).
    func session(token: String) async throws -> ConsoleSession? {
        guard !token.isEmpty, token.count <= 128 else { return nil }
        let hash = SecretToken.hash(token)
        guard let record = try await store.operatorSession(tokenHash: hash) else { return nil }
        let now = clock.now()
        guard record.operator.disabledAt == nil,
            OperatorSessionRules.isLive(createdAt: record.createdAt, lastSeen: record.lastSeen, endedAt: record.endedAt, now: now)
        else { return nil }
        if now.timeIntervalSince(record.lastSeen) >= OperatorSessionRules.touchResolution {
            try await store.touchOperatorSession(tokenHash: hash, now: now)
        }
        return ConsoleSession(operator: record.operator, tokenHash: hash, csrf: Self.csrf(sessionToken: token))
    }

    func signOut(_ session: ConsoleSession) async throws {
        try await store.endOperatorSession(tokenHash: session.tokenHash, now: clock.now())
    }

    static func csrf(sessionToken: String) -> String { SecretToken.hash("console-form:" + sessionToken) }

    static let pageSize = 25

    func search(appID: String, query: String, page: Int) async throws -> [CustomerMatch] {
        try await store.searchCustomers(appID: appID, query: query, limit: Self.pageSize + 1, offset: max(0, page - 1) * Self.pageSize)
    }

    /// A support action: a new single-use link for a purchase, shown once to the operator (for a support chat), and
    /// the new-link e-mail to the purchase's address when e-mail is on and none went out in the quiet period.
    struct NewLink: Sendable {
        let purchase: Purchase
        let link: RedemptionLink
        let emailed: Bool
    }

    func sendNewLink(appID: String, purchaseID: String, by session: ConsoleSession) async throws -> NewLink {
        let purchase = try await store.purchase(appID: appID, id: purchaseID)
        let now = clock.now()
        guard session.operator.role.may(.sendLink) else { throw APIError.forbidden("This role may not send links.") }
        guard let link = try await links.issue(for: purchase, now: now) else {
            throw APIError(.forbidden, "This app's redemption-link policy gives no links for this purchase.")
        }
        let emailed = try await emailQueue.queueNewLink(for: purchase)
        try await store.recordAudit(
            AuditEntry(
                at: now, actor: "operator:\(session.operator.email)", action: "purchase.link", objectType: "purchase", objectID: purchase.id,
                appID: appID, detail: emailed ? "shown and e-mailed" : "shown"))
        return NewLink(purchase: purchase, link: link, emailed: emailed)
    }

    /// Refunds a sandbox purchase at once (owners only). A paid purchase is refunded in Stripe, whose webhook then
    /// applies it here; the console does not call Stripe's refunds API yet.
    func refund(appID: String, purchaseID: String, by session: ConsoleSession) async throws -> Purchase {
        guard session.operator.role.may(.refund) else { throw APIError.forbidden("Only an owner may refund a purchase.") }
        let purchase = try await store.purchase(appID: appID, id: purchaseID)
        guard purchase.refundedAt == nil else { throw APIError.conflict("This purchase is already refunded.") }
        guard purchase.isSandbox else {
            throw APIError.conflict("Refund a paid purchase in Stripe's dashboard; Stripe's webhook then applies the refund here.")
        }
        let now = clock.now()
        let audit = AuditEntry(
            at: now, actor: "operator:\(session.operator.email)", action: "purchase.refund", objectType: "purchase", objectID: purchase.id,
            appID: appID)
        return try await store.refundPurchase(appID: appID, id: purchase.id, now: now, audit: audit)
    }

    /// What the customer page shows: the customer, the CustomerInfo the app sees, and each purchase with its attempts.
    struct CustomerView: Sendable {
        let customer: Customer
        let info: CustomerInfo
        let purchases: [(purchase: Purchase, attempts: [RedemptionAttempt])]
    }

    func customer(appID: String, id: String) async throws -> CustomerView {
        let customer = try await store.customer(appID: appID, id: id)
        let info = try await store.customerInfo(appID: appID, appUserID: try AppUserID(validating: customer.originalAppUserID), now: clock.now())
        var purchases: [(purchase: Purchase, attempts: [RedemptionAttempt])] = []
        for purchase in try await store.purchases(customerID: customer.id) {
            purchases.append((purchase, try await store.redemptionAttempts(appID: appID, purchaseID: purchase.id)))
        }
        return CustomerView(customer: customer, info: info, purchases: purchases)
    }
}

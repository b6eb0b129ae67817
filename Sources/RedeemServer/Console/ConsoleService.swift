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

    /// Who the audit log names for this session's writes.
    var actor: String { "operator:\(`operator`.email)" }
}

/// The wrong e-mail or the wrong password: one answer for both, so the form reveals no account.
struct SignInRefused: Error {}

/// Signing in and out of the console, the sessions behind its pages, and what the support views read.
struct ConsoleService: Sendable {
    let store: any ConsoleStore
    let clock: any RedeemClock
    let limiter: RateLimiter
    let support: SupportService

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

    /// Checks that the signed-in operator's role may do `action`; `what` names it in the refusal.
    func require(_ action: OperatorAction, _ session: ConsoleSession, _ what: String) throws {
        guard session.operator.role.may(action) else { throw APIError.forbidden("Your role (\(session.operator.role.rawValue)) may not \(what).") }
    }

    /// What the customer page shows: the customer, the CustomerInfo the app sees, and each purchase with its links,
    /// attempts, e-mails and webhook deliveries.
    struct CustomerView: Sendable {
        let customer: Customer
        let info: CustomerInfo
        let purchases: [SupportService.PurchaseDetail]
        let entitlementIDs: [String]
    }

    func customer(appID: String, id: String) async throws -> CustomerView {
        let customer = try await store.customer(appID: appID, id: id)
        let info = try await store.customerInfo(appID: appID, appUserID: try AppUserID(validating: customer.originalAppUserID), now: clock.now())
        var purchases: [SupportService.PurchaseDetail] = []
        for purchase in try await store.purchases(customerID: customer.id) { purchases.append(try await support.detail(of: purchase)) }
        let entitlements = try await store.entitlements(appID: appID).map(\.id)
        return CustomerView(customer: customer, info: info, purchases: purchases, entitlementIDs: entitlements)
    }
}

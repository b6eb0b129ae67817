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
    /// The password was right; the authenticator code is still to come. Such a session opens nothing else.
    let awaitingCode: Bool
    /// An owner without two-factor sign-in where the instance requires it: only enrolment is open to them.
    let mustEnrol: Bool
    /// The authenticator secret, enrolled or being enrolled.
    let totpSecret: String?

    /// Who the audit log names for this session's writes.
    var actor: String { "operator:\(`operator`.email)" }
}

/// The wrong e-mail or the wrong password: one answer for both, so the form reveals no account.
struct SignInRefused: Error {}

/// The right password for a disabled operator.
struct OperatorDisabled: Error {}

/// Signing in and out of the console, the sessions behind its pages, and what the support views read.
struct ConsoleService: Sendable {
    /// Credentials, sessions and two-factor sign-in.
    let sessions: any ConsoleSessionStore
    /// What the pages read.
    let store: any ConsoleReadStore
    let clock: any RedeemClock
    let limiter: RateLimiter
    let support: SupportService
    /// `--console-require-two-factor`: owners must enrol an authenticator app before using the console.
    let ownersNeedTwoFactor: Bool

    /// Checked when no operator has the address, so an unknown address costs as much time as a wrong password.
    static let decoyHash = Bcrypt.hash(SecretToken.generate(byteCount: 16), cost: 12)

    /// A new session's token (128 bits or more, from the CSPRNG; only its SHA-256 is stored), and whether it waits for
    /// an authenticator code before it opens anything.
    struct SignedIn: Sendable {
        let token: String
        let awaitingCode: Bool
    }

    func signIn(email: String, password: String, ip: String?) async throws -> SignedIn {
        let email = Operator.normalize(email: email)
        try await limiter.signIn(ip: ip, email: email)
        let credentials = try await sessions.operatorCredentials(email: email)
        let matches = Bcrypt.verify(password, hash: credentials?.passwordHash ?? Self.decoyHash)
        guard matches, let op = credentials?.operator else { throw SignInRefused() }
        // Said only to whoever knows the password: an owner disabled the account.
        guard op.disabledAt == nil else { throw OperatorDisabled() }
        let token = SecretToken.generate(byteCount: 32)
        let awaitingCode = op.twoFactorEnabledAt != nil
        try await sessions.createOperatorSession(tokenHash: SecretToken.hash(token), operatorID: op.id, awaitingCode: awaitingCode, now: clock.now())
        return SignedIn(token: token, awaitingCode: awaitingCode)
    }

    /// The authenticator code for a session waiting for one; rate-limited as sign-in is. A code works once.
    func verifyCode(_ session: ConsoleSession, code: String, ip: String?) async throws {
        try await limiter.signIn(ip: ip, email: session.operator.email)
        guard session.awaitingCode, let secret = session.totpSecret, let step = TwoFactor.matchingStep(code: code, secret: secret, now: clock.now()),
            try await sessions.completeSecondFactor(tokenHash: session.tokenHash, operatorID: session.operator.id, step: step)
        else { throw SignInRefused() }
    }

    /// A new authenticator secret for the signed-in operator, to scan or type; it counts once a code confirms it.
    func startEnrolment(_ session: ConsoleSession) async throws -> String {
        let secret = TwoFactor.newSecret()
        try await sessions.startTwoFactorEnrolment(operatorID: session.operator.id, secret: secret)
        return secret
    }

    /// Turns two-factor sign-in on once a code from the new secret matches.
    func confirmEnrolment(_ session: ConsoleSession, code: String, ip: String?) async throws {
        try await limiter.signIn(ip: ip, email: session.operator.email)
        guard session.operator.twoFactorEnabledAt == nil, let secret = session.totpSecret,
            let step = TwoFactor.matchingStep(code: code, secret: secret, now: clock.now())
        else { throw SignInRefused() }
        let audit = AuditEntry(
            at: clock.now(), actor: session.actor, action: "operator.two_factor.enable", objectType: "operator", objectID: session.operator.id,
            appID: nil)
        try await sessions.enableTwoFactor(operatorID: session.operator.id, step: step, now: clock.now(), audit: audit)
    }

    /// Turns two-factor sign-in off, with a current code; refused for owners where the instance requires it.
    func disableTwoFactor(_ session: ConsoleSession, code: String, ip: String?) async throws {
        guard !(ownersNeedTwoFactor && session.operator.role == .owner) else {
            throw APIError.forbidden("This server requires two-factor sign-in for owners.")
        }
        try await limiter.signIn(ip: ip, email: session.operator.email)
        guard session.operator.twoFactorEnabledAt != nil, let secret = session.totpSecret,
            TwoFactor.matchingStep(code: code, secret: secret, now: clock.now()) != nil
        else { throw SignInRefused() }
        let audit = AuditEntry(
            at: clock.now(), actor: session.actor, action: "operator.two_factor.disable", objectType: "operator", objectID: session.operator.id,
            appID: nil)
        try await sessions.disableTwoFactor(email: session.operator.email, audit: audit)
    }

    /// The live session a cookie names, or nil (unknown, signed out, idle too long, too old, operator disabled).
    func session(token: String) async throws -> ConsoleSession? {
        guard !token.isEmpty, token.count <= 128 else { return nil }
        let hash = SecretToken.hash(token)
        guard let record = try await sessions.operatorSession(tokenHash: hash) else { return nil }
        let now = clock.now()
        guard record.operator.disabledAt == nil,
            OperatorSessionRules.isLive(createdAt: record.createdAt, lastSeen: record.lastSeen, endedAt: record.endedAt, now: now),
            !record.awaitingCode || now.timeIntervalSince(record.createdAt) < OperatorSessionRules.codeWindow
        else { return nil }
        if now.timeIntervalSince(record.lastSeen) >= OperatorSessionRules.touchResolution {
            try await sessions.touchOperatorSession(tokenHash: hash, now: now)
        }
        return ConsoleSession(
            operator: record.operator, tokenHash: hash, csrf: Self.csrf(sessionToken: token), awaitingCode: record.awaitingCode,
            mustEnrol: OperatorSessionRules.mustEnrol(record.operator, ownersNeedTwoFactor: ownersNeedTwoFactor), totpSecret: record.totpSecret)
    }

    func signOut(_ session: ConsoleSession) async throws {
        try await sessions.endOperatorSession(tokenHash: session.tokenHash, now: clock.now())
    }

    static func csrf(sessionToken: String) -> String { SecretToken.hash("console-form:" + sessionToken) }

    /// Every app, for the console's app switcher.
    func apps() async throws -> [App] { try await store.apps() }

    func customerRecord(appID: String, id: String) async throws -> Customer { try await store.customer(appID: appID, id: id) }

    /// Queued, retrying and failed e-mails, the first 200.
    func unsentEmails(appID: String) async throws -> [UnsentEmail] { try await store.unsentEmails(appID: appID, limit: 200) }

    /// The hand-off funnel of the last `days` days.
    func funnel(appID: String, days: Int) async throws -> Funnel { try await store.funnel(appID: appID, days: days, now: clock.now()) }

    func purchase(appID: String, id: String) async throws -> Purchase { try await store.purchase(appID: appID, id: id) }

    /// A page of the app's audit log and the instance's (operators), newest first, with what its filters offer and
    /// each actor in words (an operator's address, a key's label).
    struct AuditPage: Sendable {
        let entries: [AuditEntry]
        let more: Bool
        let actors: [String]
        let actions: [String]
        let actorNames: [String: String]
    }

    static let auditPageSize = 50

    func auditPage(_ query: AuditQuery) async throws -> AuditPage {
        let (entries, more) = try await store.auditLog(query, limit: Self.auditPageSize)
        let facets = try await store.auditFacets(appID: query.appID)
        var names: [String: String] = [:]
        // The app's keys and the instance's (nil app): who can write to this app's log.
        for key in try await store.keys(appID: nil) where key.appID == query.appID || key.appID == nil {
            let kind = key.kind.rawValue.replacingOccurrences(of: "_", with: " ")
            names["key:\(key.id)"] = key.label.map { "key “\($0)” (\(kind))" } ?? "\(kind) key \(key.displayPrefix)…"
        }
        return AuditPage(entries: entries, more: more, actors: facets.actors, actions: facets.actions, actorNames: names)
    }
}

import Foundation
import RedeemCore

/// Counts hits on guessable routes and refuses what goes over a limit. Every bucket name is built here, so the
/// policy is in one place. App user IDs, e-mail addresses and client addresses are named by their hash, so an erased
/// customer is in no bucket and no address is written in clear to the database's counters (PostgreSQL's are rows). An
/// IPv4 address's hash can still be found by trying every address: the rows go within a window of their window's end
/// (`RateLimitPruner`).
struct RateLimiter: Sendable {
    /// In memory for one SQLite server process; in the database on PostgreSQL, so every instance sees every hit.
    let counter: any RateLimitCounter
    let limits: RateLimits
    let clock: any RedeemClock

    /// Redeeming a link in the app.
    func redemption(ip: String?, appID: String, user: AppUserID) async throws {
        try await check([
            ("redeem:ip:\(Self.client(ip))", limits.redeemPerIP), ("redeem:user:\(appID):\(SecretToken.hash(user.rawValue))", limits.redeemPerUser),
        ])
    }

    /// Redeeming an offer code, in the app or by the web page's claim.
    func offerRedemption(ip: String?, appID: String, user: AppUserID) async throws {
        try await check([
            ("offer:ip:\(Self.client(ip))", limits.redeemPerIP), ("offer:user:\(appID):\(SecretToken.hash(user.rawValue))", limits.redeemPerUser),
        ])
    }

    /// The sandbox payment of a paid offer (its claimant was counted by the claim).
    func offerPayment(ip: String?) async throws {
        try await check([("offer:ip:\(Self.client(ip))", limits.redeemPerIP)])
    }

    /// Showing an offer code's page, which tells whether a typed code exists.
    func offerPage(ip: String?) async throws {
        try await check([("offerpage:ip:\(Self.client(ip))", limits.redeemPerIP)])
    }

    /// Asking for a new link by e-mail; `email` nil counts the address's limit later, once it is known.
    func newLink(ip: String?) async throws {
        try await check([("newlink:ip:\(Self.client(ip))", limits.newLinkPerIP)])
    }

    func newLink(appID: String, email: String) async throws {
        try await check([("newlink:email:\(appID):\(SecretToken.hash(email))", limits.newLinkPerEmail)])
    }

    func newLink(ip: String?, appID: String, email: String) async throws {
        try await check([
            ("newlink:ip:\(Self.client(ip))", limits.newLinkPerIP),
            ("newlink:email:\(appID):\(SecretToken.hash(email))", limits.newLinkPerEmail),
        ])
    }

    /// Asking for a portal sign-in link: per client and per address, as asking for a new link is.
    func portalSignIn(ip: String?, appID: String, email: String) async throws {
        try await check([
            ("portal:ip:\(Self.client(ip))", limits.newLinkPerIP),
            ("portal:email:\(appID):\(SecretToken.hash(email))", limits.newLinkPerEmail),
        ])
    }

    /// Using a portal sign-in link (a guess at a token costs a hit).
    func portalLink(ip: String?) async throws {
        try await check([("portallink:ip:\(Self.client(ip))", limits.redeemPerIP)])
    }

    /// Asking for a console password-reset link: per client and per address, as the portal's sign-in links are.
    func passwordReset(ip: String?, email: String) async throws {
        try await check([
            ("reset:ip:\(Self.client(ip))", limits.newLinkPerIP),
            ("reset:email:\(SecretToken.hash(email))", limits.newLinkPerEmail),
        ])
    }

    /// A support ticket from the Customer Center: per client and per app user, as a portal sign-in is per address, and
    /// per app, so that no one fills the app's support inbox however many IDs and addresses they use.
    func supportTicket(ip: String?, appID: String, user: AppUserID) async throws {
        try await check([
            ("ticket:ip:\(Self.client(ip))", limits.newLinkPerIP),
            ("ticket:user:\(appID):\(SecretToken.hash(user.rawValue))", limits.newLinkPerEmail),
            ("ticket:app:\(appID)", limits.redeemPerIP),
        ])
    }

    /// Opening or using a team link (an invitation or a password reset; a guess at a token costs a hit).
    func teamLink(ip: String?) async throws {
        try await check([("teamlink:ip:\(Self.client(ip))", limits.redeemPerIP)])
    }

    /// A console sign-in attempt, counted before the password is checked.
    func signIn(ip: String?, email: String) async throws {
        try await check([
            ("signin:ip:\(Self.client(ip))", limits.signInPerIP),
            ("signin:account:\(SecretToken.hash(email))", limits.signInPerAccount),
        ])
    }

    /// A client's address as bucket names hold it: its hash, the same on every instance.
    static func client(_ ip: String?) -> String { SecretToken.hash(ip ?? "unknown") }

    /// Counts a hit in every bucket; throws `RateLimited` when any is over its limit.
    private func check(_ buckets: [(name: String, limit: Int)]) async throws {
        let now = clock.now()
        let (hits, ends) = try await counter.hit(buckets: buckets.map(\.name), window: limits.window, now: now)
        guard let over = buckets.first(where: { hits[$0.name] ?? 0 > $0.limit }) else { return }
        // The bucket's kind (`redeem_ip`, `signin_account`, …), never the address or user it counts.
        RedeemMetrics.rateLimited(over.name.split(separator: ":").prefix(2).joined(separator: "_"))
        throw RateLimited(retryAfter: ends.timeIntervalSince(now))
    }
}

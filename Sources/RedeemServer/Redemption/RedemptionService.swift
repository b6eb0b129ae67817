import Foundation
import RedeemCore
import RedeemStore

/// Redeeming a link in the app, and asking for new links by e-mail. Rate limits, the redemption's one transaction
/// and the re-sent link for an expired one are decided here; the controller only decodes and encodes.
struct RedemptionService: Sendable {
    let store: any RedemptionStore
    let emailQueue: EmailQueue
    let limiter: RateLimiter
    let clock: any RedeemClock

    func redeem(appID: String, token: String, claimant: AppUserID, ip: String?) async throws -> RedemptionReply {
        try await limiter.redemption(ip: ip, appID: appID, user: claimant)
        guard RedemptionLink.isWellFormed(token) else {
            RedeemMetrics.redemption("invalid")
            return .invalid
        }
        let now = clock.now()
        // One transaction claims, associates, records the attempt and reads the answer (CustomerInfo and product).
        let redemption = try await store.redeemDescribed(appID: appID, tokenHash: SecretToken.hash(token), claimant: claimant, now: now)
        RedeemMetrics.redemption(redemption.outcome.label)
        switch redemption.outcome {
        case .redeemed(let purchase, _):
            let info = try redemption.customerInfo.unwrap()
            return .success(
                info,
                RedemptionInfo(
                    purchase: purchase, owner: info.subscriber.originalAppUserID,
                    entitlements: redemption.product?.entitlements ?? []))
        case .subscriptionExpired:
            return .subscriptionExpired(try redemption.customerInfo.unwrap())
        case .invalid: return .invalid
        case .otherApp: return .otherApp
        case .belongsToOtherUser: return .belongsToOtherUser
        case .offerRefused(let failure): return .offerRefused(failure)
        case .expired(let purchase):
            let resent = try await emailQueue.queueNewLink(for: purchase)
            return .expired(obfuscatedEmail: purchase.email.map(EmailMasking.mask), resent: resent)
        }
    }

    /// E-mails a new link for each of the app's purchases billed to `email`; says nothing about whether there were any.
    func requestNewLinks(appID: String, email typed: String, ip: String?) async throws {
        let email = typed.trimmingCharacters(in: .whitespaces).lowercased()
        guard Formats.isEmail(email) else { throw ValidationError(field: "email", reason: "must be an e-mail address") }
        try await limiter.newLink(ip: ip, appID: appID, email: email)
        for purchase in try await store.purchases(appID: appID, email: email) where purchase.refundedAt == nil {
            _ = try await emailQueue.queueNewLink(for: purchase)
        }
    }
}

extension Optional {
    /// The value a described redemption always carries for its outcome.
    fileprivate func unwrap() throws -> Wrapped {
        guard let self else { throw StoreError.conflict("redemption answer missing") }
        return self
    }
}

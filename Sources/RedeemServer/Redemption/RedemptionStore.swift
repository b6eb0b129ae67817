import Foundation
import RedeemCore
import RedeemStore

/// What redeeming a link and asking for a new one need.
protocol RedemptionStore: Sendable {
    /// Claims, associates, records the attempt and reads the answer, in one transaction.
    func redeemDescribed(appID: String, tokenHash: String, claimant: AppUserID, now: Date) async throws -> DescribedRedemption
    func purchases(appID: String, email: String) async throws -> [Purchase]
}

/// What issuing a redemption link needs.
public protocol RedemptionLinkStore: Sendable {
    func app(id: String) async throws -> App
    /// Stores a new token (by its hash) for a purchase.
    func issueRedemptionToken(appID: String, purchaseID: String, tokenHash: String, now: Date, expiresAt: Date) async throws
    /// Stores a token issued for one occasion, unless that occasion has one already (then false).
    func issueRedemptionTokenOnce(
        appID: String, purchaseID: String, tokenHash: String, issuedFor: String, now: Date, expiresAt: Date
    ) async throws -> Bool
}

/// What the link's browser page reads; it never consumes anything.
protocol LinkPageStore: Sendable {
    func app(id: String) async throws -> App
    func purchase(appID: String, id: String) async throws -> Purchase
    func redemptionTokenState(tokenHash: String) async throws -> RedemptionTokenState?
    func markLinkOpened(tokenHash: String, now: Date) async throws
}

import Foundation
import RedeemCore
import RedeemStore

/// What queuing, composing and sending e-mail needs.
protocol EmailStore: Sendable {
    func app(id: String) async throws -> App
    func product(appID: String, id: String) async throws -> Product
    func purchase(appID: String, id: String) async throws -> Purchase
    /// The product's web prices, for what a purchase renews at.
    func productBilling(appID: String, productID: String) async throws -> ProductBilling
    /// Queues unless an e-mail of the same kind for the purchase was queued within `quietPeriod`; returns whether it was.
    func enqueueEmail(_ email: QueuedEmail, quietPeriod: TimeInterval) async throws -> Bool
    func claimDueEmails(now: Date, lease: TimeInterval, limit: Int) async throws -> [QueuedEmail]
    func markEmailSent(id: String, at date: Date) async throws
    func markEmailFailed(id: String, error: String, retryAt: Date?, at date: Date) async throws
    /// Records the hash of a portal sign-in link minted as its e-mail is composed.
    func insertPortalSignInToken(tokenHash: String, appID: String, email: String, now: Date, expiresAt: Date) async throws
}

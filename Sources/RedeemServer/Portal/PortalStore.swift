import Foundation
import RedeemCore
import RedeemStore

/// What the buyer's portal reads and writes; the purchase actions themselves go through `SupportService`.
protocol PortalStore: Sendable {
    func app(id: String) async throws -> App
    func products(appID: String) async throws -> [Product]
    func purchase(appID: String, id: String) async throws -> Purchase
    /// The app's unrefunded purchases billed to `email`, newest first.
    func purchases(appID: String, email: String) async throws -> [Purchase]
    func signInToPortal(linkHash: String, appID: String, sessionHash: String, now: Date, sessionExpiresAt: Date) async throws -> String?
    func portalSignInTokenIsLive(tokenHash: String, appID: String, now: Date) async throws -> Bool
    func portalSession(tokenHash: String, now: Date) async throws -> PortalSessionRecord?
    func endPortalSession(tokenHash: String, now: Date) async throws
}

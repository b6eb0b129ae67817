import Foundation
import RedeemCore
import RedeemStore

/// Queues purchase e-mails for the worker, when e-mail is configured.
struct EmailQueue: Sendable {
    let store: any EmailStore
    let mail: MailSettings?
    let mailer: EmailDeliveryWorker?
    let clock: any RedeemClock

    /// Queues a new-link e-mail to the purchase's billing address, at most once per quiet period.
    /// Returns whether one was queued now.
    func queueNewLink(for purchase: Purchase) async throws -> Bool {
        try await queue(.newLink, for: purchase, quietPeriod: mail?.resendQuietPeriod ?? 0)
    }

    func queueReceipt(for purchase: Purchase) async throws -> Bool {
        try await queue(.receipt, for: purchase, quietPeriod: 0)
    }

    /// Queues a portal sign-in link to `recipient` (the address the buyer typed, which `purchase` carries), at most
    /// once a minute per purchase. Returns whether one was queued.
    func queuePortalSignIn(for purchase: Purchase, recipient: String) async throws -> Bool {
        guard mail != nil else { return false }
        let email = QueuedEmail(
            id: Identifier.make(prefix: "eml"), appID: purchase.appID, purchaseID: purchase.id, kind: .portalSignIn, recipient: recipient,
            createdAt: clock.now())
        let queued = try await store.enqueueEmail(email, quietPeriod: 60)
        if queued { mailer?.wake() }
        return queued
    }

    /// Whether a purchase's receipt and link e-mails go out at all (e-mail being on): it has an address, and the app's
    /// policy gives it links. Pages ask this before saying anything was e-mailed.
    static func mails(_ purchase: Purchase, app: App) -> Bool {
        purchase.email != nil && app.redemptionLinkPolicy.allowsLinks(sandbox: purchase.isSandbox)
    }

    private func queue(_ kind: QueuedEmail.Kind, for purchase: Purchase, quietPeriod: TimeInterval) async throws -> Bool {
        guard mail != nil, let recipient = purchase.email else { return false }
        let app = try await store.app(id: purchase.appID)
        guard Self.mails(purchase, app: app) else { return false }
        let email = QueuedEmail(
            id: Identifier.make(prefix: "eml"), appID: purchase.appID, purchaseID: purchase.id, kind: kind,
            recipient: recipient, createdAt: clock.now()
        )
        let queued = try await store.enqueueEmail(email, quietPeriod: quietPeriod)
        if queued { mailer?.wake() }
        return queued
    }
}
